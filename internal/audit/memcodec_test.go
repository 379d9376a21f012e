package audit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/principal"
)

// fuzzDetail builds a detail of the kind pick names from the fuzzer's values.
func fuzzDetail(pick uint8, s1, s2 string, n int64, raw []byte) Detail {
	switch pick % 11 {
	case 0:
		return nil
	case 1:
		return TurnAccepted{EpisodeID: s1, TurnID: s2, IdempotencyKeySHA256: s1 + s2}
	case 2:
		d := RoutingDecision{TurnID: s1, Outcome: s2, Intents: int(n), Cap: s1, Dropped: int(-n)}
		if n%3 != 0 {
			d.Agents = []AgentOutcome{}
			for i := range n % 5 {
				d.Agents = append(d.Agents, AgentOutcome{Agent: s1[:min(int(i), len(s1))], Outcome: s2})
			}
		}
		return d
	case 3:
		return EnvelopeSuppressed{TurnID: s1, Agent: s2, Enricher: s2, Reason: s1}
	case 4:
		return TurnCancelled{TurnID: s1}
	case 5:
		return ServiceActed{Service: s1, Method: s2, TaskID: s1, TraceID: s2}
	case 6:
		return DefinitionsReloaded{Result: s1, Agents: int(n), Problems: int(n >> 3)}
	case 7:
		return DevTokenMinted{}
	case 8:
		d := LimitRefusals{Count: int(n)}
		if n%2 == 0 {
			d.Limits = map[string]int{s1: int(n), s2: 1}
		}
		return d
	case 9:
		return Unknown{Kind: Type(s1), JSON: raw}
	}
	return Unknown{Kind: Type(s2)}
}

// Whatever an entry holds, the memory log's encoding gives it back as it was, in UTC to the
// microsecond.
func FuzzMemoryRoundTrip(f *testing.F) {
	f.Add(uint8(2), "turn_1", "ok", int64(3), int64(1_790_000_000_123_456), "alice", []byte(`{"n":1}`))
	f.Add(uint8(8), "turns_per_minute", "", int64(-4), int64(-62_135_596_800_000_000), "\xff", []byte(nil))
	f.Add(uint8(9), "later", "x", int64(1<<40), int64(0), "", []byte{})
	f.Fuzz(func(t *testing.T, pick uint8, s1, s2 string, n, micros int64, p string, raw []byte) {
		e := Entry{Time: time.UnixMicro(micros).UTC(), Principal: principal.Principal(p), Detail: fuzzDetail(pick, s1, s2, n, raw)}
		enc := encodeEntry(nil, e)
		if l := entryLen(enc); l != len(enc) {
			t.Fatalf("entryLen(encoding of %+v) = %d, want %d", e, l, len(enc))
		}
		got, err := decodeEntry(enc)
		if err != nil {
			t.Fatalf("decodeEntry(encoding of %+v) = %v", e, err)
		}
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("round trip mismatch (-want +got):\n%s", diff)
		}
		if !(Query{Principal: e.Principal, Type: e.Type(), Since: e.Time}).matchHeader(enc) {
			t.Errorf("matchHeader(its own principal, type and time) = false for %+v", e)
		}
	})
}

// Decoding bytes the encoder did not write fails or gives an entry that encodes and decodes
// to itself; it never panics.
func FuzzDecodeEntry(f *testing.F) {
	for i, e := range []Entry{
		{Time: time.Unix(1_790_000_000, 123_000).UTC(), Principal: "alice", Detail: TurnAccepted{EpisodeID: "ep", TurnID: "turn"}},
		{Detail: RoutingDecision{TurnID: "t", Agents: []AgentOutcome{{Agent: "shop", Outcome: "ok"}}}},
		{Detail: LimitRefusals{Count: 2, Limits: map[string]int{"a": 2}}},
		{Detail: Unknown{Kind: "later", JSON: json.RawMessage(`{}`)}},
	} {
		f.Add(encodeEntry(nil, e))
		f.Add(encodeEntry(nil, e)[:i+1])
	}
	f.Fuzz(func(t *testing.T, enc []byte) {
		Query{Principal: "alice", Type: TypeTurnAccepted}.matchHeader(enc)
		e, err := decodeEntry(enc)
		if err != nil {
			return
		}
		again, err := decodeEntry(encodeEntry(nil, e))
		if err != nil {
			t.Fatalf("decodeEntry(encodeEntry(%+v)) = %v", e, err)
		}
		if diff := cmp.Diff(e, again); diff != "" {
			t.Errorf("decoded entry does not round-trip (-first +second):\n%s", diff)
		}
	})
}

// fill sets every field of v, however deep, to a value that is not its zero: a field the
// memory codec leaves out then shows in a round trip.
func fill(t *testing.T, v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint8:
		v.SetUint(uint64('a' + *n%26))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(*n), 1000).UTC()))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(t, v.Index(i), n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, n)
			fill(t, e, n)
			v.SetMapIndex(k, e)
		}
	default:
		t.Fatalf("fill: a field of kind %s: teach fill and the memory codec about it", v.Kind())
	}
}

// Every field of every detail type goes through the memory log's encoding: a field added to
// a detail and not to the codec would be lost.
func TestMemoryCodecKeepsEveryField(t *testing.T) {
	n := 0
	for _, d := range []Detail{TurnAccepted{}, RoutingDecision{}, EnvelopeSuppressed{}, TurnCancelled{},
		ServiceActed{}, DefinitionsReloaded{}, DevTokenMinted{}, LimitRefusals{}, Unknown{}} {
		e := Entry{Time: time.Unix(1_790_000_000, 123_000).UTC(), Principal: "alice"}
		v := reflect.New(reflect.TypeOf(d)).Elem()
		fill(t, v, &n)
		e.Detail = v.Interface().(Detail)
		got, err := decodeEntry(encodeEntry(nil, e))
		if err != nil {
			t.Fatalf("decodeEntry(encodeEntry(%+v)) = %v", e, err)
		}
		if diff := cmp.Diff(e, got); diff != "" {
			t.Errorf("%T: round trip mismatch (-want +got):\n%s", d, diff)
		}
	}
}
