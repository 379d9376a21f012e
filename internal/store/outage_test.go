package store

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// These tests take the database away in the middle of turns run by the real turn service,
// from outside the store: PostgreSQL behind a proxy that cuts every connection and refuses new
// ones, SQLite behind a write lock held by another connection. Then they check what a user
// would: no turn stays running, nobody is locked out, every event a client saw is stored or
// the stored outcome says why not, replays end, and readiness said so during the outage.

// gatedModel answers every call with a reply once its gate opens, so that a test can take the
// database away while turns are in the middle of their run.
type gatedModel struct {
	gate    chan struct{}
	entered chan struct{} // one send per call
}

func (m *gatedModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.entered <- struct{}{}
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "You have 2,550 points, enough for a free coffee at any of our partner stores."}}}, nil
}

func (m *gatedModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// outageRig is a turn service over one store, with a hub over the same store, as a replica runs.
type outageRig struct {
	store interface {
		orchestrator.Store
		orchestrator.RunningCounter
		stream.LogStore
		Ready(context.Context) error
	}
	hub   *stream.Hub
	svc   *orchestrator.Service
	model *gatedModel
}

func newOutageRig(t *testing.T, st *sqlStore, deadline, grace time.Duration, running int) *outageRig {
	t.Helper()
	model := &gatedModel{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	sub := &definitions.Definition{
		Kind: definitions.KindSubAgent, ID: "rewards", Name: "Rewards", Description: "Loyalty points balance and tier.",
		Timeout: time.Second, Enabled: definitions.Enabled{Value: true},
	}
	orc, err := orchestrator.New(orchestrator.Config{
		Definition: &definitions.Definition{
			Kind: definitions.KindOrchestrator, ID: "concierge", Name: "Concierge", Description: "Routes questions.",
			Prompt: "You are a concierge.", SubAgents: []string{"rewards"}, FanOutCap: 1, Enabled: definitions.Enabled{Value: true},
		},
		SubAgents: []*definitions.Definition{sub},
		Runtimes: map[string]ask.Agent{"rewards": ask.Func(func(context.Context, ask.Question) (ask.Answer, error) {
			return ask.Answer{Text: "2,550 points", Outcome: ask.OutcomeOK}, nil
		})},
		Model: model,
	}, orchestrator.WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatalf("orchestrator.New() = %v", err)
	}
	// Replays here of a turn not in memory give up on its end as production's do, sooner.
	hub := stream.NewHub(st, stream.WithLostAfter(time.Second), stream.WithStoreTimeout(time.Second))
	t.Cleanup(hub.Close)
	svc, err := orchestrator.NewService(orchestrator.ServiceConfig{
		Orchestrator: orc, Store: st, Hub: hub, Deadline: deadline, EndGrace: grace,
		Limits: orchestrator.TurnLimits{Running: running}, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("NewService() = %v", err)
	}
	return &outageRig{store: st, hub: hub, svc: svc, model: model}
}

// startTurns starts n turns for alice and follows each live, as its client would; each
// channel gives what that client saw once its stream ended.
func (r *outageRig) startTurns(t *testing.T, n int) ([]orchestrator.TurnRecord, []chan []stream.Record) {
	t.Helper()
	var recs []orchestrator.TurnRecord
	var seen []chan []stream.Record
	for i := range n {
		rec, _, err := r.svc.Start(t.Context(), orchestrator.StartRequest{
			Principal: "alice", Message: "how many points do I have?", IdempotencyKey: "key-" + string(rune('a'+i)),
		})
		if err != nil {
			t.Fatalf("Start() = %v", err)
		}
		<-r.model.entered // the turn is running: the database may go
		ch := make(chan []stream.Record, 1)
		go func() {
			var got []stream.Record
			for rec, err := range r.hub.Follow(context.Background(), rec.ID, 0) {
				if err != nil {
					break
				}
				got = append(got, rec)
			}
			ch <- got
		}()
		recs = append(recs, rec)
		seen = append(seen, ch)
	}
	return recs, seen
}

// check asserts, once the database is back and ends are settled, what the outage must not
// have broken.
func (r *outageRig) check(t *testing.T, turns []orchestrator.TurnRecord, client [][]stream.Record, wantOutcome stream.Outcome) {
	t.Helper()
	ctx := t.Context()
	for i, rec := range turns {
		got := client[i]
		if len(got) == 0 {
			t.Fatalf("turn %d: the client saw nothing", i)
		}
		end, ok := got[len(got)-1].Event.(stream.TurnCompleted)
		if !ok || end.Outcome != wantOutcome {
			t.Errorf("turn %d: the client's stream ended on %#v, want turn.completed %s", i, got[len(got)-1].Event, wantOutcome)
		}
		stored, err := r.store.Turn(ctx, "alice", rec.ID)
		if err != nil {
			t.Fatalf("Turn() = %v", err)
		}
		if stored.State != orchestrator.TurnCompleted || stored.Outcome != end.Outcome {
			t.Errorf("turn %d: stored %s %s, want completed %s as its client saw", i, stored.State, stored.Outcome, end.Outcome)
		}
		log, err := r.store.Events(ctx, rec.ID, 0)
		if err != nil {
			t.Fatalf("Events() = %v", err)
		}
		if diff := cmp.Diff(got, log); diff != "" {
			t.Errorf("turn %d: stored log against what the client saw (-client +stored):\n%s", i, diff)
		}
		// A replica that did not run it replays it to the end.
		other := stream.NewHub(r.store)
		replay, err := followAll(ctx, other, rec.ID)
		other.Close()
		if err != nil || len(replay) != len(log) {
			t.Errorf("turn %d: replay = %d records, %v; want the %d stored", i, len(replay), err, len(log))
		}
	}
	if n, err := r.store.RunningTurns(ctx, "alice"); err != nil || n != 0 {
		t.Errorf("RunningTurns(alice) = %d, %v; want 0", n, err)
	}
	if n := r.svc.Unsaved(); n != 0 {
		t.Errorf("Unsaved() = %d, want 0", n)
	}
	if err := r.store.Ready(ctx); err != nil {
		t.Errorf("Ready() after the outage = %v, want nil", err)
	}
	// Nobody is locked out: alice starts a turn, and it runs to its end.
	next, _, err := r.svc.Start(ctx, orchestrator.StartRequest{Principal: "alice", Message: "and my tier?"})
	if err != nil {
		t.Fatalf("Start() after the outage = %v", err)
	}
	<-r.model.entered
	got, err := followAll(ctx, r.hub, next.ID)
	if err != nil || len(got) == 0 {
		t.Fatalf("Follow() of a turn after the outage = %v, %v", got, err)
	}
	if end, ok := got[len(got)-1].Event.(stream.TurnCompleted); !ok || end.Outcome != stream.OutcomeOK {
		t.Errorf("a turn after the outage ended on %#v, want turn.completed ok", got[len(got)-1].Event)
	}
	if err := r.svc.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

func followAll(ctx context.Context, h *stream.Hub, turnID string) ([]stream.Record, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var got []stream.Record
	for rec, err := range h.Follow(ctx, turnID, 0) {
		if err != nil {
			return got, err
		}
		got = append(got, rec)
	}
	return got, nil
}

func collectAll(chans []chan []stream.Record) [][]stream.Record {
	out := make([][]stream.Record, len(chans))
	for i, ch := range chans {
		out[i] = <-ch
	}
	return out
}

// cutProxy forwards TCP connections to a database until cut, which closes every connection
// and refuses new ones, as a database that stopped does, until restore.
type cutProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// newCutProxy listens on addr and forwards to target until cut.
func newCutProxy(t *testing.T, addr, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *cutProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = true, true
		p.wg.Add(2)
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			defer p.wg.Done()
			_, _ = io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		go pipe(up, c)
		go pipe(c, up)
	}
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// viaProxy points a postgres:// DSN at addr.
func viaProxy(t *testing.T, dsn, addr string) (proxied, target string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("the outage test needs a postgres:// URL DSN: %v", err)
	}
	target = u.Host
	u.Host = addr
	return u.String(), target
}

// PostgreSQL stops while turns are finishing: briefly, then for longer than the turns' end
// grace.
func TestPostgresOutageMidTurn(t *testing.T) {
	for _, tt := range []struct {
		name        string
		long        bool
		wantOutcome stream.Outcome
	}{
		{"back within the end grace", false, stream.OutcomeOK},
		{"down past the end grace", true, stream.OutcomeFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dsn := postgresSchema(t)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			proxied, target := viaProxy(t, dsn, addr)
			proxy := newCutProxy(t, addr, target)
			st := openPostgres(t, proxied)
			rig := newOutageRig(t, st.sqlStore, 2*time.Second, 2*time.Second, 3)
			turns, seen := rig.startTurns(t, 3)

			proxy.cut()
			close(rig.model.gate) // the turns end while the database is gone
			if err := st.Ready(t.Context()); !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("Ready() during the outage = %v, want %v", err, orchestrator.ErrUnavailable)
			}
			if _, _, err := rig.svc.Start(t.Context(), orchestrator.StartRequest{Principal: "bob", Message: "hi"}); !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("Start() during the outage = %v, want %v", err, orchestrator.ErrUnavailable)
			}
			var client [][]stream.Record
			if tt.long {
				client = collectAll(seen) // the turns end failed, unsaved, while it is down
				proxy.restore()
				// Before the heartbeat the store still counts them: 3 running turns of 3.
				if _, _, err := rig.svc.Start(t.Context(), orchestrator.StartRequest{Principal: "alice", Message: "hi"}); !errors.Is(err, orchestrator.ErrRateLimited) {
					t.Errorf("Start() before Settle = %v, want %v", err, orchestrator.ErrRateLimited)
				}
				// A replay from another replica ends even before then.
				other := stream.NewHub(st, stream.WithLostAfter(500*time.Millisecond))
				replay, err := followAll(t.Context(), other, turns[0].ID)
				other.Close()
				if err != nil || len(replay) == 0 || replay[len(replay)-1].Event != (stream.TurnCompleted{TurnID: turns[0].ID, Outcome: stream.OutcomeFailed}) {
					t.Errorf("replay of an unsaved end = %v, %v; want it to end failed", replay, err)
				}
			} else {
				time.Sleep(time.Second) // the outage
				proxy.restore()
				client = collectAll(seen)
			}
			if err := rig.svc.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			// The owner's next heartbeat.
			if err := st.RenewLease(t.Context(), time.Now().Add(time.Minute)); err != nil {
				t.Fatalf("RenewLease() = %v", err)
			}
			if err := rig.svc.Settle(t.Context()); err != nil {
				t.Fatalf("Settle() = %v", err)
			}
			rig.check(t, turns, client, tt.wantOutcome)
		})
	}
}

