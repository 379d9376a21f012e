package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/principal"
)

// Type names a kind of entry; the values are stable, for `switchboard audit --type`.
type Type string

const (
	TypeTurnAccepted        Type = "turn_accepted"
	TypeRoutingDecision     Type = "routing_decision"
	TypeEnvelopeSuppressed  Type = "envelope_suppressed"
	TypeTurnCancelled       Type = "turn_cancelled"
	TypeServiceActed        Type = "service_acted_for_user"
	TypeDefinitionsReloaded Type = "definitions_reloaded"
	TypeDevTokenMinted      Type = "dev_token_minted"
	TypeLimitRefusals       Type = "limit_refusals"
)

// Types are the kinds of entry this version writes, in the order a reader meets them in a
// turn's life.
var Types = []Type{
	TypeTurnAccepted, TypeRoutingDecision, TypeEnvelopeSuppressed, TypeTurnCancelled,
	TypeServiceActed, TypeDefinitionsReloaded, TypeDevTokenMinted, TypeLimitRefusals,
}

// timePrecision is what both databases keep of a time; every store returns times in UTC to it.
const timePrecision = time.Microsecond

// Entry is one line of the audit log.
type Entry struct {
	// Seq orders the log; the store assigns it, and it is 0 on an entry not yet written.
	Seq  int64
	Time time.Time
	// Principal is the user the entry concerns: the one whose turn it is, for whom a service
	// acted, whose token was minted. Empty for what concerns nobody in particular (a reload).
	Principal principal.Principal
	Detail    Detail
}

// Type is the kind of the entry, from its detail.
func (e Entry) Type() Type {
	if e.Detail == nil {
		return ""
	}
	return e.Detail.Type()
}

// Detail is what an entry records beyond when and whom. It is one of the types in this
// file; [Unknown] stands for a kind a newer version wrote.
type Detail interface {
	Type() Type
	// bounded returns the detail with every string safe to store: bounded in length and free
	// of control characters, whatever a caller passed on.
	bounded() Detail
}

// TurnAccepted records a turn the service stored and started.
type TurnAccepted struct {
	EpisodeID string `json:"episode_id"`
	TurnID    string `json:"turn_id"`
	// IdempotencyKeySHA256 is the hex SHA-256 of the client's idempotency key, empty when it
	// sent none: enough to tie a retry to its turn without keeping the key.
	IdempotencyKeySHA256 string `json:"idempotency_key_sha256,omitempty"`
}

// RoutingDecision records whom a turn asked and how each answered, once the turn ended.
type RoutingDecision struct {
	TurnID  string `json:"turn_id"`
	Outcome string `json:"outcome"` // the turn's: ok, degraded, failed or cancelled
	Intents int    `json:"intents"` // tool calls the orchestrator's model made
	Cap     string `json:"cap"`     // within, at or over the fan-out cap
	Dropped int    `json:"dropped,omitempty"`
	// Agents are the sub-agents invoked, in call order.
	Agents []AgentOutcome `json:"agents"`
}

// AgentOutcome is one invoked sub-agent's outcome.
type AgentOutcome struct {
	Agent   string `json:"agent"`
	Outcome string `json:"outcome"`
}

// EnvelopeSuppressed records a CCS envelope that never reached a model.
type EnvelopeSuppressed struct {
	TurnID   string `json:"turn_id"`
	Agent    string `json:"agent"`
	Enricher string `json:"enricher"`
	// Reason is principal_mismatch, bad_signature or version_mismatch.
	Reason string `json:"reason"`
}

// TurnCancelled records a running turn its user (or a disconnect, when so configured)
// cancelled.
type TurnCancelled struct {
	TurnID string `json:"turn_id"`
}

// ServiceActed records a trusted service acting for the entry's principal over A2A.
type ServiceActed struct {
	Service string `json:"service"`
	Method  string `json:"method"`
	// TaskID is the task the request started or named, empty when there was none.
	TaskID  string `json:"task_id,omitempty"`
	TraceID string `json:"trace_id,omitempty"`
}

