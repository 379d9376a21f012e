package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// testStore is what every implementation in this package provides.
type testStore interface {
	orchestrator.Store
	stream.LogStore
	Instance() string
	RenewLease(ctx context.Context, until time.Time) error
	ReleaseLease(ctx context.Context) error
	AbandonOwned(ctx context.Context) (int, error)
	AbandonOrphans(ctx context.Context, now, startedBefore time.Time) (int, error)
}

const (
	alice principal.Principal = "alice"
	bob   principal.Principal = "bob"
)

// created is deliberately not on a microsecond boundary and not in UTC: stores keep UTC
// microseconds, and the suite checks that every one does.
var created = time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))

func turnRec(p principal.Principal, id, episode, key string) orchestrator.TurnRecord {
	return orchestrator.TurnRecord{
		ID: id, EpisodeID: episode, Principal: p, Message: "message of " + id,
		Locale: "en-GB", Location: "51.5,-0.1", IdempotencyKey: key, RequestHash: "hash-" + id,
		State: orchestrator.TurnRunning, Created: created,
	}
}

// stored is rec as a store gives it back.
func stored(rec orchestrator.TurnRecord) orchestrator.TurnRecord {
	rec.Created = rec.Created.UTC().Truncate(time.Microsecond)
	rec.Completed = rec.Completed.UTC().Truncate(time.Microsecond)
	return rec
}

func finished(rec orchestrator.TurnRecord) orchestrator.TurnRecord {
	rec.State = orchestrator.TurnCompleted
	rec.Outcome = stream.OutcomeDegraded
	rec.Reply = "Here are your offers; points are unavailable right now."
	rec.Completed = created.Add(2*time.Second + 987654321)
	rec.Decision = &orchestrator.Decision{
		Invoked: []string{"shop", "rewards"}, IntentCount: 3, Cap: 2, CapBehaviour: orchestrator.CapOver,
		Dropped: []string{"ask_travel"},
		Agents: []orchestrator.AgentOutcome{
			{Agent: "shop", Outcome: "ok", Started: created.Add(time.Millisecond + 7), Latency: 1500 * time.Millisecond, Tools: []string{"search_offers"}},
			{Agent: "rewards", Outcome: "timeout", Started: created.Add(time.Millisecond + 9), Latency: 8 * time.Second},
		},
	}
	return rec
}

func mustCreate(t *testing.T, s testStore, rec orchestrator.TurnRecord) orchestrator.TurnRecord {
	t.Helper()
	got, existing, err := s.CreateTurn(t.Context(), rec)
	if err != nil || existing {
		t.Fatalf("CreateTurn(%s) = existing %v, %v; want a new turn", rec.ID, existing, err)
	}
	return got
}

// runStoreSuite checks the contract of orchestrator.Store and stream.LogStore that every store
// in this package shares, with Memory as the reference. open returns an empty store and
// registers its cleanup.
func runStoreSuite(t *testing.T, open func(t *testing.T) testStore) {
	t.Run("CreateFinishGet", func(t *testing.T) { testCreateFinishGet(t, open(t)) })
	t.Run("PrincipalScoping", func(t *testing.T) { testPrincipalScoping(t, open(t)) })
	t.Run("EpisodeIDsPerPrincipal", func(t *testing.T) {
		s := open(t)
		testEpisodeIDsPerPrincipal(t, s, s)
	})
	t.Run("Idempotency", func(t *testing.T) { testIdempotency(t, open(t)) })
	t.Run("TurnByKey", func(t *testing.T) { testTurnByKey(t, open(t)) })
	t.Run("ConcurrentDuplicates", func(t *testing.T) {
		s := open(t)
		testConcurrentDuplicates(t, s, s)
	})
	t.Run("EpisodeOrder", func(t *testing.T) { testEpisodeOrder(t, open(t)) })
	t.Run("RecentTurns", func(t *testing.T) { testRecentTurns(t, open(t)) })
	t.Run("Events", func(t *testing.T) { testEvents(t, open(t)) })
	t.Run("ConcurrentAppends", func(t *testing.T) { testConcurrentAppends(t, open(t)) })
	t.Run("AbandonStale", func(t *testing.T) { testAbandonStale(t, open(t)) })
	t.Run("LateFinish", func(t *testing.T) { testLateFinish(t, open(t)) })
	t.Run("OwnTurns", func(t *testing.T) { testOwnTurns(t, open(t)) })
	t.Run("FinishWithEvents", func(t *testing.T) { testFinishWithEvents(t, open(t)) })
	t.Run("ConcurrentAbandon", func(t *testing.T) {
		s := open(t)
		testConcurrentAbandon(t, s, s)
	})
}

