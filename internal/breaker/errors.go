package breaker

import (
	"errors"
	"fmt"
)

// ErrOpen means a call was refused without being made: its target's breaker is open, or
// half-open with its one probe already under way.
var ErrOpen = errors.New("circuit breaker open")

// ErrInvalidConfig marks a [Config] that cannot be used.
var ErrInvalidConfig = errors.New("invalid breaker config")

// excluded carries an error that says nothing about the target's health (the caller gave up,
// or the request itself was refused before it was sent), so that it counts neither as a
// failure nor as a success.
type excluded struct{ err error }

func (e excluded) Error() string { return e.err.Error() }
func (e excluded) Unwrap() error { return e.err }

func isExcluded(err error) bool {
	var x excluded
	return errors.As(err, &x)
}

// openError is what a refused call returns: ErrOpen, naming the target.
func openError(target string) error { return fmt.Errorf("%w: %s", ErrOpen, target) }
