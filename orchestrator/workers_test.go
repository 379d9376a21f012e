package orchestrator

import (
	"bytes"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// goroutineID reads the running goroutine's number from its stack header ("goroutine 7 [").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := bytes.Fields(buf)
	if len(f) < 2 {
		return ""
	}
	return string(f[1])
}

// A function started after another has finished runs on the same goroutine, and a worker left
// idle ends (the bubble fails if any goroutine is left).
func TestWorkersReuseAndEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers()
		ids := make(chan string)
		w.Go(func() { ids <- goroutineID() })
		first := <-ids
		synctest.Wait() // the worker is waiting for its next function
		w.Go(func() { ids <- goroutineID() })
		if second := <-ids; second != first {
			t.Errorf("second function ran on goroutine %s, want %s (the idle worker)", second, first)
		}

		// Two at once need two goroutines: Go never waits for a busy worker.
		release := make(chan struct{})
		w.Go(func() { ids <- goroutineID(); <-release })
		w.Go(func() { ids <- goroutineID(); <-release })
		if a, b := <-ids, <-ids; a == b {
			t.Errorf("two functions at once both ran on goroutine %s", a)
		}
		close(release)
		time.Sleep(workerIdle + time.Millisecond)
		synctest.Wait()
	})
}

// stop ends a waiting worker at once, however long its idle time, and a function started
// afterwards still runs.
func TestWorkersStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers()
		w.idle = time.Hour
		before := runtime.NumGoroutine()
		done := make(chan struct{})
		w.Go(func() { done <- struct{}{} })
		<-done
		synctest.Wait() // the worker is waiting for its next function
		if n := runtime.NumGoroutine(); n != before+1 {
			t.Fatalf("%d goroutines with one idle worker, want %d", n, before+1)
		}
		w.stop()
		synctest.Wait()
		if n := runtime.NumGoroutine(); n != before {
			t.Errorf("%d goroutines after stop, want %d: the idle worker is still there", n, before)
		}
		w.Go(func() { done <- struct{}{} })
		<-done
		w.stop() // twice is fine
	})
}