// runSharedSuite checks two handles on one database, as two replicas would hold them.
func runSharedSuite(t *testing.T, openPair func(t *testing.T) (testStore, testStore)) {
	t.Run("ConcurrentDuplicates", func(t *testing.T) {
		a, b := openPair(t)
		testConcurrentDuplicates(t, a, b)
	})
	t.Run("ConcurrentAbandon", func(t *testing.T) {
		a, b := openPair(t)
		testConcurrentAbandon(t, a, b)
	})
	t.Run("Leases", func(t *testing.T) {
		a, b := openPair(t)
		testLeases(t, a, b)
	})
	t.Run("EpisodeIDsPerPrincipal", func(t *testing.T) {
		a, b := openPair(t)
		testEpisodeIDsPerPrincipal(t, a, b)
	})
	t.Run("ReplayOnOtherReplica", func(t *testing.T) {
		a, b := openPair(t)
		ctx := t.Context()
		want := stored(finished(turnRec(alice, "t1", "e1", "k1")))
		mustCreate(t, a, turnRec(alice, "t1", "e1", "k1"))
		if err := a.FinishTurn(ctx, finished(turnRec(alice, "t1", "e1", "k1"))); err != nil {
			t.Fatalf("FinishTurn() = %v", err)
		}
		recs := sampleRecords()
		for _, r := range recs {
			if err := a.AppendEvent(ctx, "t1", r); err != nil {
				t.Fatalf("AppendEvent(%d) = %v", r.ID, err)
			}
		}
		got, err := b.Events(ctx, "t1", 2)
		if err != nil {
			t.Fatalf("Events() on the other replica = %v", err)
		}
		if diff := cmp.Diff(recs[2:], got); diff != "" {
			t.Errorf("Events() on the other replica mismatch (-want +got):\n%s", diff)
		}
		gotTurn, err := b.Turn(ctx, alice, "t1")
		if err != nil {
			t.Fatalf("Turn() on the other replica = %v", err)
		}
		if diff := cmp.Diff(want, gotTurn); diff != "" {
			t.Errorf("Turn() on the other replica mismatch (-want +got):\n%s", diff)
		}
	})
}

func testCreateFinishGet(t *testing.T, s testStore) {
	ctx := t.Context()
	rec := turnRec(alice, "t1", "e1", "k1")
	got, existing, err := s.CreateTurn(ctx, rec)
	if err != nil || existing {
		t.Fatalf("CreateTurn() = existing %v, %v; want new, nil", existing, err)
	}
	if diff := cmp.Diff(stored(rec), got); diff != "" {
		t.Errorf("CreateTurn() stored mismatch (-want +got):\n%s", diff)
	}
	if got, err := s.Turn(ctx, alice, "t1"); err != nil {
		t.Errorf("Turn() = %v", err)
	} else if diff := cmp.Diff(stored(rec), got); diff != "" {
		t.Errorf("Turn() before finish mismatch (-want +got):\n%s", diff)
	}

	// FinishTurn writes the end of the turn only: the other fields it is given are ignored.
	end := finished(rec)
	end.Message, end.EpisodeID, end.Created, end.IdempotencyKey = "changed", "other", time.Time{}, "other"
	if err := s.FinishTurn(ctx, end); err != nil {
		t.Fatalf("FinishTurn() = %v", err)
	}
	want := stored(finished(rec))
	got, err = s.Turn(ctx, alice, "t1")
	if err != nil {
		t.Fatalf("Turn() = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Turn() after finish mismatch (-want +got):\n%s", diff)
	}
	if got.Decision != nil {
		got.Decision.Invoked[0] = "mutated" // callers must not be able to change the store
	}
	ep, err := s.Episode(ctx, alice, "e1")
	if err != nil {
		t.Fatalf("Episode() = %v", err)
	}
	wantEp := orchestrator.Episode{ID: "e1", Principal: alice, Turns: []orchestrator.TurnRecord{want}}
	if diff := cmp.Diff(wantEp, ep); diff != "" {
		t.Errorf("Episode() mismatch (-want +got):\n%s", diff)
	}
}

