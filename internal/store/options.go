package store

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Option tunes a store when it is opened.
type Option func(*options)

type options struct {
	instance    string
	maxEpisodes int
	busyTimeout time.Duration // SQLite: how long a write waits on a lock held elsewhere
}

func buildOptions(opts []Option) options {
	o := options{maxEpisodes: DefaultMaxEpisodes, busyTimeout: defaultBusyTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if o.instance == "" {
		o.instance = randomInstance()
	}
	return o
}

// WithInstance names the process using the store: the turns it creates record id as their
// owner, and [SQLite.RenewLease] (and the other stores' RenewLease) keeps id's lease. A process
// that restarts under the same id ends the turns its previous run left at once
// (AbandonOwned); under another id they end when the old id's lease runs out. Without it a
// store uses a random id of its own.
func WithInstance(id string) Option { return func(o *options) { o.instance = id } }

// WithMaxEpisodes bounds how many episodes a [Memory] keeps; n < 1 means
// [DefaultMaxEpisodes]. The durable stores ignore it.
func WithMaxEpisodes(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.maxEpisodes = n
		}
	}
}

func randomInstance() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "instance_" + hex.EncodeToString(b[:])
}
