package store

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// The memory store keeps each turn's record and event log encoded in byte slices rather than
// as Go values: a thousand episodes' strings, decisions and event slices were pointers every
// garbage collection of a busy service had to follow, where bytes are never scanned. Only the
// memory store reads these bytes, within the process that wrote them.
//
// A string is a uvarint length and its bytes; an int a varint; a slice a uvarint that is its
// length plus one, 0 standing for nil; a time its Unix seconds (varint), nanoseconds
// (uvarint) and location (see putTime).

// errCorrupt is what decoding bytes the encoder did not write returns.
var errCorrupt = errors.New("store: memory record does not decode")

// encodeTurn appends t, Decision included, to b: what a turn's creation sets, then (from the
// returned offset end on) what its end sets, so that finishing a turn re-encodes only that.
func encodeTurn(b []byte, t orchestrator.TurnRecord) (_ []byte, end int) {
	for _, s := range [...]string{t.ID, t.EpisodeID, string(t.Principal), t.Message, t.Locale, t.Location,
		t.IdempotencyKey, t.RequestHash} {
		b = putString(b, s)
	}
	b = putTime(b, t.Created)
	end = len(b)
	return encodeTurnEnd(b, t), end
}

// encodeTurnEnd appends the fields a turn's end sets: State, Outcome, Reply, Completed and
// Decision, the decision as [cloneDecision] gives it (the encoding is the store's copy).
func encodeTurnEnd(b []byte, t orchestrator.TurnRecord) []byte {
	b = putString(b, string(t.State))
	b = putString(b, string(t.Outcome))
	b = putString(b, t.Reply)
	b = putTime(b, t.Completed)
	d := t.Decision
	if d == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = putStrings(b, d.Invoked)
	b = binary.AppendVarint(b, int64(d.IntentCount))
	b = binary.AppendVarint(b, int64(d.Cap))
	b = putString(b, d.CapBehaviour)
	b = putStrings(b, d.Dropped)
	b = putLen(b, len(d.Agents) == 0, len(d.Agents))
	for _, a := range d.Agents {
		b = putString(b, a.Agent)
		b = putString(b, string(a.Outcome))
		b = putTime(b, a.Started)
		b = binary.AppendVarint(b, int64(storedLatency(a.Latency)))
	}
	return b
}

// decodeTurn reads back what encodeTurn wrote.
func decodeTurn(enc []byte) (orchestrator.TurnRecord, error) {
	r := reader{b: enc}
	t := orchestrator.TurnRecord{
		ID: r.string(), EpisodeID: r.string(), Principal: principal.Principal(r.string()), Message: r.string(),
		Locale: r.string(), Location: r.string(), IdempotencyKey: r.string(), RequestHash: r.string(),
		Created: r.time(),
		State:   orchestrator.TurnState(r.string()), Outcome: stream.Outcome(r.string()), Reply: r.string(),
		Completed: r.time(),
	}
	switch r.byte() {
	case 0: // no decision
	case 1:
		d := &orchestrator.Decision{Invoked: r.strings(), IntentCount: r.int(), Cap: r.int(), CapBehaviour: r.string(), Dropped: r.strings()}
		if n, ok := r.len(); ok {
			d.Agents = make([]orchestrator.AgentOutcome, n)
			for i := range d.Agents {
				d.Agents[i] = orchestrator.AgentOutcome{Agent: r.string(), Outcome: ask.Outcome(r.string()), Started: r.time(), Latency: time.Duration(r.int())}
			}
		}
		t.Decision = d
	default: // the encoder writes no other flag
		r.bad = true
	}
	if r.bad || len(r.b) != 0 {
		return orchestrator.TurnRecord{}, errCorrupt
	}
	return t, nil
}

// memEvent is one record of a turn's log, its event encoded as the stream encodes it.
type memEvent struct {
	id   uint64
	name string
	data []byte
}

// appendLog appends events to the encoded log b.
func appendLog(b []byte, events []memEvent) []byte {
	for _, e := range events {
		b = appendEvent(b, e.id, e.name, e.data)
	}
	return b
}

func appendEvent(b []byte, id uint64, name string, data []byte) []byte {
	b = binary.AppendUvarint(b, id)
	b = putString(b, name)
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// eventSize is about the bytes appendEvent takes for an event of name and data.
func eventSize(name string, data []byte) int {
	return binary.MaxVarintLen64 + 2*binary.MaxVarintLen32 + len(name) + len(data)
}

// decodeLog reads back the events of an encoded log whose id is above after. Names and data
// alias log, which is never modified once written (an insert writes a new one).
func decodeLog(log []byte, after uint64) ([]memEvent, error) {
	r := reader{b: log}
	var out []memEvent
	for len(r.b) > 0 && !r.bad {
		id := r.uvarint()
		name := r.rawString()
		data := r.rawString()
		if id > after {
			out = append(out, memEvent{id: id, name: string(name), data: data})
		}
	}
	if r.bad {
		return nil, errCorrupt
	}
	return out, nil
}

func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// putLen appends the length of a slice, telling nil from empty.
func putLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// putStrings appends a list of strings; an empty one reads back as nil, as from a database.
func putStrings(b []byte, ss []string) []byte {
	b = putLen(b, len(ss) == 0, len(ss))
	for _, s := range ss {
		b = putString(b, s)
	}
	return b
}

// Time locations: UTC (the store's own times), the process's local zone (a sub-agent's start,
// from time.Now) or a fixed zone of the name and offset the time had.
const (
	locUTC byte = iota
	locLocal
	locFixed
)

// putTime appends t without its monotonic reading, which no store keeps.
func putTime(b []byte, t time.Time) []byte {
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	switch t.Location() {
	case time.UTC:
		return append(b, locUTC)
	case time.Local:
		return append(b, locLocal)
	}
	name, offset := t.Zone()
	b = append(b, locFixed)
	b = putString(b, name)
	return binary.AppendVarint(b, int64(offset))
}

// reader reads encoded fields; past the end of its bytes or on a malformed field it sets bad
// and returns zero values.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// rawString returns the next string's bytes, without copying them.
func (r *reader) rawString() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string { return string(r.rawString()) }

// len reads what putLen wrote: ok is false for nil. A length larger than the bytes left is
// malformed (every element takes a byte at least), so that it cannot size an allocation.
func (r *reader) len() (n int, ok bool) {
	v := r.uvarint()
	if v == 0 {
		return 0, false
	}
	if v-1 > uint64(len(r.b)) {
		r.bad = true
		return 0, false
	}
	return int(v - 1), true
}

func (r *reader) strings() []string {
	n, ok := r.len()
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.string()
	}
	return ss
}

func (r *reader) time() time.Time {
	sec := r.int()
	nsec := r.uvarint()
	if nsec >= uint64(time.Second) {
		r.bad = true
		return time.Time{}
	}
	t := time.Unix(int64(sec), int64(nsec))
	switch r.byte() {
	case locUTC:
		return t.UTC()
	case locLocal:
		return t
	case locFixed:
		name := r.string()
		return t.In(time.FixedZone(name, r.int()))
	}
	r.bad = true
	return time.Time{}
}
