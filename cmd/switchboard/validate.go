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
	dir := fs.String("agents", "./agents", "folder of Agent Definition YAML files")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard validate [--agents DIR]\n\nChecks every Agent Definition in DIR and prints every problem with file:line.\nExit status 1 when there is any problem.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("validate takes no arguments, got %q", fs.Args())
	}
	set, err := definitions.Load(*dir)
	var le *definitions.LoadError
	switch {
	case errors.As(err, &le):
		for _, p := range le.Problems {
			fmt.Fprintln(stdout, p.String())
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%d problem(s) in %s", len(le.Problems), *dir)}
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "%s: %d definitions OK\n", *dir, len(set.All()))
	return nil
}
