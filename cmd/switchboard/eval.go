package main

import (
	"context"
	"errors"
	"io"
)

func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	return errors.New("eval: not wired yet")
}
