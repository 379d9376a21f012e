package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// heldModel is an orchestrator model whose routing call blocks until the test releases it, so
// turns stay running for as long as a test needs, without sleeping.
type heldModel struct {
	scriptedModel
	gate    chan struct{}
	entered chan struct{} // one value per routing call that started
}

func newHeldModel() *heldModel {
	m := &heldModel{gate: make(chan struct{}), entered: make(chan struct{}, 1024)}
	m.route = func([]llms.MessageContent, llms.CallOptions) (*llms.ContentResponse, error) {
		m.entered <- struct{}{}
		<-m.gate
		return textResponse("done"), nil
	}
	return m
}

// countingStore is a fakeStore that counts running turns, as the SQL stores do.
type countingStore struct{ fakeStore }

func (s *countingStore) RunningTurns(_ context.Context, p principal.Principal) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.turns {
		if t.Principal == p && t.State == TurnRunning {
			n++
		}
	}
	return n, nil
}

func newLimitedService(t *testing.T, store Store, model llms.Model, limits TurnLimits) (*Service, *[]string) {
	t.Helper()
	orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(stream.NewMemoryLogStore())
	t.Cleanup(hub.Close)
	var mu sync.Mutex
	var limited []string
	svc, err := NewService(ServiceConfig{
		Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler), Limits: limits,
		OnLimited: func(_ principal.Principal, l string) { mu.Lock(); limited = append(limited, l); mu.Unlock() },
	})
	if err != nil {
		t.Fatalf("NewService() = %v", err)
	}
	return svc, &limited
}

func limitOf(err error) string {
	var le *LimitError
	if errors.As(err, &le) {
		return le.Limit
	}
	return ""
}

func TestRunningTurnsLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store Store
	}{
		{"counted in process", &fakeStore{}},
		{"counted by the store", &countingStore{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := newHeldModel()
			svc, limited := newLimitedService(t, tc.store, model, TurnLimits{Running: 2})
			t.Cleanup(func() {
				model.release()
				_ = svc.Wait(context.Background())
			})
			ctx := t.Context()
			for i := range 2 {
				if _, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: fmt.Sprint("q", i)}); err != nil {
					t.Fatalf("Start(alice #%d) = %v", i, err)
				}
			}
			_, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "one too many"})
			if !errors.Is(err, ErrRateLimited) || limitOf(err) != LimitTurnsRunning {
				t.Fatalf("Start(alice #3) = %v, want the turns_running limit", err)
			}
			var le *LimitError
			errors.As(err, &le)
			if le.RetryAfterSeconds() < 1 {
				t.Errorf("RetryAfterSeconds() = %d, want at least 1", le.RetryAfterSeconds())
			}
			if _, _, err := svc.Start(ctx, StartRequest{Principal: "bob", Message: "hello"}); err != nil {
				t.Fatalf("Start(bob) = %v: another principal must not be limited", err)
			}
			if got := *limited; len(got) != 1 || got[0] != LimitTurnsRunning {
				t.Errorf("OnLimited calls = %v, want [turns_running]", got)
			}
			model.release()
			if err := svc.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "after"}); err != nil {
				t.Errorf("Start(alice) after her turns ended = %v", err)
			}
		})
	}
}

// release lets every held routing call, present and future, return.
func (m *heldModel) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.gate:
	default:
		close(m.gate)
	}
}

// TestRunningLimitCountsOtherReplicas: a turn another replica runs (a running row this
// process did not start) counts against the principal's limit.
func TestRunningLimitCountsOtherReplicas(t *testing.T) {
	store := &countingStore{}
	store.turns = append(store.turns, TurnRecord{ID: "turn_elsewhere", EpisodeID: "ep", Principal: "alice", State: TurnRunning, Created: time.Now()})
	model := newHeldModel()
	svc, _ := newLimitedService(t, store, model, TurnLimits{Running: 1})
	t.Cleanup(func() { model.release(); _ = svc.Wait(context.Background()) })
	if _, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hi"}); limitOf(err) != LimitTurnsRunning {
		t.Errorf("Start() with a turn running elsewhere = %v, want the turns_running limit", err)
	}
}

