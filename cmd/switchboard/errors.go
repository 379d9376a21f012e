package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// exitError carries an exit code and a message already meant for the user.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func exitCode(err error, stderr io.Writer) int {
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(stderr, ee.msg)
		}
		return ee.code
	default:
		fmt.Fprintln(stderr, "switchboard:", err)
		return 1
	}
}

// usageError reports a bad command line (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: "switchboard: " + fmt.Sprintf(format, args...)}
}

// parseFlags parses args with fs. The flag package has already printed a bad flag's message
// and the usage when it fails, so the error returned says nothing more, only the exit code of
// a usage error (2); --help stays flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &exitError{code: 2}
}
