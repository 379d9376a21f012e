package principal

import "time"

// Option adjusts [NewDevSigner] and [NewTurnTokens].
type Option func(*options)

type options struct {
	now func() time.Time
}

// WithClock replaces time.Now, for tests that move time instead of sleeping.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

func buildOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}