func TestTurnsPerMinuteLimit(t *testing.T) {
	svc, limited := newLimitedService(t, &fakeStore{}, &scriptedModel{}, TurnLimits{PerMinute: 30, Burst: 2})
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	svc.limits.now = func() time.Time { return now }
	ctx := t.Context()
	start := func(p principal.Principal, key string) error {
		_, _, err := svc.Start(ctx, StartRequest{Principal: p, Message: "hi", IdempotencyKey: key})
		return err
	}
	// An idempotent replay starts nothing, so its token is given back.
	for _, key := range []string{"k0", "k0", "k0", "k1"} {
		if err := start("alice", key); err != nil {
			t.Fatalf("start %s within the burst = %v", key, err)
		}
	}
	err := start("alice", "k2")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitTurnsPerMinute {
		t.Fatalf("start past the burst = %v, want the turns_per_minute limit", err)
	}
	if le.RetryAfter != 2*time.Second { // 30 a minute: one token every 2 s
		t.Errorf("RetryAfter = %v, want 2s", le.RetryAfter)
	}
	if err := start("bob", "k0"); err != nil {
		t.Errorf("bob's start = %v: his bucket is his own", err)
	}
	now = now.Add(2 * time.Second)
	if err := start("alice", "k3"); err != nil {
		t.Errorf("start after a token refilled = %v", err)
	}
	if err := start("alice", "k4"); limitOf(err) != LimitTurnsPerMinute {
		t.Errorf("second start after one refill = %v, want limited", err)
	}
	if got := *limited; len(got) != 2 {
		t.Errorf("OnLimited calls = %v, want 2", got)
	}
	_ = svc.Wait(ctx)
}

// TestLimiterForgetsIdlePrincipals: the limiter's memory is bounded by principals that hold
// something, not by every principal ever seen.
func TestLimiterForgetsIdlePrincipals(t *testing.T) {
	l := newTurnLimiter(TurnLimits{Running: 2, PerMinute: 60, Burst: 1}, &fakeStore{})
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	held, err := l.admit(t.Context(), "holder")
	if err != nil {
		t.Fatal(err)
	}
	held.started() // holder keeps a turn running throughout
	for i := range 3 * minSweep {
		a, err := l.admit(t.Context(), principal.Principal(fmt.Sprint("user", i)))
		if err != nil {
			t.Fatalf("admit(user%d) = %v", i, err)
		}
		a.started()
		l.finished(principal.Principal(fmt.Sprint("user", i)))
		now = now.Add(time.Second) // refills each bucket after a second
	}
	l.mu.Lock()
	n := len(l.byP)
	_, kept := l.byP["holder"]
	l.mu.Unlock()
	if n > 2*minSweep {
		t.Errorf("limiter holds %d principals after %d came and went, want at most %d", n, 3*minSweep, 2*minSweep)
	}
	if !kept {
		t.Error("the principal with a running turn was forgotten")
	}
}

func TestStartRefusesUnstorableText(t *testing.T) {
	svc, _ := newLimitedService(t, &fakeStore{}, &scriptedModel{}, TurnLimits{})
	for _, req := range []StartRequest{
		{Message: "hi\x00there"},
		{Message: "hi", EpisodeID: "ep\x00"},
		{Message: "hi", Locale: "en\x00"},
		{Message: "hi", Location: "\xff"},
		{Message: "hi", IdempotencyKey: "k\x00"},
		{Message: "bad \xc3\x28 utf-8"},
	} {
		req.Principal = "alice"
		if _, _, err := svc.Start(t.Context(), req); !errors.Is(err, ErrInvalidText) {
			t.Errorf("Start(%+q) = %v, want ErrInvalidText", req.Message+"|"+req.EpisodeID+"|"+req.Locale+"|"+req.Location+"|"+req.IdempotencyKey, err)
		}
	}
	if _, err := svc.Turn(t.Context(), "alice", "turn_\x00"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Turn(NUL id) = %v, want ErrNotFound", err)
	}
	if _, err := svc.Episode(t.Context(), "alice", "\xff"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Episode(invalid UTF-8 id) = %v, want ErrNotFound", err)
	}
}

// BenchmarkTurnAdmission measures what the limits add to a turn start in process: a token
// from the principal's bucket and the running count, counted in the process.
func BenchmarkTurnAdmission(b *testing.B) {
	l := newTurnLimiter(TurnLimits{Running: 8, PerMinute: 1 << 30, Burst: 1 << 30}, &fakeStore{})
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		a, err := l.admit(ctx, "alice")
		if err != nil {
			b.Fatal(err)
		}
		a.started()
		l.finished("alice")
	}
}

