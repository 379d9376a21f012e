package stream_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/stream"
)

// PublishEnd hands commit every record not yet stored and the end, in id order, shows the end
// only once commit has returned, and stores nothing itself; when commit fails nothing of the
// end is shown and the log stays open, its records still bound for the store.
func TestTurnLogPublishEnd(t *testing.T) {
	evs := turnEvents("t1", 3)
	last := evs[len(evs)-1].(stream.TurnCompleted)
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "committed", true: "refused"}[fail], func(t *testing.T) {
			store := stream.NewMemoryLogStore()
			hub := stream.NewHub(store)
			defer hub.Close()
			log := hub.Open("t1")
			publishAll(log, evs[:len(evs)-1])

			entered, release := make(chan []stream.Record, 1), make(chan struct{})
			errRefused := errors.New("refused")
			done := make(chan error, 1)
			go func() {
				done <- log.PublishEnd(last, func(_ context.Context, recs []stream.Record) error {
					entered <- recs
					<-release
					if fail {
						return errRefused
					}
					return store.AppendEvents(context.Background(), "t1", recs)
				})
			}()
			recs := <-entered
			stored, _ := store.Events(t.Context(), "t1", 0)
			if want := records(evs, 0); !cmp.Equal(want, append(stored, recs...)) {
				t.Errorf("stored + handed to commit = %v, want the whole log %v", append(stored, recs...), want)
			}
			if got, _ := collect(ctxTimeout(t, 20*time.Millisecond), hub, "t1", uint64(len(evs)-1)); len(got) != 0 {
				t.Errorf("followers saw %v while commit ran, want nothing yet", got)
			}
			close(release)
			err := <-done
			if fail {
				if !errors.Is(err, errRefused) {
					t.Fatalf("PublishEnd() = %v, want %v", err, errRefused)
				}
				// Still open: a plain end stores everything, the end once.
				log.Publish(stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeFailed})
				want := append(records(evs[:len(evs)-1], 0), stream.Record{ID: uint64(len(evs)), Event: stream.TurnCompleted{TurnID: "t1", Outcome: stream.OutcomeFailed}})
				if got, _ := store.Events(t.Context(), "t1", 0); !cmp.Equal(want, got) {
					t.Errorf("stored after a refused end = %v, want %v", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("PublishEnd() = %v", err)
			}
			got, err := collect(t.Context(), hub, "t1", 0)
			if err != nil || !cmp.Equal(records(evs, 0), got) {
				t.Errorf("Follow() = %v, %v; want the whole log", got, err)
			}
			if stored, _ := store.Events(t.Context(), "t1", 0); !cmp.Equal(records(evs, 0), stored) {
				t.Errorf("stored = %v, want the whole log once", stored)
			}
		})
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}
