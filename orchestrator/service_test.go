package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// fakeStore is a goroutine-safe in-memory Store that notes how episodes are read.
type fakeStore struct {
	finishErr    error // FinishTurn fails with it and stores nothing, when set
	mu           sync.Mutex
	turns        []TurnRecord // in creation order
	recentN      []int        // n of every RecentTurns call
	episodeReads int
}

var _ Store = (*fakeStore)(nil)

func (s *fakeStore) CreateTurn(_ context.Context, t TurnRecord) (TurnRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, old := range s.turns {
		if t.IdempotencyKey != "" && old.Principal == t.Principal && old.IdempotencyKey == t.IdempotencyKey {
			return old, true, nil
		}
	}
	s.turns = append(s.turns, t)
	return t, false, nil
}

func (s *fakeStore) FinishTurn(_ context.Context, t TurnRecord) error {
	if s.finishErr != nil {
		return s.finishErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, old := range s.turns {
		if old.ID == t.ID && old.Principal == t.Principal {
			s.turns[i] = t
			return nil
		}
	}
	return ErrNotFound
}

func (s *fakeStore) Turn(_ context.Context, p principal.Principal, id string) (TurnRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.turns {
		if t.ID == id && t.Principal == p {
			return t, nil
		}
	}
	return TurnRecord{}, ErrNotFound
}

func (s *fakeStore) Episode(_ context.Context, p principal.Principal, id string) (Episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.episodeReads++
	turns := s.episodeTurns(p, id)
	if len(turns) == 0 {
		return Episode{}, ErrNotFound
	}
	return Episode{ID: id, Principal: p, Turns: turns}, nil
}

func (s *fakeStore) RecentTurns(_ context.Context, p principal.Principal, id string, n int) ([]TurnRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recentN = append(s.recentN, n)
	turns := s.episodeTurns(p, id)
	if len(turns) == 0 {
		return nil, ErrNotFound
	}
	return turns[len(turns)-min(max(n, 0), len(turns)):], nil
}

// episodeTurns is p's turns in episode id; s.mu must be held.
func (s *fakeStore) episodeTurns(p principal.Principal, id string) []TurnRecord {
	var out []TurnRecord
	for _, t := range s.turns {
		if t.EpisodeID == id && t.Principal == p {
			out = append(out, t)
		}
	}
	return out
}

// humanTexts is what the user said in a conversation sent to the LLM, in order.
func humanTexts(msgs []llms.MessageContent) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		for _, p := range m.Parts {
			if tc, ok := p.(llms.TextContent); ok {
				out = append(out, tc.Text)
			}
		}
	}
	return out
}

// TestStartReadsOnlyTheHistoryWindow checks that a new turn of a long episode loads only the
// exchanges its LLM will see, and that they are the latest ones.
func TestStartReadsOnlyTheHistoryWindow(t *testing.T) {
	var questions []string
	for i := range 10 {
		questions = append(questions, fmt.Sprintf("question %d", i))
	}
	tests := []struct {
		name      string
		principal principal.Principal
		episodeID string
		opts      []Option
		wantN     int
		wantSaid  []string
	}{
		{"default window", "alice", "ep_long", nil, 6, append(slices.Clone(questions[4:]), "new question")},
		{"narrow window", "alice", "ep_long", []Option{WithHistory(2)}, 2, append(slices.Clone(questions[8:]), "new question")},
		{"new client-chosen episode", "alice", "ep_new", nil, 6, []string{"new question"}},
		// Episode ids are each principal's own: bob's ep_long is not alice's.
		{"another principal's episode id", "bob", "ep_long", nil, 6, []string{"new question"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &fakeStore{}
			for i, q := range questions {
				store.turns = append(store.turns, TurnRecord{
					ID: fmt.Sprintf("turn_%d", i), EpisodeID: "ep_long", Principal: "alice", Message: q,
					State: TurnCompleted, Outcome: stream.OutcomeOK, Reply: "answer to " + q, Created: time.Now(),
				})
			}
			model := &scriptedModel{}
			orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")}, tt.opts...)
			hub := stream.NewHub(stream.NewMemoryLogStore())
			defer hub.Close()
			svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("NewService() = %v", err)
			}
			if _, _, err := svc.Start(t.Context(), StartRequest{Principal: tt.principal, EpisodeID: tt.episodeID, Message: "new question"}); err != nil {
				t.Fatalf("Start() = %v", err)
			}
			if err := svc.Wait(t.Context()); err != nil {
				t.Fatalf("Wait() = %v", err)
			}
			store.mu.Lock()
			if diff := cmp.Diff([]int{tt.wantN}, store.recentN); diff != "" {
				t.Errorf("RecentTurns calls' n (-want +got):\n%s", diff)
			}
			if store.episodeReads != 0 {
				t.Errorf("Episode() calls = %d, want 0: Start must not load the whole episode", store.episodeReads)
			}
			store.mu.Unlock()
			calls := model.recorded()
			if len(calls) == 0 {
				t.Fatal("the LLM was never called")
			}
			if diff := cmp.Diff(tt.wantSaid, humanTexts(calls[0].msgs)); diff != "" {
				t.Errorf("user messages the LLM saw (-want +got):\n%s", diff)
			}
		})
	}
}

