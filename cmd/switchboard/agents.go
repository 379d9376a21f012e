package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

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