// Every protocol starts turns through Start, so Start is where a request is refused; the
// handlers only word the refusal their own way.
func TestStartRefusesImpossibleRequests(t *testing.T) {
	svc, _ := newLimitedService(t, &fakeStore{}, &scriptedModel{}, TurnLimits{})
	long := strings.Repeat("é", MaxMessageRunes+1)
	for _, tc := range []struct {
		req   StartRequest
		field string
	}{
		{StartRequest{Message: ""}, "message"},
		{StartRequest{Message: " \n\t "}, "message"},
		{StartRequest{Message: long}, "message"},
		{StartRequest{Message: "hi", EpisodeID: strings.Repeat("e", 129)}, "episode_id"},
		{StartRequest{Message: "hi", Locale: strings.Repeat("x", 36)}, "locale"},
		{StartRequest{Message: "hi", Location: strings.Repeat("x", 201)}, "location"},
	} {
		tc.req.Principal = "alice"
		_, _, err := svc.Start(t.Context(), tc.req)
		var input *InputError
		if !errors.As(err, &input) || input.Field != tc.field {
			t.Errorf("Start(%d-byte message, field %s) = %v, want an InputError on %s", len(tc.req.Message), tc.field, err, tc.field)
			continue
		}
		if strings.Contains(input.Error(), "xxx") || strings.Contains(input.Error(), "eee") {
			t.Errorf("InputError %q echoes the input", input.Error())
		}
	}
	// Exactly at the bound is fine: 4000 two-byte characters are 8000 bytes but 4000 runes.
	if err := CheckMessage(strings.Repeat("é", MaxMessageRunes)); err != nil {
		t.Errorf("CheckMessage(%d runes) = %v, want nil", MaxMessageRunes, err)
	}
}

// A principal at its running limit whose rate bucket is dry too is told the running limit:
// that is the one to wait on. Concurrent starts take their tokens before the running check
// refuses (and refunds) them, so a burst at the running limit used to read as too many starts.
func TestRunningLimitNamedWhenBothAreReached(t *testing.T) {
	model := newHeldModel()
	svc, _ := newLimitedService(t, &fakeStore{}, model, TurnLimits{Running: 1, PerMinute: 60, Burst: 1})
	t.Cleanup(func() {
		model.release()
		_ = svc.Wait(context.Background())
	})
	if _, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "first"}); err != nil {
		t.Fatalf("Start(first) = %v", err)
	}
	_, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "second"})
	if got := limitOf(err); got != LimitTurnsRunning {
		t.Errorf("Start(second) refused for %q (%v), want %q", got, err, LimitTurnsRunning)
	}
}

// keyedStore is a fakeStore that finds turns by their idempotency key.
type keyedStore struct{ fakeStore }

var _ KeyedTurns = (*keyedStore)(nil)

func (s *keyedStore) TurnByKey(_ context.Context, p principal.Principal, key string) (TurnRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.turns {
		if t.Principal == p && t.IdempotencyKey == key {
			return t, nil
		}
	}
	return TurnRecord{}, ErrNotFound
}

// A retry of a turn already started is answered with that turn while its user is over a
// limit, since it starts nothing; a store that cannot look turns up by key makes it wait.
func TestReplayOverLimit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		store      Store
		wantReplay bool
	}{
		{"store finds turns by key", &keyedStore{}, true},
		{"store without the lookup", &fakeStore{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := newHeldModel()
			svc, limited := newLimitedService(t, tc.store, model, TurnLimits{Running: 1})
			t.Cleanup(func() { model.release(); _ = svc.Wait(context.Background()) })
			ctx := t.Context()
			first, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "points?", IdempotencyKey: "k1"})
			if err != nil {
				t.Fatalf("Start(k1) = %v", err)
			}
			got, existing, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "points?", IdempotencyKey: "k1"})
			if !tc.wantReplay {
				if limitOf(err) != LimitTurnsRunning {
					t.Fatalf("replay of k1 = %v, want the turns_running limit", err)
				}
				return
			}
			if err != nil || !existing || got.ID != first.ID {
				t.Fatalf("replay of k1 = %s, existing %v, %v; want %s, existing", got.ID, existing, err, first.ID)
			}
			if _, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "deals?", IdempotencyKey: "k1"}); !errors.Is(err, ErrConflict) {
				t.Errorf("k1 with another message = %v, want ErrConflict", err)
			}
			if _, _, err := svc.Start(ctx, StartRequest{Principal: "alice", Message: "deals?", IdempotencyKey: "k2"}); limitOf(err) != LimitTurnsRunning {
				t.Errorf("a new key = %v, want the turns_running limit", err)
			}
			if got := *limited; len(got) != 1 {
				t.Errorf("OnLimited calls = %v, want one, for the new key alone", got)
			}
		})
	}
}
