package audit

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
)

// The memory log's encoding of one entry, Seq aside (a block numbers its entries):
//
//	uvarint  length of what follows
//	byte     the detail's kind (a tag below)
//	varint   time, Unix seconds; uvarint its nanoseconds
//	string   principal
//	string   for an Unknown detail only, its Kind
//	...      the detail's fields in declaration order
//
// A string is a uvarint length and the bytes; an int a varint; a slice, map or raw JSON a
// uvarint that is its length plus one, 0 standing for nil (a nil and an empty value read back
// as they were given). Only the memory log reads these bytes, within the process that wrote
// them, so the format may change with any version.

// Detail tags: one per detail type, 0 for an entry without one.
const (
	tagNone byte = iota
	tagTurnAccepted
	tagRoutingDecision
	tagEnvelopeSuppressed
	tagTurnCancelled
	tagServiceActed
	tagDefinitionsReloaded
	tagDevTokenMinted
	tagLimitRefusals
	tagUnknown
)

// tagTypes is the Type of each tag but tagUnknown's, whose Type is stored.
var tagTypes = [...]Type{
	tagNone: "", tagTurnAccepted: TypeTurnAccepted, tagRoutingDecision: TypeRoutingDecision,
	tagEnvelopeSuppressed: TypeEnvelopeSuppressed, tagTurnCancelled: TypeTurnCancelled,
	tagServiceActed: TypeServiceActed, tagDefinitionsReloaded: TypeDefinitionsReloaded,
	tagDevTokenMinted: TypeDevTokenMinted, tagLimitRefusals: TypeLimitRefusals,
}

// errCorrupt is what decoding bytes the encoder did not write returns.
var errCorrupt = errors.New("audit: memory log entry does not decode")

// storable reports whether the memory log can encode d: nil or a detail type of this package
// (not a pointer to one).
func storable(d Detail) error {
	switch d.(type) {
	case nil, TurnAccepted, RoutingDecision, EnvelopeSuppressed, TurnCancelled, ServiceActed,
		DefinitionsReloaded, DevTokenMinted, LimitRefusals, Unknown:
		return nil
	}
	return fmt.Errorf("audit: detail of type %T cannot be stored", d)
}

// encodeEntry appends e, encoded, to b. e.Detail must be [storable].
func encodeEntry(b []byte, e Entry) []byte {
	// The length goes first but is known last: the body is written after a one-byte
	// placeholder, and moved when its length takes more bytes than that.
	b = append(b, 0)
	start := len(b)
	switch d := e.Detail.(type) {
	case nil:
		b = entryHead(b, tagNone, e)
	case TurnAccepted:
		b = entryHead(b, tagTurnAccepted, e)
		b = putString(b, d.EpisodeID)
		b = putString(b, d.TurnID)
		b = putString(b, d.IdempotencyKeySHA256)
	case RoutingDecision:
		b = entryHead(b, tagRoutingDecision, e)
		b = putString(b, d.TurnID)
		b = putString(b, d.Outcome)
		b = binary.AppendVarint(b, int64(d.Intents))
		b = putString(b, d.Cap)
		b = binary.AppendVarint(b, int64(d.Dropped))
		b = putLen(b, d.Agents == nil, len(d.Agents))
		for _, a := range d.Agents {
			b = putString(b, a.Agent)
			b = putString(b, a.Outcome)
		}
	case EnvelopeSuppressed:
		b = entryHead(b, tagEnvelopeSuppressed, e)
		b = putString(b, d.TurnID)
		b = putString(b, d.Agent)
		b = putString(b, d.Enricher)
		b = putString(b, d.Reason)
	case TurnCancelled:
		b = entryHead(b, tagTurnCancelled, e)
		b = putString(b, d.TurnID)
	case ServiceActed:
		b = entryHead(b, tagServiceActed, e)
		b = putString(b, d.Service)
		b = putString(b, d.Method)
		b = putString(b, d.TaskID)
		b = putString(b, d.TraceID)
	case DefinitionsReloaded:
		b = entryHead(b, tagDefinitionsReloaded, e)
		b = putString(b, d.Result)
		b = binary.AppendVarint(b, int64(d.Agents))
		b = binary.AppendVarint(b, int64(d.Problems))
	case DevTokenMinted:
		b = entryHead(b, tagDevTokenMinted, e)
	case LimitRefusals:
		b = entryHead(b, tagLimitRefusals, e)
		b = binary.AppendVarint(b, int64(d.Count))
		b = putLen(b, d.Limits == nil, len(d.Limits))
		for k, n := range d.Limits {
			b = putString(b, k)
			b = binary.AppendVarint(b, int64(n))
		}
	case Unknown:
		b = entryHead(b, tagUnknown, e)
		b = putString(b, string(d.Kind))
		b = putLen(b, d.JSON == nil, len(d.JSON))
		b = append(b, d.JSON...)
	}
	n := len(b) - start
	if n < 0x80 { // the usual case: the length fits the placeholder
		b[start-1] = byte(n)
		return b
	}
	var l [binary.MaxVarintLen64]byte
	ll := binary.PutUvarint(l[:], uint64(n))
	b = append(b, l[:ll-1]...) // room for the longer length
	copy(b[start-1+ll:], b[start:start+n])
	copy(b[start-1:], l[:ll])
	return b
}

