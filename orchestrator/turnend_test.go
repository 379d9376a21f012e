package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// outageStore is a Store, EndStore and log store whose writes all fail while it is down, as a
// database's do during an outage or behind a lock held elsewhere. Reads keep working, so that
// tests can look at what it holds.
type outageStore struct {
	*fakeStore
	*stream.MemoryLogStore
	mu   sync.Mutex
	down bool
	// lostAcks makes that many FinishTurnWithEvents calls commit and still fail, as a call
	// does whose connection is cut just after the commit.
	lostAcks int
}

var errDatabaseDown = fmt.Errorf("%w: connection refused", ErrUnavailable)

func newOutageStore() *outageStore {
	return &outageStore{fakeStore: &fakeStore{}, MemoryLogStore: stream.NewMemoryLogStore()}
}

func (s *outageStore) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *outageStore) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return errDatabaseDown
	}
	return nil
}

// FinishTurn changes only a running turn, as the SQL stores do.
func (s *outageStore) FinishTurn(ctx context.Context, t TurnRecord) error {
	if err := s.check(); err != nil {
		return err
	}
	got, err := s.fakeStore.Turn(ctx, t.Principal, t.ID)
	if err != nil {
		return err
	}
	if got.State != TurnRunning {
		return fmt.Errorf("turn %s: %w", t.ID, ErrTurnFinished)
	}
	return s.fakeStore.FinishTurn(ctx, t)
}

func (s *outageStore) FinishTurnWithEvents(ctx context.Context, t TurnRecord, recs []stream.Record) error {
	if err := s.FinishTurn(ctx, t); err != nil {
		return err
	}
	if err := s.MemoryLogStore.AppendEvents(ctx, t.ID, recs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lostAcks > 0 {
		s.lostAcks--
		return errDatabaseDown
	}
	return nil
}

func (s *outageStore) AppendEvent(ctx context.Context, turnID string, rec stream.Record) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvent(ctx, turnID, rec)
}

func (s *outageStore) AppendEvents(ctx context.Context, turnID string, recs []stream.Record) error {
	if err := s.check(); err != nil {
		return err
	}
	return s.MemoryLogStore.AppendEvents(ctx, turnID, recs)
}

// The store goes down while a turn runs and stays down past the turn's end. An outage within
// the turn's deadline and end grace costs the client only a wait: its end and every event are
// stored, and it sees the outcome stored. A longer one ends the turn failed, in plain words,
// and the next Settle after the store is back stores it so, with every event the client saw:
// no turn stays running, and the stored outcome never contradicts what the client saw.
func TestTurnEndSurvivesStoreOutage(t *testing.T) {
	tests := []struct {
		name       string
		oneCommit  bool
		outage     time.Duration
		wantEnd    []stream.Event // the last events the client sees
		wantSettle bool           // the end is left to Settle
	}{
		{
			name: "short outage, one commit", oneCommit: true, outage: 5 * time.Second,
			wantEnd: []stream.Event{stream.ReplyCompleted{Text: "Here are your points."}, stream.TurnCompleted{Outcome: stream.OutcomeOK}},
		},
		{
			name: "short outage, two steps", outage: 5 * time.Second,
			wantEnd: []stream.Event{stream.ReplyCompleted{Text: "Here are your points."}, stream.TurnCompleted{Outcome: stream.OutcomeOK}},
		},
		{
			name: "outage past the grace, one commit", oneCommit: true, outage: 5 * time.Minute, wantSettle: true,
			wantEnd: []stream.Event{stream.Error{Message: unsavedMessage, IsFinal: true}, stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
		},
		{
			name: "outage past the grace, two steps", outage: 5 * time.Minute, wantSettle: true,
			wantEnd: []stream.Event{stream.Error{Message: unsavedMessage, IsFinal: true}, stream.TurnCompleted{Outcome: stream.OutcomeFailed}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db := newOutageStore()
				var store Store = db
				if !tt.oneCommit {
					store = outageRows{db: db} // the turn's end takes two commits
				}
				entered, release := make(chan struct{}), make(chan struct{})
				model := &scriptedModel{route: func([]llms.MessageContent, llms.CallOptions) (*llms.ContentResponse, error) {
					close(entered)
					<-release
					return textResponse("Here are your points."), nil
				}}
				orc := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
				hub := stream.NewHub(db)
				defer hub.Close()
				svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: store, Hub: hub,
					Deadline: 20 * time.Second, EndGrace: 20 * time.Second, Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					t.Fatalf("NewService() = %v", err)
				}
				defer svc.Close() // the goroutine kept for the next turn must end inside the bubble
				rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "my points?"})
				if err != nil {
					t.Fatalf("Start() = %v", err)
				}
				seen := make(chan []stream.Record, 1)
				go func() {
					var recs []stream.Record
					for r, err := range hub.Follow(context.Background(), rec.ID, 0) {
						if err != nil {
							break
						}
						recs = append(recs, r)
					}
					seen <- recs
				}()
				<-entered
				db.setDown(true) // mid-turn
				close(release)
				time.Sleep(tt.outage)
				synctest.Wait()

				if tt.wantSettle {
					got, _ := db.Turn(t.Context(), "alice", rec.ID)
					if got.State != TurnRunning {
						t.Fatalf("stored state during the outage = %s, want still running", got.State)
					}
					if err := svc.Cancel(t.Context(), "alice", rec.ID); !errors.Is(err, ErrTurnFinished) {
						t.Errorf("Cancel() by its owner = %v, want %v", err, ErrTurnFinished)
					}
					if err := svc.Settle(t.Context()); !errors.Is(err, ErrUnavailable) {
						t.Errorf("Settle() while down = %v, want %v", err, ErrUnavailable)
					}
				}
				db.setDown(false)
				if err := svc.Wait(t.Context()); err != nil {
					t.Fatal(err)
				}
				if err := svc.Settle(t.Context()); err != nil {
					t.Fatalf("Settle() once the store is back = %v", err)
				}
				if n := svc.Unsaved(); n != 0 {
					t.Errorf("Unsaved() = %d after Settle, want 0", n)
				}

				client := <-seen
				if len(client) < 2 {
					t.Fatalf("client saw %v, want a whole turn", client)
				}
				tail := []stream.Event{client[len(client)-2].Event, client[len(client)-1].Event}
				tt.wantEnd[1] = stream.TurnCompleted{TurnID: rec.ID, Outcome: tt.wantEnd[1].(stream.TurnCompleted).Outcome}
				if diff := cmp.Diff(tt.wantEnd, tail); diff != "" {
					t.Errorf("the end the client saw (-want +got):\n%s", diff)
				}
				got, err := db.Turn(t.Context(), "alice", rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != TurnCompleted || got.Outcome != tail[1].(stream.TurnCompleted).Outcome {
					t.Errorf("stored turn = %s %s, want completed %s as the client saw", got.State, got.Outcome, tail[1].(stream.TurnCompleted).Outcome)
				}
				storedLog, err := db.Events(t.Context(), rec.ID, 0)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(client, storedLog); diff != "" {
					t.Errorf("stored log against what the client saw (-client +stored):\n%s", diff)
				}
			})
		})
	}
}

