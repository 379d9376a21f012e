package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-ai/switchboard/demo"
)

// initCmd writes the demo's Agent Definitions into a folder of the user's own, as a start:
// the built-in demo is served when there is no ./agents folder, and a folder of one's own is
// where new agents go.
func initCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard init [DIR]\n\nWrites the demo's Agent Definitions (the concierge orchestrator and its shop, rewards,\nsupport and travel sub-agents) into DIR (default ./agents), which must not hold them yet.\nAdd your own definitions there and serve them with: switchboard serve --agents DIR")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("init takes one folder, got %d arguments", fs.NArg())
	}
	dir := defaultAgentsDir
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	n, err := writeDemo(dir)
	if err != nil {
		return err
	}
	serveCmd := "switchboard serve --agents " + dir
	if filepath.Clean(dir) == filepath.Clean(defaultAgentsDir) {
		// serve reads ./agents by default; naming it again suggests it would not.
		serveCmd = "switchboard serve"
	}
	fmt.Fprintf(stdout, "wrote %d definitions to %s\nserve them with: %s\n", n, dir, serveCmd)
	return nil
}

// writeDemo copies the demo definitions into dir and returns how many it wrote. It refuses,
// writing nothing, when any of them exists already.
func writeDemo(dir string) (int, error) {
	names, err := fs.Glob(demo.Agents, "*.yaml")
	if err != nil {
		return 0, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return 0, fmt.Errorf("%s is a file: init writes the definitions into a folder; name a new or existing folder", dir)
	}
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return 0, fmt.Errorf("%s exists already: init writes only into a folder without the demo's files", filepath.Join(dir, name))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(demo.Agents, name)
		if err != nil {
			return 0, err
		}
		// O_EXCL: a file that appeared since the check above is kept, not overwritten.
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return 0, err
		}
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Close()); err != nil {
			return 0, err
		}
	}
	return len(names), nil
}