// entryHead appends the fields every entry has.
func entryHead(b []byte, tag byte, e Entry) []byte {
	b = append(b, tag)
	b = binary.AppendVarint(b, e.Time.Unix())
	b = binary.AppendUvarint(b, uint64(e.Time.Nanosecond()))
	return putString(b, string(e.Principal))
}

func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// putLen appends the length of a slice, map or raw JSON, telling nil from empty.
func putLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

// entryLen is the length of the encoded entry data starts with, its length prefix included,
// or len(data) when that prefix does not decode (decoding the entry then fails).
func entryLen(data []byte) int {
	n, ll := binary.Uvarint(data)
	if ll <= 0 || n > uint64(len(data)-ll) {
		return len(data)
	}
	return ll + int(n)
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

// bytes returns the next n bytes, without copying them.
func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) rawString() []byte { return r.bytes(r.uvarint()) }

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

// header reads the fields every entry has from the entry enc (its length prefix included),
// returning a reader at the detail's fields. The principal and an unknown kind alias enc.
func header(enc []byte) (r reader, tag byte, at time.Time, p []byte, kind []byte) {
	r.b = enc[min(len(enc), entryLenPrefix(enc)):]
	tag = r.byte()
	sec := r.int()
	nsec := r.uvarint()
	p = r.rawString()
	if tag == tagUnknown {
		kind = r.rawString()
	}
	if nsec >= uint64(time.Second) || tag > tagUnknown {
		r.bad = true
	}
	if !r.bad {
		at = time.Unix(int64(sec), int64(nsec)).UTC()
	}
	return r, tag, at, p, kind
}

// entryLenPrefix is how many bytes enc's length prefix takes.
func entryLenPrefix(enc []byte) int {
	_, ll := binary.Uvarint(enc)
	if ll <= 0 {
		return len(enc)
	}
	return ll
}

// matchHeader is [Query.Match] for an encoded entry, Seq aside, without decoding its detail.
func (q Query) matchHeader(enc []byte) bool {
	r, tag, at, p, kind := header(enc)
	if r.bad {
		return true // decoding it reports the error
	}
	t := Type(kind)
	if tag != tagUnknown {
		t = tagTypes[tag]
	}
	return (q.Since.IsZero() || !at.Before(q.Since.Truncate(timePrecision))) &&
		(q.Principal == "" || string(p) == string(q.Principal)) &&
		(q.Type == "" || t == q.Type)
}

// decodeEntry reads back the entry encodeEntry wrote, Seq aside.
func decodeEntry(enc []byte) (Entry, error) {
	if entryLen(enc) != len(enc) || entryLenPrefix(enc) == len(enc) {
		return Entry{}, errCorrupt
	}
	r, tag, at, p, kind := header(enc)
	e := Entry{Time: at, Principal: principal.Principal(p)}
	switch tag {
	case tagTurnAccepted:
		e.Detail = TurnAccepted{EpisodeID: r.string(), TurnID: r.string(), IdempotencyKeySHA256: r.string()}
	case tagRoutingDecision:
		d := RoutingDecision{TurnID: r.string(), Outcome: r.string(), Intents: r.int(), Cap: r.string(), Dropped: r.int()}
		if n, ok := r.len(); ok {
			d.Agents = make([]AgentOutcome, n)
			for i := range d.Agents {
				d.Agents[i] = AgentOutcome{Agent: r.string(), Outcome: r.string()}
			}
		}
		e.Detail = d
	case tagEnvelopeSuppressed:
		e.Detail = EnvelopeSuppressed{TurnID: r.string(), Agent: r.string(), Enricher: r.string(), Reason: r.string()}
	case tagTurnCancelled:
		e.Detail = TurnCancelled{TurnID: r.string()}
	case tagServiceActed:
		e.Detail = ServiceActed{Service: r.string(), Method: r.string(), TaskID: r.string(), TraceID: r.string()}
	case tagDefinitionsReloaded:
		e.Detail = DefinitionsReloaded{Result: r.string(), Agents: r.int(), Problems: r.int()}
	case tagDevTokenMinted:
		e.Detail = DevTokenMinted{}
	case tagLimitRefusals:
		d := LimitRefusals{Count: r.int()}
		if n, ok := r.len(); ok {
			d.Limits = make(map[string]int, n)
			for range n {
				k := r.string()
				d.Limits[k] = r.int()
			}
		}
		e.Detail = d
	case tagUnknown:
		u := Unknown{Kind: Type(kind)}
		if n, ok := r.len(); ok {
			u.JSON = append(json.RawMessage{}, r.bytes(uint64(n))...)
		}
		e.Detail = u
	}
	if r.bad || len(r.b) != 0 {
		return Entry{}, errCorrupt
	}
	return e, nil
}
