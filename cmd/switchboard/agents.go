package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-ai/switchboard/demo"
)

// defaultAgentsDir is --agents' default. When it does not exist, every command uses the demo
// agents built into the binary, so `switchboard serve` works from any folder.
const defaultAgentsDir = "./agents"

// agentsSource says where the definitions come from: the folder dir, or (builtIn) the
// embedded demo agents when dir is the default and absent.
func agentsSource(dir string) (folder string, fsys fs.FS, builtIn bool) {
	if dir == defaultAgentsDir {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return ".", demo.Agents, true
		}
	}
	return dir, nil, false
}

// withAgentsHint adds the fix to an error about a missing agents folder.
func withAgentsHint(err error) error {
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w\n  pass --agents with the folder of your Agent Definition YAML files, or leave --agents out (with no ./agents folder the built-in demo agents are used)", err)
}

// checkAgentsFlag refuses an --agents that names no folder before anything is built: a file
// failed deep in the assembly, in the words of whichever part read the folder first (the demo
// CCS's fixtures), and an empty one in the library's own terms (Options.Agents).
func checkAgentsFlag(dir string) error {
	if dir == "" {
		return usageError("--agents needs a folder of Agent Definition YAML files")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usageError("--agents %s is a file: name the folder that holds the definitions, such as %s", dir, filepath.Dir(dir))
	}
	return nil
}
