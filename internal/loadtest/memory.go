package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// memoryOptions configure the memory run: a fixed number of turns instead of a duration, with
// the process's heap and resident set reported every so many turns, so that growth that
// never levels off shows as a rising column.
type memoryOptions struct {
	turns       int    // total turns; 0: no memory run
	every       int    // report after each this many turns
	heapProfile string // write a heap profile to this path plus ".N" after N turns
}

// memSample is the process's memory after a forced collection: the live heap, the resident
// set as it is, and the resident set once the runtime has returned its free pages to the OS
// (what the process holds, without the garbage of the last GC cycle that it keeps for reuse).
type memSample struct {
	heapMB, rssMB, heldMB float64
	goroutines            int
}

func sampleMemory() memSample {
	runtime.GC()
	runtime.GC() // a second cycle frees what the first only unlinked (finalizers, sync.Pool victims)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := memSample{heapMB: float64(ms.HeapAlloc) / (1 << 20), rssMB: rssMB(), goroutines: runtime.NumGoroutine()}
	debug.FreeOSMemory()
	s.heldMB = rssMB()
	return s
}

// rssMB reads the resident set from /proc (Linux); elsewhere it is 0.
func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// runMemory runs m.turns turns with workers workers, each its own principal, and prints a
// row of heap and RSS every m.every turns. An in-process run measures the server and this
// client together; the client keeps nothing per turn.
func runMemory(ctx context.Context, m memoryOptions, name, base string, mint func(user string, ttl time.Duration) (string, error), workers int, messages []string, stdout, stderr io.Writer) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: workers, MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	fmt.Fprintln(stdout, "| store | turns | heap MB | RSS MB | RSS after FreeOSMemory MB | goroutines | errors |")
	fmt.Fprintln(stdout, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	row := func(done int, errs int64) {
		s := sampleMemory()
		fmt.Fprintf(stdout, "| %s | %d | %.1f | %.1f | %.1f | %d | %d |\n", name, done, s.heapMB, s.rssMB, s.heldMB, s.goroutines, errs)
	}
	row(0, 0)
	var (
		seq     atomic.Int64
		errs    atomic.Int64
		firstMu sync.Mutex
		first   error
	)
	for done := 0; done < m.turns && ctx.Err() == nil; {
		batch := min(m.every, m.turns-done)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(batch) && ctx.Err() == nil {
					i := seq.Add(1)
					user := fmt.Sprintf("mem-%d", i)
					if _, err := turn(ctx, client, base, mint, user, messages[int(i)%len(messages)]); err != nil {
						errs.Add(1)
						firstMu.Lock()
						if first == nil {
							first = err
						}
						firstMu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		done += batch
		fmt.Fprintf(stderr, "%s: %d turns\n", name, done)
		row(done, errs.Load())
		if m.heapProfile != "" {
			if err := writeHeapProfile(fmt.Sprintf("%s.%d", m.heapProfile, done)); err != nil {
				return err
			}
		}
	}
	if first != nil {
		fmt.Fprintf(stderr, "  first error: %v\n", first)
	}
	return ctx.Err()
}

// writeHeapProfile writes the heap profile to path; a profile per checkpoint lets
// `go tool pprof -base` show what the turns in between left behind.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
