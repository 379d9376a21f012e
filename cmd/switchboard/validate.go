package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/switchboard-ai/switchboard/definitions"
)

func validateCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("agents", defaultAgentsDir, "folder of Agent Definition YAML files (the built-in demo agents when ./agents is absent, as serve does)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard validate [--agents DIR]\n\nChecks every Agent Definition in DIR and prints every problem with file:line.\nExit status 1 when there is any problem.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("validate takes no arguments, got %q", fs.Args())
	}
	folder, fsys, builtIn := agentsSource(*dir)
	var set *definitions.Set
	var err error
	if builtIn {
		fmt.Fprintln(stdout, "no ./agents folder: checking the built-in demo agents (as serve would use them)")
		set, err = definitions.LoadFS(fsys, folder)
	} else {
		set, err = definitions.Load(folder)
	}
	var le *definitions.LoadError
	switch {
	case errors.As(err, &le):
		for _, p := range le.Problems {
			fmt.Fprintln(stdout, p.String())
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(le.Problems), *dir)}
	case err != nil:
		return withAgentsHint(err)
	}
	fmt.Fprintf(stdout, "%s: %d definitions OK\n", *dir, len(set.All()))
	return nil
}