func testPrincipalScoping(t *testing.T, s testStore) {
	ctx := t.Context()
	mustCreate(t, s, turnRec(alice, "t1", "e1", "k1"))
	tests := []struct {
		name string
		call func() error
	}{
		{"Turn of another principal", func() error { _, err := s.Turn(ctx, bob, "t1"); return err }},
		{"Turn unknown", func() error { _, err := s.Turn(ctx, alice, "nope"); return err }},
		{"Episode of another principal", func() error { _, err := s.Episode(ctx, bob, "e1"); return err }},
		{"Episode unknown", func() error { _, err := s.Episode(ctx, alice, "nope"); return err }},
		{"Episode named by a turn id", func() error { _, err := s.Episode(ctx, alice, "t1"); return err }},
		{"RecentTurns of another principal", func() error { _, err := s.RecentTurns(ctx, bob, "e1", 6); return err }},
		{"RecentTurns of another principal, none asked", func() error { _, err := s.RecentTurns(ctx, bob, "e1", 0); return err }},
		{"RecentTurns unknown", func() error { _, err := s.RecentTurns(ctx, alice, "nope", 6); return err }},
		{"FinishTurn of another principal", func() error { return s.FinishTurn(ctx, finished(turnRec(bob, "t1", "e1", ""))) }},
		{"FinishTurn unknown", func() error { return s.FinishTurn(ctx, finished(turnRec(alice, "nope", "e1", ""))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, orchestrator.ErrNotFound) {
				t.Errorf("error = %v, want %v", err, orchestrator.ErrNotFound)
			}
		})
	}
	// None of the refused calls changed anything.
	got, err := s.Turn(ctx, alice, "t1")
	if err != nil {
		t.Fatalf("Turn() = %v", err)
	}
	if diff := cmp.Diff(stored(turnRec(alice, "t1", "e1", "k1")), got); diff != "" {
		t.Errorf("Turn() after refused calls mismatch (-want +got):\n%s", diff)
	}
	if ep, err := s.Episode(ctx, alice, "e1"); err != nil || len(ep.Turns) != 1 {
		t.Errorf("Episode(alice, e1) = %d turns, %v; want 1, nil", len(ep.Turns), err)
	}
}

// testEpisodeIDsPerPrincipal checks that an episode id is each principal's own: whoever takes
// an id first, its other users still get conversations of their own under it, and nothing one
// of them does under the id shows in another's. a and b are one store, or two handles on one
// database.
func testEpisodeIDsPerPrincipal(t *testing.T, a, b testStore) {
	ctx := t.Context()
	// bob takes the id first, on one replica; alice then uses it on the other, and both go on
	// alternately. The same idempotency key, too, is each principal's own.
	var want [2][]orchestrator.TurnRecord // alice's, bob's
	for i := range 3 {
		want[1] = append(want[1], mustCreate(t, a, turnRec(bob, fmt.Sprintf("bob%d", i), "shared", fmt.Sprintf("k%d", i))))
		want[0] = append(want[0], mustCreate(t, b, turnRec(alice, fmt.Sprintf("alice%d", i), "shared", fmt.Sprintf("k%d", i))))
	}
	end := finished(want[0][1])
	if err := a.FinishTurn(ctx, end); err != nil {
		t.Fatalf("FinishTurn(alice's turn) = %v", err)
	}
	want[0][1] = stored(end)
	for i, p := range []principal.Principal{alice, bob} {
		for _, s := range []testStore{a, b} {
			ep, err := s.Episode(ctx, p, "shared")
			if err != nil {
				t.Fatalf("Episode(%s, shared) = %v", p, err)
			}
			if diff := cmp.Diff(orchestrator.Episode{ID: "shared", Principal: p, Turns: want[i]}, ep); diff != "" {
				t.Errorf("Episode(%s, shared) mismatch (-want +got):\n%s", p, diff)
			}
			recent, err := s.RecentTurns(ctx, p, "shared", 2)
			if err != nil {
				t.Fatalf("RecentTurns(%s, shared, 2) = %v", p, err)
			}
			if diff := cmp.Diff(want[i][1:], recent); diff != "" {
				t.Errorf("RecentTurns(%s, shared, 2) mismatch (-want +got):\n%s", p, diff)
			}
		}
	}
	// Turns stay their principal's alone: bob can neither read nor end alice's under the id.
	if _, err := a.Turn(ctx, bob, "alice0"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Turn(bob, alice0) = %v, want ErrNotFound", err)
	}
	if err := b.FinishTurn(ctx, finished(turnRec(bob, "alice0", "shared", ""))); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("FinishTurn(bob, alice0) = %v, want ErrNotFound", err)
	}
	// A third principal, who never used the id, finds nothing under it.
	if _, err := a.Episode(ctx, "carol", "shared"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Episode(carol, shared) = %v, want ErrNotFound", err)
	}
}