// outageRows is an outageStore's rows as a plain Store, without FinishTurnWithEvents.
type outageRows struct{ db *outageStore }

func (s outageRows) CreateTurn(ctx context.Context, t TurnRecord) (TurnRecord, bool, error) {
	return s.db.CreateTurn(ctx, t)
}
func (s outageRows) FinishTurn(ctx context.Context, t TurnRecord) error {
	return s.db.FinishTurn(ctx, t)
}
func (s outageRows) Turn(ctx context.Context, p principal.Principal, id string) (TurnRecord, error) {
	return s.db.Turn(ctx, p, id)
}
func (s outageRows) Episode(ctx context.Context, p principal.Principal, id string) (Episode, error) {
	return s.db.Episode(ctx, p, id)
}
func (s outageRows) RecentTurns(ctx context.Context, p principal.Principal, id string, n int) ([]TurnRecord, error) {
	return s.db.RecentTurns(ctx, p, id, n)
}

// A turn's end whose commit succeeded but whose answer was lost is the turn's own stored end,
// not a sweep's: the retry that finds the turn finished shows the outcome stored.
func TestTurnEndCommittedButUnacknowledged(t *testing.T) {
	db := newOutageStore()
	db.lostAcks = 1
	orc := newTestOrchestrator(t, 3, &scriptedModel{}, map[string]ask.Agent{"shop": answer("a"), "rewards": answer("b"), "support": answer("c")})
	hub := stream.NewHub(db)
	defer hub.Close()
	svc, err := NewService(ServiceConfig{Orchestrator: orc, Store: db, Hub: hub, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("NewService() = %v", err)
	}
	rec, _, err := svc.Start(t.Context(), StartRequest{Principal: "alice", Message: "hello"})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	var client []stream.Record
	for r, err := range hub.Follow(t.Context(), rec.ID, 0) {
		if err != nil {
			t.Fatalf("Follow() = %v", err)
		}
		client = append(client, r)
	}
	if err := svc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if end := client[len(client)-1].Event; end != (stream.TurnCompleted{TurnID: rec.ID, Outcome: stream.OutcomeOK}) {
		t.Errorf("the client's stream ended on %#v, want turn.completed ok", end)
	}
	storedLog, err := db.Events(t.Context(), rec.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(client, storedLog); diff != "" {
		t.Errorf("stored log against what the client saw (-client +stored):\n%s", diff)
	}
}