// A turn whose end the store refuses because a sweep already failed it (its process looked
// dead) closes its log as failed, after a plain-words error, not with its own outcome: live
// followers must end where a replay from the store ends.
func TestLateEndOfAnAbandonedTurn(t *testing.T) {
	store := &fakeStore{finishErr: fmt.Errorf("store: turn x: %w", ErrTurnFinished)}
	model := &scriptedModel{}
	orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(stream.NewMemoryLogStore())
	defer hub.Close()
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("NewService() = %v", err)
	}
	rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hello"})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	var recs []stream.Record
	for r, err := range hub.Follow(t.Context(), rec.ID, 0) {
		if err != nil {
			t.Fatalf("Follow() = %v", err)
		}
		recs = append(recs, r)
	}
	if len(recs) < 2 {
		t.Fatalf("Follow() = %d records, want at least an error and turn.completed", len(recs))
	}
	tail := []stream.Event{recs[len(recs)-2].Event, recs[len(recs)-1].Event}
	want := []stream.Event{
		stream.Error{Message: lateEndMessage, IsFinal: true},
		stream.TurnCompleted{TurnID: rec.ID, Outcome: stream.OutcomeFailed},
	}
	if diff := cmp.Diff(want, tail); diff != "" {
		t.Errorf("last two events (-want +got):\n%s", diff)
	}
}

// endStore is a fakeStore that is also the hub's log store and can store a turn's end with its
// log's last records in one call, as the SQL stores do.
type endStore struct {
	*fakeStore
	*stream.MemoryLogStore
	endErr   error // FinishTurnWithEvents fails with it and stores nothing, when set
	ends     int   // FinishTurnWithEvents calls
	finishes int   // FinishTurn calls
}

func (s *endStore) FinishTurn(ctx context.Context, t TurnRecord) error {
	s.mu.Lock()
	s.finishes++
	s.mu.Unlock()
	return s.fakeStore.FinishTurn(ctx, t)
}

func (s *endStore) FinishTurnWithEvents(ctx context.Context, t TurnRecord, recs []stream.Record) error {
	s.mu.Lock()
	s.ends++
	s.mu.Unlock()
	if s.endErr != nil {
		return s.endErr
	}
	if err := s.fakeStore.FinishTurn(ctx, t); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvents(ctx, t.ID, recs)
}

