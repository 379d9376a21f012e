package app

import (
	"context"
	"log/slog"
	"time"
)

// staleAbandoner is a store that can finish the turns a dead process left running (all of
// ours can). Kept out of orchestrator.Store: the service itself never needs it.
type staleAbandoner interface {
	AbandonStale(ctx context.Context, startedBefore time.Time) (int, error)
}

const (
	// staleGrace is how long past its deadline a turn may still be finishing (storing its
	// end, closing its log) before the sweep takes its process for dead.
	staleGrace = time.Minute
	// staleEvery is how often each replica sweeps, so a turn of a replica that crashed ends
	// within deadline + staleGrace + staleEvery.
	staleEvery = time.Minute
	// staleTimeout bounds one sweep, so a stuck database cannot hold up Close.
	staleTimeout = 30 * time.Second
	// defaultDeadline is orchestrator.NewService's default, for a config that leaves it unset.
	defaultDeadline = 60 * time.Second
)

// staleAge is how old a running turn must be before no live process can still be running it:
// every turn stops at its deadline.
func staleAge(deadline time.Duration) time.Duration {
	if deadline <= 0 {
		deadline = defaultDeadline
	}
	return deadline + staleGrace
}

// staleSweeper abandons turns left running by a process that died: once when started, then
// every interval, in one goroutine that stop ends and waits for.
type staleSweeper struct {
	store    staleAbandoner
	age      time.Duration
	interval time.Duration
	log      *slog.Logger

	cancel  context.CancelFunc
	started chan struct{} // closed when the background loop is running
	done    chan struct{} // closed when it has returned
}

// startStaleSweeper sweeps once before returning, so that turns a previous run of this process
// left behind end before it serves anyone, then keeps sweeping in the background until stop.
func startStaleSweeper(ctx context.Context, s staleAbandoner, age, interval time.Duration, log *slog.Logger) *staleSweeper {
	w := &staleSweeper{store: s, age: age, interval: interval, log: log,
		started: make(chan struct{}), done: make(chan struct{})}
	w.sweep(ctx)
	// The sweeper lives as long as the app, not as long as the call to New.
	ctx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	go w.run(ctx)
	return w
}

func (w *staleSweeper) run(ctx context.Context) {
	defer close(w.done)
	close(w.started)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// select picks at random when both are ready: never start a sweep once stopped.
			if ctx.Err() != nil {
				return
			}
			w.sweep(ctx)
		}
	}
}

// sweep abandons the turns created more than w.age ago that are still running. A failure is
// logged and left to the next sweep: it must not stop the service.
func (w *staleSweeper) sweep(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, staleTimeout)
	defer cancel()
	n, err := w.store.AbandonStale(sctx, time.Now().Add(-w.age))
	switch {
	case err != nil && ctx.Err() != nil:
		// Stopped mid-sweep: the app is closing, and so is the store.
	case err != nil:
		w.log.ErrorContext(ctx, "abandon stale turns", "err", err)
	case n > 0:
		w.log.InfoContext(ctx, "abandoned turns left running by a stopped process", "turns", n, "older_than", w.age)
	}
}

// stop ends the background sweeps, interrupting one in progress, and returns once the
// goroutine has exited.
func (w *staleSweeper) stop() error {
	w.cancel()
	<-w.done
	return nil
}
