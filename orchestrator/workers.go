package orchestrator

import (
	"sync"
	"time"
)

// workers runs functions on goroutines that stay a while after their function returns, so the
// next one reuses them. A turn needs a stack of some tens of KiB: a fresh goroutine starts at
// a few KiB and copies its whole stack at every doubling, which cost a tenth of a turn's CPU
// when every turn and every sub-agent call started one. A reused goroutine has grown already
// (the garbage collector halves an idle one's stack at most once per cycle).
//
// A worker with nothing to do for idle ends, so a quiet process keeps none, and stop ends the
// idle ones at once.
type workers struct {
	idle     time.Duration
	jobs     chan func() // unbuffered: a send succeeds only when a worker is waiting
	quit     chan struct{}
	stopOnce sync.Once
}

// workerIdle is how long a worker waits for its next function: at any steady rate of turns a
// worker is back in use long before, and a test waiting for goroutines to end not much longer.
const workerIdle = 200 * time.Millisecond

func newWorkers() *workers {
	return &workers{idle: workerIdle, jobs: make(chan func()), quit: make(chan struct{})}
}

// Go runs f on a waiting worker, or on a new one when none waits. It never blocks.
func (w *workers) Go(f func()) {
	select {
	case w.jobs <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	idle := time.NewTimer(w.idle)
	defer idle.Stop()
	for {
		f()
		f = nil // not kept alive while waiting
		idle.Reset(w.idle)
		select {
		case f = <-w.jobs:
		case <-idle.C:
			return
		case <-w.quit:
			return
		}
	}
}

// stop ends the waiting workers, and each busy one once its function returns. Go still runs
// functions afterwards, each on a goroutine that ends with it.
func (w *workers) stop() {
	w.stopOnce.Do(func() { close(w.quit) })
}