// A store that is also the hub's log store gets a turn's end and the log's last records in one
// call; when it refuses because a sweep failed the turn, the log is closed as failed after a
// plain-words error, without another attempt at the row.
func TestTurnEndsInOneCommit(t *testing.T) {
	for _, tt := range []struct {
		name        string
		endErr      error
		finishErr   error
		wantOutcome stream.Outcome
		wantEnds    int
		wantFinish  int
	}{
		{"one commit", nil, nil, stream.OutcomeOK, 1, 0},
		{"abandoned meanwhile", fmt.Errorf("store: %w", ErrTurnFinished), fmt.Errorf("store: %w", ErrTurnFinished), stream.OutcomeFailed, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := &endStore{fakeStore: &fakeStore{finishErr: tt.finishErr}, MemoryLogStore: stream.NewMemoryLogStore(), endErr: tt.endErr}
			orc := newTestOrchestrator(t, 3, &scriptedModel{}, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
			hub := stream.NewHub(store)
			defer hub.Close()
			svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatalf("NewService() = %v", err)
			}
			rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hello"})
			if err != nil {
				t.Fatalf("Start() = %v", err)
			}
			if err := svc.Wait(t.Context()); err != nil {
				t.Fatal(err)
			}
			// Replayed from the store: the whole log, ending as the stored turn does.
			recs, err := store.Events(t.Context(), rec.ID, 0)
			if err != nil || len(recs) == 0 {
				t.Fatalf("Events() = %v, %v", recs, err)
			}
			for i, r := range recs {
				if r.ID != uint64(i+1) {
					t.Fatalf("stored ids = %v..., want 1, 2, 3...", recs[:i+1])
				}
			}
			if end, ok := recs[len(recs)-1].Event.(stream.TurnCompleted); !ok || end.Outcome != tt.wantOutcome {
				t.Errorf("stored log ends on %#v, want turn.completed %s", recs[len(recs)-1].Event, tt.wantOutcome)
			}
			if store.ends != tt.wantEnds || store.finishes != tt.wantFinish {
				t.Errorf("FinishTurnWithEvents calls %d, FinishTurn calls %d; want %d, %d", store.ends, store.finishes, tt.wantEnds, tt.wantFinish)
			}
			if tt.endErr == nil {
				if got, err := store.Turn(t.Context(), "alice", rec.ID); err != nil || got.State != TurnCompleted {
					t.Errorf("stored turn = %s, %v; want completed", got.State, err)
				}
			}
		})
	}
}

func TestSameStore(t *testing.T) {
	type uncomparable struct{ _ []int }
	a, b := &fakeStore{}, &fakeStore{}
	for _, tt := range []struct {
		name string
		x, y any
		want bool
	}{
		{"one pointer", a, a, true},
		{"two pointers", a, b, false},
		{"other types", a, stream.NewMemoryLogStore(), false},
		{"uncomparable values", uncomparable{}, uncomparable{}, false}, // must not panic
		{"nil", nil, nil, false},
	} {
		if got := sameStore(tt.x, tt.y); got != tt.want {
			t.Errorf("%s: sameStore() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	a, b := newID("turn"), newID("turn")
	for _, id := range []string{a, b} {
		hexPart, ok := strings.CutPrefix(id, "turn_")
		if _, err := hex.DecodeString(hexPart); !ok || len(hexPart) != 24 || err != nil {
			t.Errorf("newID(turn) = %q, want turn_ and 24 hex digits", id)
		}
	}
	if a == b {
		t.Errorf("newID() = %q twice", a)
	}
}

// An id starts with the time it was made, in milliseconds, so that ids made later sort after
// earlier ones (a store's index takes new turns at its end).
func TestNewIDStartsWithItsTime(t *testing.T) {
	before := time.Now().UnixMilli()
	id := newID("ep")
	after := time.Now().UnixMilli()
	ms, err := strconv.ParseInt(strings.TrimPrefix(id, "ep_")[:12], 16, 64)
	if err != nil || ms < before || ms > after {
		t.Errorf("newID(ep) = %q: time %d (%v), want %d-%d", id, ms, err, before, after)
	}
}

// The request hash is stored with each turn and compared when an idempotency key comes back:
// it must stay the hash of the four fields joined by NUL, however it is computed.
func TestRequestHashIsStable(t *testing.T) {
	long := strings.Repeat("ü", 1000) // past the stack buffer
	for _, r := range []StartRequest{
		{},
		{EpisodeID: "ep_1", Message: "deals?", Locale: "en-GB", Location: "London"},
		{Message: long, Location: "x"},
	} {
		sum := sha256.Sum256([]byte(r.EpisodeID + "\x00" + r.Message + "\x00" + r.Locale + "\x00" + r.Location))
		if got, want := requestHash(r), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("requestHash(%.20v) = %s, want %s", r, got, want)
		}
	}
}
