package store

import (
	"encoding/binary"
	"errors"
	"github.com/switchboard-ai/switchboard/internal/varcodec"
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
		b = varcodec.AppendString(b, s)
	}
	b = putTime(b, t.Created)
	end = len(b)
	return encodeTurnEnd(b, t), end
}

// encodeTurnEnd appends the fields a turn's end sets: State, Outcome, Reply, Completed and
// Decision, the decision as [cloneDecision] gives it (the encoding is the store's copy).
func encodeTurnEnd(b []byte, t orchestrator.TurnRecord) []byte {
	b = varcodec.AppendString(b, string(t.State))
	b = varcodec.AppendString(b, string(t.Outcome))
	b = varcodec.AppendString(b, t.Reply)
	b = putTime(b, t.Completed)
	d := t.Decision
	if d == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = putStrings(b, d.Invoked)
	b = binary.AppendVarint(b, int64(d.IntentCount))
	b = binary.AppendVarint(b, int64(d.Cap))
	b = varcodec.AppendString(b, d.CapBehaviour)
	b = putStrings(b, d.Dropped)
	b = varcodec.AppendLen(b, len(d.Agents) == 0, len(d.Agents))
	for _, a := range d.Agents {
		b = varcodec.AppendString(b, a.Agent)
		b = varcodec.AppendString(b, string(a.Outcome))
		b = putTime(b, a.Started)
		b = binary.AppendVarint(b, int64(storedLatency(a.Latency)))
		b = putStrings(b, a.Tools)
	}
	return b
}

// decodeTurn reads back what encodeTurn wrote.
func decodeTurn(enc []byte) (orchestrator.TurnRecord, error) {
	r := varcodec.NewReader(enc)
	t := orchestrator.TurnRecord{
		ID: r.String(), EpisodeID: r.String(), Principal: principal.Principal(r.String()), Message: r.String(),
		Locale: r.String(), Location: r.String(), IdempotencyKey: r.String(), RequestHash: r.String(),
		Created: readTime(&r),
		State:   orchestrator.TurnState(r.String()), Outcome: stream.Outcome(r.String()), Reply: r.String(),
		Completed: readTime(&r),
	}
	switch r.Byte() {
	case 0: // no decision
	case 1:
		d := &orchestrator.Decision{Invoked: readStrings(&r), IntentCount: r.Int(), Cap: r.Int(), CapBehaviour: r.String(), Dropped: readStrings(&r)}
		if n, ok := r.Len(); ok {
			d.Agents = make([]orchestrator.AgentOutcome, n)
			for i := range d.Agents {
				d.Agents[i] = orchestrator.AgentOutcome{Agent: r.String(), Outcome: ask.Outcome(r.String()), Started: readTime(&r), Latency: time.Duration(r.Int()), Tools: readStrings(&r)}
			}
		}
		t.Decision = d
	default: // the encoder writes no other flag
		r.Fail()
	}
	if r.Failed() || r.Left() != 0 {
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
	b = varcodec.AppendString(b, name)
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
	r := varcodec.NewReader(log)
	var out []memEvent
	for r.Left() > 0 && !r.Failed() {
		id := r.Uvarint()
		name := r.RawString()
		data := r.RawString()
		if id > after {
			out = append(out, memEvent{id: id, name: string(name), data: data})
		}
	}
	if r.Failed() {
		return nil, errCorrupt
	}
	return out, nil
}

// putStrings appends a list of strings; an empty one reads back as nil, as from a database.
func putStrings(b []byte, ss []string) []byte {
	b = varcodec.AppendLen(b, len(ss) == 0, len(ss))
	for _, s := range ss {
		b = varcodec.AppendString(b, s)
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
	b = varcodec.AppendString(b, name)
	return binary.AppendVarint(b, int64(offset))
}

// readStrings reads what putStrings wrote.
func readStrings(r *varcodec.Reader) []string {
	n, ok := r.Len()
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.String()
	}
	return ss
}

// readTime reads what putTime wrote.
func readTime(r *varcodec.Reader) time.Time {
	sec := r.Int()
	nsec := r.Uvarint()
	if nsec >= uint64(time.Second) {
		r.Fail()
		return time.Time{}
	}
	t := time.Unix(int64(sec), int64(nsec))
	switch r.Byte() {
	case locUTC:
		return t.UTC()
	case locLocal:
		return t
	case locFixed:
		name := r.String()
		return t.In(time.FixedZone(name, r.Int()))
	}
	r.Fail()
	return time.Time{}
}
