package store

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// Whatever a turn holds, the memory store's encoding gives it back as a database would: its
// own times as stored, its decision as cloneDecision copies it, in whatever zone its times had.
func FuzzMemoryTurnRoundTrip(f *testing.F) {
	f.Add("turn_1", "ep_1", "alice", "hello", "ok", int64(1_790_000_000_123_456_789), int64(1234567891), uint8(7), "shop")
	f.Add("", "", "", "", "", int64(0), int64(-1), uint8(0), "")
	f.Add("t\xff", "e\x00", "bob", "a long\nreply", "degraded", int64(-62_135_596_800_000_000_000/1000), int64(3), uint8(255), "ask_support")
	f.Fuzz(func(t *testing.T, id, episode, p, text, outcome string, nanos, latency int64, shape uint8, agent string) {
		at := time.Unix(0, nanos)
		zones := []*time.Location{time.UTC, time.Local, time.FixedZone("CET", 3600), time.FixedZone("", -7*3600-1800)}
		in := orchestrator.TurnRecord{
			ID: id, EpisodeID: episode, Principal: principal.Principal(p), Message: text, Locale: text, Location: outcome,
			IdempotencyKey: text, RequestHash: id, State: orchestrator.TurnState(outcome), Outcome: stream.Outcome(outcome),
			Reply: text, Created: storedTime(at), Completed: storedTime(at.Add(time.Duration(latency))),
		}
		if shape&1 != 0 {
			d := &orchestrator.Decision{IntentCount: int(latency), Cap: int(shape), CapBehaviour: outcome}
			if shape&2 != 0 {
				d.Invoked, d.Dropped = []string{agent, id}, []string{}
			}
			if shape&4 != 0 {
				d.Agents = []orchestrator.AgentOutcome{{Agent: agent, Outcome: ask.Outcome(outcome), Started: at.In(zones[int(shape>>4)%len(zones)]), Latency: time.Duration(latency)}}
			}
			if shape&8 != 0 {
				d.Agents = []orchestrator.AgentOutcome{}
			}
			if len(d.Agents) > 0 && shape&32 != 0 {
				d.Agents[0].Tools = []string{text, agent}
			}
			in.Decision = d
		}
		want := in
		want.Decision, _ = cloneDecision(in.Decision)
		enc, end := encodeTurn(nil, in)
		got, err := decodeTurn(enc)
		if err != nil {
			t.Fatalf("decodeTurn(encodeTurn(%+v)) = %v", in, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
		// Re-encoding only the end keeps what the creation stored.
		ended := in
		ended.Reply, ended.Decision = "ended "+text, nil
		if got, err := decodeTurn(encodeTurnEnd(enc[:end:end], ended)); err != nil || got.ID != in.ID || got.Reply != ended.Reply || got.Decision != nil {
			t.Errorf("after encodeTurnEnd: %+v, %v; want %q with reply %q and no decision", got, err, in.ID, ended.Reply)
		}
	})
}

// Decoding bytes the encoder did not write fails or gives a turn or log that encodes and
// decodes to itself (a varint may be written longer than the encoder writes it); it never
// panics or allocates past its input.
func FuzzMemoryDecode(f *testing.F) {
	enc, _ := encodeTurn(nil, orchestrator.TurnRecord{ID: "t", Decision: &orchestrator.Decision{Invoked: []string{"a"}, Agents: []orchestrator.AgentOutcome{{Agent: "a"}}}})
	f.Add(enc)
	f.Add(appendLog(nil, []memEvent{{id: 1, name: "reply.delta", data: []byte(`{"text":"hi"}`)}, {id: 9, name: "turn.completed"}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		if turn, err := decodeTurn(b); err == nil {
			again, _ := encodeTurn(nil, turn)
			turn.Decision, _ = cloneDecision(turn.Decision) // as the encoder stores it
			if back, err := decodeTurn(again); err != nil || !cmp.Equal(turn, back) {
				t.Errorf("a decoded turn does not round-trip: %+v, %v", back, err)
			}
		}
		if events, err := decodeLog(b, 0); err == nil {
			if again, err := decodeLog(appendLog(nil, events), 0); err != nil || !cmp.Equal(events, again, cmp.AllowUnexported(memEvent{})) {
				t.Errorf("a decoded log does not round-trip: %v, %v", again, err)
			}
		}
	})
}

// A log written for a turn before the turn is created is kept: creating the turn neither fails
// nor drops it. Until then the turn is not found.
func TestMemoryLogBeforeItsTurn(t *testing.T) {
	ctx := t.Context()
	m := NewMemory()
	early := stream.Record{ID: 1, Event: stream.ReplyDelta{Text: "early"}}
	if err := m.AppendEvent(ctx, "t1", early); err != nil {
		t.Fatalf("AppendEvent() = %v", err)
	}
	if _, err := m.Turn(ctx, "", "t1"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("Turn(a turn with a log only) = %v, want %v", err, orchestrator.ErrNotFound)
	}
	if err := m.FinishTurn(ctx, orchestrator.TurnRecord{ID: "t1", State: orchestrator.TurnCompleted}); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("FinishTurn(a turn with a log only) = %v, want %v", err, orchestrator.ErrNotFound)
	}
	mustCreate(t, m, turnRec(alice, "t1", "e1", ""))
	late := stream.Record{ID: 2, Event: stream.TurnCompleted{Outcome: stream.OutcomeOK}}
	if err := m.FinishTurnWithEvents(ctx, finished(turnRec(alice, "t1", "e1", "")), []stream.Record{late}); err != nil {
		t.Fatalf("FinishTurnWithEvents() = %v", err)
	}
	got, err := m.Events(ctx, "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]stream.Record{early, late}, got); diff != "" {
		t.Errorf("Events() mismatch (-want +got):\n%s", diff)
	}
	if turn, err := m.Turn(ctx, alice, "t1"); err != nil || turn.State != orchestrator.TurnCompleted {
		t.Errorf("Turn() = %+v, %v; want it completed", turn, err)
	}
}

// A reader decoding a log while records are appended and inserted out of order reads a log
// that was whole at some moment: the bytes it holds are never written over.
func TestMemoryEventsWhileWriting(t *testing.T) {
	ctx := t.Context()
	m := NewMemory()
	mustCreate(t, m, turnRec(alice, "t1", "e1", ""))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for id := uint64(2); id <= 200; id += 2 {
			if err := m.AppendEvent(ctx, "t1", stream.Record{ID: id, Event: stream.ReplyDelta{Text: "even"}}); err != nil {
				t.Errorf("AppendEvent(%d) = %v", id, err)
				return
			}
			if err := m.AppendEvent(ctx, "t1", stream.Record{ID: id - 1, Event: stream.ReplyDelta{Text: "odd"}}); err != nil {
				t.Errorf("AppendEvent(%d) = %v", id-1, err)
				return
			}
		}
	}()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		recs, err := m.Events(ctx, "t1", 0)
		if err != nil {
			t.Fatalf("Events() = %v", err)
		}
		for i, r := range recs {
			want := "odd"
			if r.ID%2 == 0 {
				want = "even"
			}
			if (i > 0 && r.ID <= recs[i-1].ID) || r.Event != (stream.ReplyDelta{Text: want}) {
				t.Fatalf("Events()[%d] = %+v after %+v", i, r, recs[max(i-1, 0)])
			}
		}
	}
	if recs, _ := m.Events(ctx, "t1", 0); len(recs) != 200 {
		t.Errorf("Events() = %d records, want 200", len(recs))
	}
}

