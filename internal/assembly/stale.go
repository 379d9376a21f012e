package assembly

import (
	"context"
	"log/slog"
	"time"
)

// recoverer is a store that knows which process owns each running turn and can end the turns
// of a process that died (all of ours can). Kept out of orchestrator.Store: the service
// itself never needs it.
type recoverer interface {
	// RenewLease records that this process is alive until until.
	RenewLease(ctx context.Context, until time.Time) error
	// ReleaseLease ends the lease now, at shutdown.
	ReleaseLease(ctx context.Context) error
	// AbandonOwned fails every running turn of this process's instance id: at start-up they
	// are what a previous run under the same id left behind.
	AbandonOwned(ctx context.Context) (int, error)
	// AbandonOrphans fails the running turns whose owner's lease ended before now, and those
	// created before startedBefore by an owner that never held a lease.
	AbandonOrphans(ctx context.Context, now, startedBefore time.Time) (int, error)
}

const (
	// staleGrace is how long past its deadline a turn without a leased owner (one created
	// before leases existed) may still be finishing before the sweep takes its process for
	// dead.
	staleGrace = time.Minute
	// staleTimeout bounds one sweep, so a stuck database cannot hold up Close.
	staleTimeout = 30 * time.Second
	// defaultDeadline is orchestrator.NewService's default, for a config that leaves it unset.
	defaultDeadline = 60 * time.Second
	// Defaults of config.Instance: a replica that stops renewing is taken for dead after
	// defaultLease, and its turns end at the next heartbeat of any other replica.
	defaultHeartbeat = 5 * time.Second
	defaultLease     = 15 * time.Second
)

// staleAge is how old a running turn without a leased owner must be before no live process can
// still be running it: every turn stops at its deadline.
func staleAge(deadline time.Duration) time.Duration {
	if deadline <= 0 {
		deadline = defaultDeadline
	}
	return deadline + staleGrace
}

// staleSweeper keeps this process's lease and ends the turns that dead processes left running.
// When started it ends, at once, the turns a previous run under this instance id left; then on
// every heartbeat it renews the lease and ends the turns of owners whose lease ran out, in one
// goroutine that stop ends and waits for.
type staleSweeper struct {
	store    recoverer
	age      time.Duration // for turns whose owner never held a lease
	interval time.Duration // heartbeat
	lease    time.Duration
	log      *slog.Logger
	// settle, when set, stores the ends of turns this process could not store in time
	// (orchestrator.Service.Settle); it runs on every heartbeat, after the lease is renewed.
	settle func(context.Context) error

	ownDone bool // AbandonOwned has succeeded; only the loop's goroutine touches it after start

	cancel  context.CancelFunc
	started chan struct{} // closed when the background loop is running
	done    chan struct{} // closed when it has returned
}

// startStaleSweeper sweeps once before returning, so that turns a previous run of this process
// left behind end before it serves anyone, then keeps its lease and sweeps in the background
// until stop.
func startStaleSweeper(ctx context.Context, s recoverer, age, interval, lease time.Duration, log *slog.Logger, settle func(context.Context) error) *staleSweeper {
	w := &staleSweeper{store: s, age: age, interval: interval, lease: lease, log: log, settle: settle,
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

// sweep ends this instance's own leftovers (until that has once succeeded), renews the lease,
// and ends the turns of dead owners. A failure is logged and left to the next sweep: it must
// not stop the service.
func (w *staleSweeper) sweep(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, staleTimeout)
	defer cancel()
	fail := func(what string, err error) {
		if ctx.Err() == nil { // else stopped mid-sweep: the app is closing, and so is the store
			w.log.ErrorContext(ctx, what, "err", err)
		}
	}
	if !w.ownDone {
		n, err := w.store.AbandonOwned(sctx)
		if err != nil {
			fail("end turns this instance left running", err)
			return
		}
		w.ownDone = true
		if n > 0 {
			w.log.InfoContext(ctx, "ended turns a previous run of this instance left running", "turns", n)
		}
	}
	now := time.Now()
	if err := w.store.RenewLease(sctx, now.Add(w.lease)); err != nil {
		fail("renew instance lease", err)
	}
	if w.settle != nil {
		if err := w.settle(sctx); err != nil {
			fail("store turn ends", err)
		}
	}
	n, err := w.store.AbandonOrphans(sctx, now, now.Add(-w.age))
	switch {
	case err != nil:
		fail("abandon stale turns", err)
	case n > 0:
		w.log.InfoContext(ctx, "abandoned turns left running by a stopped process", "turns", n)
	}
}

// stop ends the background sweeps, interrupting one in progress, waits for the goroutine to
// exit, and releases the lease so that whatever this process still leaves running ends at
// another replica's next sweep.
func (w *staleSweeper) stop() error {
	w.cancel()
	<-w.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if w.settle != nil {
		// A last chance for ends still unsaved; what remains fails at another replica's sweep.
		if err := w.settle(ctx); err != nil {
			w.log.ErrorContext(ctx, "store turn ends", "err", err)
		}
	}
	return w.store.ReleaseLease(ctx)
}