// DefinitionsReloaded records a reload of the agents folder.
type DefinitionsReloaded struct {
	// Result is ok (the new set is in use) or error (the last good set stays).
	Result string `json:"result"`
	// Agents counts the definitions (one file each) in use after the reload.
	Agents int `json:"agents"`
	// Problems counts what was wrong with the folder when the reload failed.
	Problems int `json:"problems,omitempty"`
}

// DevTokenMinted records a dev-mode token minted for the entry's principal; the token itself
// is never recorded.
type DevTokenMinted struct{}

// LimitRefusals counts the requests of the entry's principal refused for a limit during the
// minute that starts at the entry's time.
type LimitRefusals struct {
	Count int `json:"count"`
	// Limits splits Count by the limit refused for (turns_per_minute, streams_per_principal...).
	Limits map[string]int `json:"limits"`
}

// Unknown is a detail of a kind this version does not know, as stored.
type Unknown struct {
	Kind Type
	JSON json.RawMessage
}

func (TurnAccepted) Type() Type        { return TypeTurnAccepted }
func (RoutingDecision) Type() Type     { return TypeRoutingDecision }
func (EnvelopeSuppressed) Type() Type  { return TypeEnvelopeSuppressed }
func (TurnCancelled) Type() Type       { return TypeTurnCancelled }
func (ServiceActed) Type() Type        { return TypeServiceActed }
func (DefinitionsReloaded) Type() Type { return TypeDefinitionsReloaded }
func (DevTokenMinted) Type() Type      { return TypeDevTokenMinted }
func (LimitRefusals) Type() Type       { return TypeLimitRefusals }

// Type is the kind the stored entry named.
func (u Unknown) Type() Type { return u.Kind }

// MarshalJSON writes the detail as it was stored.
func (u Unknown) MarshalJSON() ([]byte, error) {
	if len(u.JSON) == 0 {
		return []byte("{}"), nil
	}
	return u.JSON, nil
}

func (d TurnAccepted) bounded() Detail {
	d.EpisodeID, d.TurnID, d.IdempotencyKeySHA256 = clip(d.EpisodeID), clip(d.TurnID), clip(d.IdempotencyKeySHA256)
	return d
}

func (d RoutingDecision) bounded() Detail {
	d.TurnID, d.Outcome, d.Cap = clip(d.TurnID), clip(d.Outcome), clip(d.Cap)
	agents := make([]AgentOutcome, len(d.Agents))
	for i, a := range d.Agents {
		agents[i] = AgentOutcome{Agent: clip(a.Agent), Outcome: clip(a.Outcome)}
	}
	d.Agents = agents
	return d
}

func (d EnvelopeSuppressed) bounded() Detail {
	d.TurnID, d.Agent, d.Enricher, d.Reason = clip(d.TurnID), clip(d.Agent), clip(d.Enricher), clip(d.Reason)
	return d
}

func (d TurnCancelled) bounded() Detail { d.TurnID = clip(d.TurnID); return d }

func (d ServiceActed) bounded() Detail {
	d.Service, d.Method, d.TaskID, d.TraceID = clip(d.Service), clip(d.Method), clip(d.TaskID), clip(d.TraceID)
	return d
}

func (d DefinitionsReloaded) bounded() Detail { d.Result = clip(d.Result); return d }
func (d DevTokenMinted) bounded() Detail      { return d }

func (d LimitRefusals) bounded() Detail {
	limits := make(map[string]int, len(d.Limits))
	for k, n := range d.Limits {
		limits[clip(k)] += n
	}
	d.Limits = limits
	return d
}

func (u Unknown) bounded() Detail { return u }

// maxField bounds every string an entry stores, the principal too: ids, names and reasons are
// far shorter, and whatever is longer was not one.
const maxField = 256