// A table is locked by another session while turns are finishing, as a maintenance statement
// would: with turns locked their events still reach the store and their ends wait for the
// lock; with events locked their events wait too.
func TestPostgresTableLockedMidTurn(t *testing.T) {
	for _, tt := range []struct {
		name        string
		table       string
		long        bool
		wantOutcome stream.Outcome
	}{
		{"turns, released within the end grace", "turns", false, stream.OutcomeOK},
		{"turns, held past the end grace", "turns", true, stream.OutcomeFailed},
		{"events, released within the end grace", "events", false, stream.OutcomeOK},
		{"events, held past the end grace", "events", true, stream.OutcomeFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dsn := postgresSchema(t)
			st := openPostgres(t, dsn)
			deadline, grace := 3*time.Second, 3*time.Second
			if tt.long {
				deadline, grace = time.Second, time.Second
			}
			rig := newOutageRig(t, st.sqlStore, deadline, grace, 3)
			turns, seen := rig.startTurns(t, 2)

			other, err := sql.Open(postgresDriver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			lock, err := other.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Rollback()
			if _, err := lock.ExecContext(t.Context(), "LOCK TABLE "+tt.table+" IN EXCLUSIVE MODE"); err != nil {
				t.Fatalf("lock the %s table: %v", tt.table, err)
			}
			close(rig.model.gate) // the turns end while the table is locked
			// A write to the table waits for the lock, in vain; readiness says so until one works.
			probe, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			if tt.table == "turns" {
				_, _, err = rig.svc.Start(probe, orchestrator.StartRequest{Principal: "bob", Message: "hi"})
			} else {
				err = st.AppendEvent(probe, "probe", stream.Record{ID: 1, Event: stream.ReplyDelta{Text: "x"}})
			}
			cancel()
			if !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("a write while %s is locked = %v, want %v", tt.table, err, orchestrator.ErrUnavailable)
			}
			if err := st.Ready(t.Context()); !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("Ready() while the table is locked = %v, want %v", err, orchestrator.ErrUnavailable)
			}
			var client [][]stream.Record
			if tt.long {
				client = collectAll(seen)
			} else {
				time.Sleep(2 * time.Second) // the lock, past two attempts at each end
			}
			if err := lock.Rollback(); err != nil {
				t.Fatalf("unlock: %v", err)
			}
			if !tt.long {
				client = collectAll(seen)
			}
			if err := rig.svc.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := st.RenewLease(t.Context(), time.Now().Add(time.Minute)); err != nil {
				t.Fatalf("RenewLease() = %v", err)
			}
			if err := rig.svc.Settle(t.Context()); err != nil {
				t.Fatalf("Settle() = %v", err)
			}
			rig.check(t, turns, client, tt.wantOutcome)
		})
	}
}

