// Command loadtest drives switchboard over real HTTP and SSE, as a chat client does: each
// worker posts a turn with Accept: text/event-stream and reads its stream to turn.completed,
// then posts the next. It reports turns per second and latency percentiles for each store and
// concurrency.
//
//	go run ./internal/loadtest                               # in-process: memory and SQLite, 1/8/32/128 workers
//	go run ./internal/loadtest -stores sqlite -concurrency 32 -duration 10s
//	go run ./internal/loadtest -target http://127.0.0.1:8080 # a running `switchboard serve` (dev mode, shared SWITCHBOARD_DEV_SECRET)
//	go run ./internal/loadtest -stores sqlite -concurrency 32 -memory-turns 40000 # heap and RSS every 5,000 turns
//
// Every turn is signed in as its own principal, so per-principal limits never hold the load
// back: this measures the service, not the limiter.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/demo"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

const twoIntents = "any deals on running shoes? and how many points do I have?"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

type options struct {
	target      string
	stores      []string
	concurrency []int
	duration    time.Duration
	warmup      time.Duration
	messages    []string // each turn sends the next, round the list
	memory      memoryOptions
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.target, "target", "", "base URL of a running switchboard in dev mode (default: serve in-process on loopback)")
	stores := fs.String("stores", "memory,sqlite", "stores to run in-process, comma-separated (memory, sqlite)")
	conc := fs.String("concurrency", "1,8,32,128", "workers, comma-separated: each runs one turn at a time")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time per run")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time before each run")
	message := fs.String("message", twoIntents, "the message every turn sends")
	messagesFile := fs.String("messages", "", "a file of messages, one a line (blank lines and lines starting with # skipped): the turns send them in turn, in place of -message")
	fs.IntVar(&o.memory.turns, "memory-turns", 0, "instead of timed runs, run this many turns (at the first -concurrency) and report heap and RSS as they go")
	fs.IntVar(&o.memory.every, "memory-every", 5000, "with -memory-turns: report after each this many turns")
	fs.StringVar(&o.memory.heapProfile, "heap-profile", "", "with -memory-turns: write a heap profile of this process to FILE.N after N turns, at each report")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range strings.Split(*stores, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.stores = append(o.stores, s)
		}
	}
	for _, c := range strings.Split(*conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return fmt.Errorf("-concurrency: %q is not a positive number", c)
		}
		o.concurrency = append(o.concurrency, n)
	}

	o.messages = []string{*message}
	if *messagesFile != "" {
		var err error
		if o.messages, err = readMessages(*messagesFile); err != nil {
			return err
		}
	}
	if o.memory.turns > 0 && o.memory.every < 1 {
		return fmt.Errorf("-memory-every: %d is not a positive number", o.memory.every)
	}
	if o.memory.turns == 0 {
		fmt.Fprintln(stdout, "| store | workers | turns | turns/s | p50 | p95 | p99 | first delta p50 | errors |")
		fmt.Fprintln(stdout, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	}
	if o.target != "" {
		secret, ok := os.LookupEnv("SWITCHBOARD_DEV_SECRET")
		if !ok {
			return errors.New("-target needs SWITCHBOARD_DEV_SECRET, shared with the server, to sign in its users")
		}
		signer, err := principal.NewDevSigner([]byte(secret), "switchboard-dev", "switchboard")
		if err != nil {
			return err
		}
		return runAll(ctx, o, "target", strings.TrimRight(o.target, "/"), signer.Mint, stdout, stderr)
	}
	for _, driver := range o.stores {
		if err := runInProcess(ctx, o, driver, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// runInProcess serves the whole service (offline model, embedded demo CCS, dev auth, the
// given store) on a loopback listener and loads it.
func runInProcess(ctx context.Context, o options, driver string, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "switchboard-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := switchboard.DefaultConfig()
	cfg.Store.Driver, cfg.Store.DSN = driver, filepath.Join(dir, "load.db")
	cfg.Auth.HS256Secret = "loadtest-secret-loadtest-secret-loadtest"
	sb, err := switchboard.New(ctx, switchboard.Options{Config: &cfg, AgentsFS: demo.Agents, Logger: slog.New(slog.DiscardHandler), ShutdownGrace: 30 * time.Second})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(sb.Handler())
	defer srv.Close()
	defer sb.Close(context.WithoutCancel(ctx))
	return runAll(ctx, o, driver, srv.URL, sb.DevToken, stdout, stderr)
}

func runAll(ctx context.Context, o options, name, base string, mint func(user string, ttl time.Duration) (string, error), stdout, stderr io.Writer) error {
	if o.memory.turns > 0 {
		return runMemory(ctx, o.memory, name, base, mint, o.concurrency[0], o.messages, stdout, stderr)
	}
	for _, n := range o.concurrency {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(stderr, "%s: %d workers, %s...\n", name, n, o.duration)
		r := load(ctx, o, base, mint, n)
		fmt.Fprintf(stdout, "| %s | %d | %d | %.0f | %s | %s | %s | %s | %d |\n", name, n, len(r.total),
			float64(len(r.total))/o.duration.Seconds(), pct(r.total, 50), pct(r.total, 95), pct(r.total, 99), pct(r.first, 50), r.errors)
		if r.firstErr != nil {
			fmt.Fprintf(stderr, "  first error: %v\n", r.firstErr)
		}
	}
	return nil
}

type result struct {
	total, first []time.Duration
	errors       int
	firstErr     error
}

// load runs n workers for the warm-up and then the measured duration; only turns that start
// and end inside the measured window count.
func load(ctx context.Context, o options, base string, mint func(user string, ttl time.Duration) (string, error), n int) result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: n, MaxIdleConnsPerHost: n, MaxConnsPerHost: n}}
	defer client.CloseIdleConnections()
	start := time.Now().Add(o.warmup)
	end := start.Add(o.duration)
	ctx, cancel := context.WithDeadline(ctx, end.Add(30*time.Second))
	defer cancel()
	var (
		mu   sync.Mutex
		res  result
		seq  atomic.Int64
		wg   sync.WaitGroup
		user = newUserNames()
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil {
				i := seq.Add(1)
				began := time.Now()
				first, err := turn(ctx, client, base, mint, user(i), o.messages[int(i)%len(o.messages)])
				done := time.Now()
				if began.Before(start) || done.After(end) {
					continue
				}
				mu.Lock()
				if err != nil {
					res.errors++
					if res.firstErr == nil {
						res.firstErr = err
					}
				} else {
					res.total = append(res.total, done.Sub(began))
					res.first = append(res.first, first)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res
}

// newUserNames names each turn's principal for one run. The run's own prefix keeps a second
// run against the same server from signing in as the first run's users: they would carry on
// conversations that have history and find their sentences already in the model's caches, and
// measure less work than a new user's turn.
func newUserNames() func(i int64) string {
	prefix := "load-" + strconv.FormatUint(rand.Uint64(), 36) + "-"
	return func(i int64) string { return prefix + strconv.FormatInt(i, 10) }
}

// turn posts one message and reads its stream to turn.completed; it returns the time to the
// first reply.delta.
func turn(ctx context.Context, client *http.Client, base string, mint func(user string, ttl time.Duration) (string, error), user, message string) (time.Duration, error) {
	tok, err := mint(user, time.Hour)
	if err != nil {
		return 0, err
	}
	body := `{"message":` + strconv.Quote(message) + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/turns", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	began := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("POST /v1/turns: %s %s", resp.Status, b)
	}
	var first time.Duration
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			return 0, err
		}
		switch ev.Name {
		case "reply.delta":
			if first == 0 {
				first = time.Since(began)
			}
		case "turn.completed":
			if !strings.Contains(string(ev.Data), `"outcome":"ok"`) {
				return 0, fmt.Errorf("turn ended %s", ev.Data)
			}
			return first, nil
		}
	}
	return 0, errors.New("stream ended before turn.completed")
}

func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	d := s[min(len(s)-1, len(s)*p/100)]
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// readMessages reads a -messages file: one message a line, blank lines and lines starting
// with # left out.
func readMessages(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-messages: %w", err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-messages: %s holds no message", path)
	}
	return out, nil
}