// printableASCII reports whether s is all printable ASCII (space to tilde): valid UTF-8 with
// no control character.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// clip makes s safe to store and print on one line: valid UTF-8, without control
// characters, at most maxField bytes.
func clip(s string) string {
	if len(s) <= maxField && printableASCII(s) {
		return s // ids, outcomes and names: one pass over the bytes, no rune decoding
	}
	ok := len(s) <= maxField && utf8.ValidString(s)
	for _, r := range s {
		if unicode.IsControl(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) {
			r = '\uFFFD'
		}
		if b.Len()+utf8.RuneLen(r) > maxField {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EncodeDetail is the JSON a store keeps for d.
func EncodeDetail(d Detail) ([]byte, error) {
	if d == nil {
		return nil, fmt.Errorf("audit: entry without detail")
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("audit: encode %s: %w", d.Type(), err)
	}
	return b, nil
}

// DecodeDetail reads back what [EncodeDetail] wrote for a detail of type t. A type this
// version does not know comes back as [Unknown], so that a reader older than the writer still
// lists every entry.
func DecodeDetail(t Type, data []byte) (Detail, error) {
	var d Detail
	switch t {
	case TypeTurnAccepted:
		d = decodeAs[TurnAccepted](data)
	case TypeRoutingDecision:
		d = decodeAs[RoutingDecision](data)
	case TypeEnvelopeSuppressed:
		d = decodeAs[EnvelopeSuppressed](data)
	case TypeTurnCancelled:
		d = decodeAs[TurnCancelled](data)
	case TypeServiceActed:
		d = decodeAs[ServiceActed](data)
	case TypeDefinitionsReloaded:
		d = decodeAs[DefinitionsReloaded](data)
	case TypeDevTokenMinted:
		d = decodeAs[DevTokenMinted](data)
	case TypeLimitRefusals:
		d = decodeAs[LimitRefusals](data)
	default:
		if !json.Valid(data) {
			return nil, fmt.Errorf("audit: %s detail is not JSON", t)
		}
		return Unknown{Kind: t, JSON: append(json.RawMessage(nil), data...)}, nil
	}
	if d == nil {
		return nil, fmt.Errorf("audit: %s detail does not decode", t)
	}
	return d, nil
}

// decodeAs decodes data into a T, or returns nil.
func decodeAs[T Detail](data []byte) Detail {
	var v T
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	return v
}

// entryJSON is an entry's form in `switchboard audit --json`, one object a line.
type entryJSON struct {
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Type      Type            `json:"type"`
	Principal string          `json:"principal,omitempty"`
	Detail    json.RawMessage `json:"detail"`
}

// MarshalJSON writes the entry as one object: seq, time, type, principal and detail.
func (e Entry) MarshalJSON() ([]byte, error) {
	detail, err := EncodeDetail(e.Detail)
	if err != nil {
		return nil, err
	}
	return json.Marshal(entryJSON{Seq: e.Seq, Time: e.Time, Type: e.Type(), Principal: string(e.Principal), Detail: detail})
}

// UnmarshalJSON reads what [Entry.MarshalJSON] wrote.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var w entryJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	d, err := DecodeDetail(w.Type, w.Detail)
	if err != nil {
		return err
	}
	*e = Entry{Seq: w.Seq, Time: w.Time, Principal: principal.Principal(w.Principal), Detail: d}
	return nil
}

// Recorder appends entries to the audit log: all of them or none, each given the next Seq in
// order. Entries are never changed or removed once appended. AppendAudit must not keep the
// slice it is given: the caller reuses it.
type Recorder interface {
	AppendAudit(ctx context.Context, entries []Entry) error
}

// Reader reads the audit log.
type Reader interface {
	// ReadAudit returns the entries q selects, in Seq order, at most q.Limit of them (or
	// [DefaultLimit]); a caller pages on with q.After set to the last Seq it got.
	ReadAudit(ctx context.Context, q Query) ([]Entry, error)
}

// DefaultLimit is how many entries one [Reader.ReadAudit] returns when the query says none;
// MaxLimit bounds what a query may ask.
const (
	DefaultLimit = 500
	MaxLimit     = 10000
)

// Query selects entries; its zero value selects every one.
type Query struct {
	After     int64     // only entries with a larger Seq
	Since     time.Time // only entries at or after this time, to the microsecond; zero for all
	Principal principal.Principal
	Type      Type
	Limit     int
}

// Match reports whether q selects e, Limit aside.
func (q Query) Match(e Entry) bool {
	return e.Seq > q.After &&
		(q.Since.IsZero() || !e.Time.Before(q.Since.Truncate(timePrecision))) &&
		(q.Principal == "" || e.Principal == q.Principal) &&
		(q.Type == "" || e.Type() == q.Type)
}

// PageSize is the number of entries q asks for, within [1, MaxLimit].
func (q Query) PageSize() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}
