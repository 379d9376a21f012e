package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/stream"
)

// noPolling is a poll interval no test outlives: a follower configured with it learns of new
// records on another replica only through notifications.
const noPolling = time.Hour

// arrivals follows turnID on hub from the start and sends the time each record arrives, by
// id, when the turn completes (or the error that ended the follow).
func arrivals(ctx context.Context, hub *stream.Hub, turnID string) <-chan any {
	out := make(chan any, 1)
	go func() {
		var at []time.Time
		for rec, err := range hub.Follow(ctx, turnID, 0) {
			if err != nil {
				out <- err
				return
			}
			if rec.ID != uint64(len(at))+1 {
				out <- fmt.Errorf("record %d after %d records", rec.ID, len(at))
				return
			}
			at = append(at, time.Now())
		}
		out <- at
	}()
	return out
}

// TestFollowerOnAnotherReplicaIsPushed: a follower whose hub reads another store of the same
// database (another replica) gets each record through LISTEN/NOTIFY, with polling off, and the
// test logs how far it trails a follower on the turn's own replica. It streams like a model:
// a delta every 20 ms.
func TestFollowerOnAnotherReplicaIsPushed(t *testing.T) {
	dsn := postgresSchema(t)
	owner, other := openPostgres(t, dsn), openPostgres(t, dsn)
	hubA := stream.NewHub(owner)
	hubB := stream.NewHub(other, stream.WithPollInterval(noPolling))
	t.Cleanup(hubA.Close)
	t.Cleanup(hubB.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	const turnID, deltas = "turn_pushed", 100
	log := hubA.Open(turnID)
	onA, onB := arrivals(ctx, hubA, turnID), arrivals(ctx, hubB, turnID)
	log.Publish(stream.TurnStarted{TurnID: turnID, EpisodeID: "ep"})
	for i := range deltas {
		time.Sleep(20 * time.Millisecond) // the pace of a streaming model, not a synchronisation
		log.Publish(stream.ReplyDelta{Text: fmt.Sprintf("d%03d ", i)})
	}
	log.Publish(stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeOK})
	hubA.Done(turnID)

	a, b := <-onA, <-onB
	atA, ok := a.([]time.Time)
	if !ok {
		t.Fatalf("follower on the owning replica: %v", a)
	}
	atB, ok := b.([]time.Time)
	if !ok {
		t.Fatalf("follower on the other replica (polling off): %v", b)
	}
	if want := deltas + 2; len(atA) != want || len(atB) != want {
		t.Fatalf("followers got %d and %d records, want %d each", len(atA), len(atB), want)
	}
	// The deltas only: the first record may wait for the listening connection to open, and
	// the end waits for the owner's final commit on both replicas alike.
	var lags []time.Duration
	for i := 1; i <= deltas; i++ {
		lags = append(lags, atB[i].Sub(atA[i]))
	}
	slices.Sort(lags)
	median, p99 := lags[len(lags)/2], lags[len(lags)*99/100]
	t.Logf("other replica's lag behind the owner over %d deltas: median %v, p99 %v, max %v",
		deltas, median.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), lags[len(lags)-1].Round(100*time.Microsecond))
	// A sanity bound only, far above the target: polling every 500 ms would give about 250 ms.
	if median > 250*time.Millisecond {
		t.Errorf("median lag = %v, want well under the 250 ms that polling gives", median)
	}
}

// TestFollowerSurvivesLostListener: when the listening connection dies, the store reconnects
// and wakes its watchers, so records appended while nobody listened still reach a follower
// that does not poll.
func TestFollowerSurvivesLostListener(t *testing.T) {
	dsn := postgresSchema(t)
	owner, other := openPostgres(t, dsn), openPostgres(t, dsn)
	hubA := stream.NewHub(owner)
	hubB := stream.NewHub(other, stream.WithPollInterval(noPolling))
	t.Cleanup(hubA.Close)
	t.Cleanup(hubB.Close)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	const turnID = "turn_relisten"
	log := hubA.Open(turnID)
	recs := make(chan stream.Record, 16)
	go func() {
		defer close(recs)
		for rec, err := range hubB.Follow(ctx, turnID, 0) {
			if err != nil {
				return
			}
			recs <- rec
		}
	}()
	log.Publish(stream.TurnStarted{TurnID: turnID, EpisodeID: "ep"})
	if _, ok := <-recs; !ok {
		t.Fatal("follow ended before the first record")
	}
	// The first record arrived, so the other store listens: end its connection from the
	// server side, as a failover or an idle-connection reaper would.
	pid := other.notify.pid.Load()
	if pid == 0 {
		t.Fatal("the other store has no listening connection")
	}
	admin, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed bool
	if err := admin.QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", int64(pid)).Scan(&killed); err != nil || !killed {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, killed, err)
	}
	log.Publish(stream.ReplyDelta{Text: "while nobody listened"})
	log.Publish(stream.TurnCompleted{TurnID: turnID, Outcome: stream.OutcomeOK})
	var got []string
	for rec := range recs {
		got = append(got, rec.Event.Name())
	}
	if want := []string{"reply.delta", "turn.completed"}; !slices.Equal(got, want) {
		t.Errorf("records after the listener died = %v, want %v", got, want)
	}
}