// A record whose decision flag is neither of the two the encoder writes is corrupt, not a turn
// without a decision.
func TestDecodeTurnRefusesAnUnknownDecisionFlag(t *testing.T) {
	enc, _ := encodeTurn(nil, orchestrator.TurnRecord{ID: "t1", State: orchestrator.TurnRunning})
	for _, flag := range []byte{2, 0x80, 0xff} {
		bad := append([]byte{}, enc...)
		bad[len(bad)-1] = flag // a turn without a decision ends with its flag
		if got, err := decodeTurn(bad); !errors.Is(err, errCorrupt) {
			t.Errorf("decodeTurn(flag %#x) = %+v, %v; want %v", flag, got, err, errCorrupt)
		}
	}
}

// fill sets every field of v, however deep, to a value that is not its zero: a field the
// memory codec leaves out then shows in a round trip.
func fill(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n) * int64(time.Millisecond)) // a latency survives its float milliseconds
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(*n), 1000).UTC()))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(t, v.Index(i), n)
		}
	default:
		t.Fatalf("fill: a field of kind %s: teach fill and the memory codec about it", v.Kind())
	}
}

// Every field of a turn record, its decision's included, goes through the memory store's
// encoding: a field added to the record and not to the codec would be lost.
func TestMemoryCodecKeepsEveryField(t *testing.T) {
	var in orchestrator.TurnRecord
	n := 0
	fill(t, reflect.ValueOf(&in).Elem(), &n)
	enc, _ := encodeTurn(nil, in)
	got, err := decodeTurn(enc)
	if err != nil {
		t.Fatalf("decodeTurn(encodeTurn(%+v)) = %v", in, err)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}
