package audit

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-ai/switchboard/internal/varcodec"
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
		b = varcodec.AppendString(b, d.EpisodeID)
		b = varcodec.AppendString(b, d.TurnID)
		b = varcodec.AppendString(b, d.IdempotencyKeySHA256)
	case RoutingDecision:
		b = entryHead(b, tagRoutingDecision, e)
		b = varcodec.AppendString(b, d.TurnID)
		b = varcodec.AppendString(b, d.Outcome)
		b = binary.AppendVarint(b, int64(d.Intents))
		b = varcodec.AppendString(b, d.Cap)
		b = binary.AppendVarint(b, int64(d.Dropped))
		b = varcodec.AppendLen(b, d.Agents == nil, len(d.Agents))
		for _, a := range d.Agents {
			b = varcodec.AppendString(b, a.Agent)
			b = varcodec.AppendString(b, a.Outcome)
		}
	case EnvelopeSuppressed:
		b = entryHead(b, tagEnvelopeSuppressed, e)
		b = varcodec.AppendString(b, d.TurnID)
		b = varcodec.AppendString(b, d.Agent)
		b = varcodec.AppendString(b, d.Enricher)
		b = varcodec.AppendString(b, d.Reason)
	case TurnCancelled:
		b = entryHead(b, tagTurnCancelled, e)
		b = varcodec.AppendString(b, d.TurnID)
	case ServiceActed:
		b = entryHead(b, tagServiceActed, e)
		b = varcodec.AppendString(b, d.Service)
		b = varcodec.AppendString(b, d.Method)
		b = varcodec.AppendString(b, d.TaskID)
		b = varcodec.AppendString(b, d.TraceID)
	case DefinitionsReloaded:
		b = entryHead(b, tagDefinitionsReloaded, e)
		b = varcodec.AppendString(b, d.Result)
		b = binary.AppendVarint(b, int64(d.Agents))
		b = binary.AppendVarint(b, int64(d.Problems))
	case DevTokenMinted:
		b = entryHead(b, tagDevTokenMinted, e)
	case LimitRefusals:
		b = entryHead(b, tagLimitRefusals, e)
		b = binary.AppendVarint(b, int64(d.Count))
		b = varcodec.AppendLen(b, d.Limits == nil, len(d.Limits))
		for k, n := range d.Limits {
			b = varcodec.AppendString(b, k)
			b = binary.AppendVarint(b, int64(n))
		}
	case Unknown:
		b = entryHead(b, tagUnknown, e)
		b = varcodec.AppendString(b, string(d.Kind))
		b = varcodec.AppendLen(b, d.JSON == nil, len(d.JSON))
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
	return varcodec.AppendString(b, string(e.Principal))
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

// header reads the fields every entry has from the entry enc (its length prefix included),
// returning a reader at the detail's fields. The principal and an unknown kind alias enc.
func header(enc []byte) (r varcodec.Reader, tag byte, at time.Time, p []byte, kind []byte) {
	r = varcodec.NewReader(enc[min(len(enc), entryLenPrefix(enc)):])
	tag = r.Byte()
	sec := r.Int()
	nsec := r.Uvarint()
	p = r.RawString()
	if tag == tagUnknown {
		kind = r.RawString()
	}
	if nsec >= uint64(time.Second) || tag > tagUnknown {
		r.Fail()
	}
	if !r.Failed() {
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
	if r.Failed() {
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
		e.Detail = TurnAccepted{EpisodeID: r.String(), TurnID: r.String(), IdempotencyKeySHA256: r.String()}
	case tagRoutingDecision:
		d := RoutingDecision{TurnID: r.String(), Outcome: r.String(), Intents: r.Int(), Cap: r.String(), Dropped: r.Int()}
		if n, ok := r.Len(); ok {
			d.Agents = make([]AgentOutcome, n)
			for i := range d.Agents {
				d.Agents[i] = AgentOutcome{Agent: r.String(), Outcome: r.String()}
			}
		}
		e.Detail = d
	case tagEnvelopeSuppressed:
		e.Detail = EnvelopeSuppressed{TurnID: r.String(), Agent: r.String(), Enricher: r.String(), Reason: r.String()}
	case tagTurnCancelled:
		e.Detail = TurnCancelled{TurnID: r.String()}
	case tagServiceActed:
		e.Detail = ServiceActed{Service: r.String(), Method: r.String(), TaskID: r.String(), TraceID: r.String()}
	case tagDefinitionsReloaded:
		e.Detail = DefinitionsReloaded{Result: r.String(), Agents: r.Int(), Problems: r.Int()}
	case tagDevTokenMinted:
		e.Detail = DevTokenMinted{}
	case tagLimitRefusals:
		d := LimitRefusals{Count: r.Int()}
		if n, ok := r.Len(); ok {
			d.Limits = make(map[string]int, n)
			for range n {
				k := r.String()
				d.Limits[k] = r.Int()
			}
		}
		e.Detail = d
	case tagUnknown:
		u := Unknown{Kind: Type(kind)}
		if n, ok := r.Len(); ok {
			u.JSON = append(json.RawMessage{}, r.Bytes(uint64(n))...)
		}
		e.Detail = u
	}
	if r.Failed() || r.Left() != 0 {
		return Entry{}, errCorrupt
	}
	return e, nil
}
