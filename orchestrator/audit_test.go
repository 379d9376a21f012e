package orchestrator

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// fakeAuditor notes what it is told, one line a call; it is goroutine-safe.
type fakeAuditor struct {
	mu    sync.Mutex
	calls []string
}

var _ Auditor = (*fakeAuditor)(nil)

func (f *fakeAuditor) note(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeAuditor) TurnAccepted(_ context.Context, rec TurnRecord) {
	f.note("accepted %s %s key=%s", rec.Principal, rec.ID, rec.IdempotencyKey)
}

func (f *fakeAuditor) TurnEnded(_ context.Context, rec TurnRecord) {
	var agents []string
	if rec.Decision != nil {
		for _, a := range rec.Decision.Agents {
			agents = append(agents, a.Agent+":"+string(a.Outcome))
		}
	}
	f.note("ended %s %s %s %v", rec.Principal, rec.ID, rec.Outcome, agents)
}

func (f *fakeAuditor) TurnCancelled(_ context.Context, p principal.Principal, turnID string) {
	f.note("cancelled %s %s", p, turnID)
}

func (f *fakeAuditor) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// The service tells its auditor of each turn it accepts (not of a repeated idempotency key)
// and of how each ended, routing included.
func TestServiceAuditsTurns(t *testing.T) {
	aud := &fakeAuditor{}
	model := &scriptedModel{route: callTools("ask_shop", "ask_rewards"), compose: composeAll}
	orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: &fakeStore{}, Hub: hub, Logger: slog.New(slog.DiscardHandler), Audit: aud})
	if err != nil {
		t.Fatal(err)
	}
	req := StartRequest{Principal: "alice", Message: "deals and points?", IdempotencyKey: "k1"}
	rec, _, err := svc.Start(t.Context(), req)
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, existing, err := svc.Start(t.Context(), req); err != nil || !existing {
		t.Fatalf("Start() again = %v, existing %v; want the first turn", err, existing)
	}
	want := []string{
		"accepted alice " + rec.ID + " key=k1",
		"ended alice " + rec.ID + " ok [shop:ok rewards:ok]",
	}
	if diff := cmp.Diff(want, aud.got()); diff != "" {
		t.Errorf("auditor calls (-want +got):\n%s", diff)
	}
}

// A turn whose stored end a sweep overruled is audited with the outcome that stands.
func TestServiceAuditsTheStoredOutcome(t *testing.T) {
	aud := &fakeAuditor{}
	orc := newTestOrchestrator(t, 3, &scriptedModel{}, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	store := &fakeStore{finishErr: fmt.Errorf("store: turn x: %w", ErrTurnFinished)}
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler), Audit: aud})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hello"})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := aud.got(), "ended alice "+rec.ID+" failed []"; len(got) != 2 || got[1] != want {
		t.Errorf("auditor calls = %q, want the end as %q", got, want)
	}
}

// Only the turn's own principal's cancel is audited: another principal's is refused unseen.
func TestServiceAuditsCancellation(t *testing.T) {
	aud := &fakeAuditor{}
	started := make(chan struct{})
	hang := ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		close(started)
		<-ctx.Done()
		return ask.Answer{}, ctx.Err()
	})
	model := &scriptedModel{route: callTools("ask_shop"), compose: composeAll}
	orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": hang, "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: &fakeStore{}, Hub: hub, Logger: slog.New(slog.DiscardHandler), Audit: aud})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "deals?"})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	<-started
	if err := svc.Cancel(t.Context(), "bob", rec.ID); err == nil {
		t.Fatal("bob's Cancel() = nil, want not found")
	}
	if err := svc.Cancel(t.Context(), "alice", rec.ID); err != nil {
		t.Fatalf("Cancel() = %v", err)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"accepted alice " + rec.ID + " key=",
		"cancelled alice " + rec.ID,
		"ended alice " + rec.ID + " cancelled [shop:cancelled]",
	}
	if diff := cmp.Diff(want, aud.got()); diff != "" {
		t.Errorf("auditor calls (-want +got):\n%s", diff)
	}
}