// SQLite's database is locked by another process while turns are finishing: for a while, then
// for longer than the turns' end grace.
func TestSQLiteLockedMidTurn(t *testing.T) {
	for _, tt := range []struct {
		name        string
		long        bool
		wantOutcome stream.Outcome
	}{
		{"released within the end grace", false, stream.OutcomeOK},
		{"held past the end grace", true, stream.OutcomeFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "switchboard.db")
			// Each write waits out the lock for its busy timeout, shortened to keep the test short.
			st, err := OpenSQLite(t.Context(), path, withBusyTimeout(300*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			deadline, grace := 2*time.Second, 2*time.Second
			if tt.long {
				deadline, grace = time.Second, time.Second
			}
			rig := newOutageRig(t, st.sqlStore, deadline, grace, 3)
			turns, seen := rig.startTurns(t, 2)

			other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			lock, err := other.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			if _, err := lock.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
				t.Fatalf("lock the database: %v", err)
			}
			unlock := func() {
				if _, err := lock.ExecContext(context.Background(), "ROLLBACK"); err != nil {
					t.Fatalf("unlock the database: %v", err)
				}
			}
			close(rig.model.gate) // the turns end while the database is locked
			// A write waits out the busy timeout and fails; readiness says so until one works.
			if err := st.AppendEvent(t.Context(), "probe", stream.Record{ID: 1, Event: stream.ReplyDelta{Text: "x"}}); !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("AppendEvent() while locked = %v, want %v", err, orchestrator.ErrUnavailable)
			}
			if err := st.Ready(t.Context()); !errors.Is(err, orchestrator.ErrUnavailable) {
				t.Errorf("Ready() while locked = %v, want %v", err, orchestrator.ErrUnavailable)
			}
			var client [][]stream.Record
			if tt.long {
				client = collectAll(seen)
				unlock()
				// A retry with the same Idempotency-Key gets the turn, unsettled yet, and its
				// stream ends as its client's did.
				again, existing, err := rig.svc.Start(t.Context(), orchestrator.StartRequest{
					Principal: "alice", Message: "how many points do I have?", IdempotencyKey: "key-a",
				})
				if err != nil || !existing || again.ID != turns[0].ID {
					t.Fatalf("Start() again with its key = %s, %t, %v; want turn %s", again.ID, existing, err, turns[0].ID)
				}
				replay, err := followAll(t.Context(), rig.hub, again.ID)
				if err != nil || len(replay) == 0 || replay[len(replay)-1].Event != (stream.TurnCompleted{TurnID: again.ID, Outcome: stream.OutcomeFailed}) {
					t.Errorf("stream of the retried turn = %v, %v; want it to end failed", replay, err)
				}
			} else {
				time.Sleep(time.Second) // the lock, past several busy timeouts
				unlock()
				client = collectAll(seen)
			}
			if err := rig.svc.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := st.RenewLease(t.Context(), time.Now().Add(time.Minute)); err != nil {
				t.Fatalf("RenewLease() = %v", err)
			}
			if err := rig.svc.Settle(t.Context()); err != nil {
				t.Fatalf("Settle() = %v", err)
			}
			rig.check(t, turns, client, tt.wantOutcome)
		})
	}
}

// withBusyTimeout sets SQLite's busy timeout.
func withBusyTimeout(d time.Duration) Option { return func(o *options) { o.busyTimeout = d } }