func testIdempotency(t *testing.T, s testStore) {
	ctx := t.Context()
	first := mustCreate(t, s, turnRec(alice, "t1", "e1", "k1"))
	tests := []struct {
		name         string
		rec          orchestrator.TurnRecord
		wantExisting bool
		wantID       string
	}{
		{"same key, same principal", turnRec(alice, "t2", "e2", "k1"), true, "t1"},
		{"same key, other principal", turnRec(bob, "t3", "e3", "k1"), false, "t3"},
		{"other key", turnRec(alice, "t4", "e1", "k2"), false, "t4"},
		{"no key", turnRec(alice, "t5", "e1", ""), false, "t5"},
		{"no key again", turnRec(alice, "t6", "e1", ""), false, "t6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, existing, err := s.CreateTurn(ctx, tt.rec)
			if err != nil {
				t.Fatalf("CreateTurn() = %v", err)
			}
			if existing != tt.wantExisting || got.ID != tt.wantID {
				t.Errorf("CreateTurn() = %s, existing %v; want %s, existing %v", got.ID, existing, tt.wantID, tt.wantExisting)
			}
			if existing {
				if diff := cmp.Diff(first, got); diff != "" {
					t.Errorf("CreateTurn() existing record mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
	// The duplicate stored nothing: neither its turn nor its episode.
	if _, err := s.Turn(ctx, alice, "t2"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Turn(t2) = %v, want ErrNotFound", err)
	}
	if _, err := s.Episode(ctx, alice, "e2"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Episode(e2) = %v, want ErrNotFound", err)
	}
	if _, _, err := s.CreateTurn(ctx, turnRec(bob, "t7", "e2", "")); err != nil {
		t.Errorf("CreateTurn(bob into e2) = %v; the duplicate must not have claimed e2 for alice", err)
	}
}

// testConcurrentDuplicates races creators with one key through a and b (the same store, or
// two handles on one database): exactly one turn and one episode may result.
func testConcurrentDuplicates(t *testing.T, a, b testStore) {
	ctx := t.Context()
	const n = 16
	type result struct {
		rec      orchestrator.TurnRecord
		existing bool
		err      error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			<-start
			// Each request would have minted its own turn and episode ids.
			rec, existing, err := s.CreateTurn(ctx, turnRec(alice, fmt.Sprintf("t%d", i), fmt.Sprintf("e%d", i), "same-key"))
			results[i] = result{rec, existing, err}
		})
	}
	close(start)
	wg.Wait()

	var winners []string
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("CreateTurn #%d = %v", i, r.err)
		}
		if !r.existing {
			winners = append(winners, r.rec.ID)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("new turns = %v, want exactly one", winners)
	}
	winner := results[0].rec
	for i, r := range results {
		if diff := cmp.Diff(winner, r.rec); diff != "" {
			t.Errorf("CreateTurn #%d returned another turn (-#0 +#%d):\n%s", i, i, diff)
		}
	}
	for i := range n {
		id, ep := fmt.Sprintf("t%d", i), fmt.Sprintf("e%d", i)
		if id == winner.ID {
			continue
		}
		if _, err := a.Turn(ctx, alice, id); !errors.Is(err, orchestrator.ErrNotFound) {
			t.Errorf("Turn(%s) of a losing duplicate = %v, want ErrNotFound", id, err)
		}
		if _, err := a.Episode(ctx, alice, ep); !errors.Is(err, orchestrator.ErrNotFound) {
			t.Errorf("Episode(%s) of a losing duplicate = %v, want ErrNotFound", ep, err)
		}
		if _, _, err := b.CreateTurn(ctx, turnRec(bob, "bob-"+id, ep, "")); err != nil {
			t.Errorf("CreateTurn(bob into %s) = %v; a losing duplicate must not claim its episode", ep, err)
		}
	}
}

func testEpisodeOrder(t *testing.T, s testStore) {
	ctx := t.Context()
	var want []orchestrator.TurnRecord
	for i := range 5 {
		rec := turnRec(alice, fmt.Sprintf("t%d", i), "e1", "")
		// Later turns carry earlier timestamps: the order is the order of creation, not of time.
		rec.Created = created.Add(-time.Duration(i) * time.Minute)
		want = append(want, mustCreate(t, s, rec))
		mustCreate(t, s, turnRec(alice, fmt.Sprintf("other%d", i), "e2", "")) // interleaved
	}
	got, err := s.Episode(ctx, alice, "e1")
	if err != nil {
		t.Fatalf("Episode() = %v", err)
	}
	if diff := cmp.Diff(orchestrator.Episode{ID: "e1", Principal: alice, Turns: want}, got); diff != "" {
		t.Errorf("Episode() mismatch (-want +got):\n%s", diff)
	}
}

func testRecentTurns(t *testing.T, s testStore) {
	ctx := t.Context()
	var all []orchestrator.TurnRecord
	for i := range 5 {
		rec := turnRec(alice, fmt.Sprintf("t%d", i), "e1", "")
		// Later turns carry earlier timestamps: recent means last created, not latest in time.
		rec.Created = created.Add(-time.Duration(i) * time.Minute)
		all = append(all, mustCreate(t, s, rec))
		mustCreate(t, s, turnRec(alice, fmt.Sprintf("other%d", i), "e2", "")) // interleaved
	}
	// Finished turns come back with their reply and decision, as from Episode.
	last := finished(all[4])
	if err := s.FinishTurn(ctx, last); err != nil {
		t.Fatalf("FinishTurn() = %v", err)
	}
	all[4] = stored(last)
	tests := []struct {
		n    int
		want []orchestrator.TurnRecord
	}{
		{-1, []orchestrator.TurnRecord{}},
		{0, []orchestrator.TurnRecord{}},
		{1, all[4:]},
		{3, all[2:]},
		{5, all},
		{6, all},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			got, err := s.RecentTurns(ctx, alice, "e1", tt.n)
			if err != nil {
				t.Fatalf("RecentTurns(%d) = %v", tt.n, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RecentTurns(%d) mismatch (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

// sampleRecords is one record of each event type, ids 1 to 6.
func sampleRecords() []stream.Record {
	evs := []stream.Event{
		stream.TurnStarted{TurnID: "t1", EpisodeID: "e1"},
		stream.Status{Text: "Checking offers…", Sources: []stream.Source{{AgentID: "shop", Event: "searching"}, {AgentID: "rewards", Event: "working"}}},
		stream.ReplyDelta{Text: "Here <are> "},
		stream.ReplyCompleted{Text: "Here <are> 3 offers", Components: []json.RawMessage{json.RawMessage(`{"kind":"offer_list","n":3}`)}},
		stream.Error{Message: "Rewards is unavailable right now.", IsFinal: false},
		stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeDegraded},
	}
	recs := make([]stream.Record, len(evs))
	for i, ev := range evs {
		recs[i] = stream.Record{ID: uint64(i + 1), Event: ev}
	}
	return recs
}

func testEvents(t *testing.T, s testStore) {
	ctx := t.Context()
	recs := sampleRecords()
	for _, r := range recs {
		if err := s.AppendEvent(ctx, "t1", r); err != nil {
			t.Fatalf("AppendEvent(%d) = %v", r.ID, err)
		}
	}
	if err := s.AppendEvent(ctx, "t2", stream.Record{ID: 1, Event: stream.ReplyDelta{Text: "other turn"}}); err != nil {
		t.Fatalf("AppendEvent(t2) = %v", err)
	}
	err := s.AppendEvent(ctx, "t1", stream.Record{ID: 3, Event: stream.ReplyDelta{Text: "duplicate"}})
	if !errors.Is(err, stream.ErrRecordExists) {
		t.Errorf("AppendEvent(duplicate id) = %v, want %v", err, stream.ErrRecordExists)
	}

	tests := []struct {
		turn  string
		after uint64
		want  []stream.Record
	}{
		{"t1", 0, recs},
		{"t1", 1, recs[1:]},
		{"t1", 3, recs[3:]},
		{"t1", 5, recs[5:]},
		{"t1", 6, []stream.Record{}},
		{"t1", 7, []stream.Record{}},
		{"t1", math.MaxUint64, []stream.Record{}},
		{"t2", 0, []stream.Record{{ID: 1, Event: stream.ReplyDelta{Text: "other turn"}}}},
		{"unknown", 0, []stream.Record{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s after %d", tt.turn, tt.after), func(t *testing.T) {
			got, err := s.Events(ctx, tt.turn, tt.after)
			if err != nil {
				t.Fatalf("Events() = %v", err)
			}
			// An empty log is an empty slice, not nil: cmp.Diff tells them apart.
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Events(%s, %d) mismatch (-want +got):\n%s", tt.turn, tt.after, diff)
			}
		})
	}
}

// testConcurrentAppends streams several turns at once, as concurrent turns do.
func testConcurrentAppends(t *testing.T, s testStore) {
	ctx := t.Context()
	const turns, events = 6, 40
	errs := make([]error, turns)
	written := make([]chan struct{}, turns)
	var wg sync.WaitGroup
	for i := range turns {
		written[i] = make(chan struct{})
		wg.Go(func() {
			defer close(written[i])
			for id := uint64(1); id <= events; id++ {
				rec := stream.Record{ID: id, Event: stream.ReplyDelta{Text: fmt.Sprintf("turn %d word %d ", i, id)}}
				if err := s.AppendEvent(ctx, fmt.Sprintf("t%d", i), rec); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	// Readers run alongside, as SSE clients replaying while the turn streams: each must see
	// every id once, in order, without gaps.
	readErrs := make([]error, turns)
	for i := range turns {
		wg.Go(func() {
			var last uint64
			for {
				var done bool
				select {
				case <-written[i]:
					done = true // one more read sees everything the writer stored
				default:
				}
				recs, err := s.Events(ctx, fmt.Sprintf("t%d", i), last)
				if err != nil {
					readErrs[i] = err
					return
				}
				for _, r := range recs {
					if r.ID != last+1 {
						readErrs[i] = fmt.Errorf("turn %d: got id %d after %d", i, r.ID, last)
						return
					}
					last = r.ID
				}
				if done {
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range turns {
		if errs[i] != nil || readErrs[i] != nil {
			t.Fatalf("turn %d: append error %v, read error %v", i, errs[i], readErrs[i])
		}
	}
	for i := range turns {
		want := make([]stream.Record, events)
		for j := range want {
			want[j] = stream.Record{ID: uint64(j + 1), Event: stream.ReplyDelta{Text: fmt.Sprintf("turn %d word %d ", i, j+1)}}
		}
		got, err := s.Events(ctx, fmt.Sprintf("t%d", i), 0)
		if err != nil {
			t.Fatalf("Events(t%d) = %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Events(t%d) mismatch (-want +got):\n%s", i, diff)
		}
	}
}

// testTurnByKey: a turn is found by its principal and key, and by nothing else.
func testTurnByKey(t *testing.T, s testStore) {
	ctx := t.Context()
	keyed, ok := s.(orchestrator.KeyedTurns)
	if !ok {
		t.Fatalf("%T does not find turns by key", s)
	}
	first := mustCreate(t, s, turnRec(alice, "t1", "e1", "k1"))
	mustCreate(t, s, turnRec(alice, "t2", "e1", ""))
	got, err := keyed.TurnByKey(ctx, alice, "k1")
	if err != nil {
		t.Fatalf("TurnByKey(alice, k1) = %v", err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("TurnByKey(alice, k1) mismatch (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		p   principal.Principal
		key string
	}{{bob, "k1"}, {alice, "k2"}, {alice, ""}} {
		if _, err := keyed.TurnByKey(ctx, tc.p, tc.key); !errors.Is(err, orchestrator.ErrNotFound) {
			t.Errorf("TurnByKey(%s, %q) = %v, want ErrNotFound", tc.p, tc.key, err)
		}
	}
}
