package ccsdemo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// HeaderFault carries a per-request [Fault] as JSON, honoured only with
// [Options.AllowHeaderFaults]; for example X-Demo-Fault: {"status":"error"}.
const HeaderFault = "X-Demo-Fault"

// AnyEnricher as the enricher id of an injected fault applies it to every enricher that has no
// fault of its own.
const AnyEnricher = "*"

// Fault makes the demo CCS misbehave. Several fields can combine; they apply in this order:
// Latency (or Hang), then HTTPStatus, then the envelope changes (Status, WrongPrincipal,
// MajorBump), then the signature (BadSignature).
//
// Its JSON form uses snake_case keys (status, wrong_principal, bad_signature, latency,
// major_bump, http_status, hang, times) with latency as a Go duration string such as "250ms".
type Fault struct {
	// Status replaces the envelope status. "error" drops the payload and reports a critical
	// failed source; "partial" keeps the payload and reports a non-critical one; any other
	// value is sent as is (useful to exercise consumers' unknown-status handling).
	Status string
	// WrongPrincipal answers with another user's data, and that user as envelope principal.
	WrongPrincipal bool
	// BadSignature sends a well-formed signature made with the wrong key.
	BadSignature bool
	// Latency delays the answer; the request's context cuts it short.
	Latency time.Duration
	// MajorBump answers with payload schema version 2.0.0.
	MajorBump bool
	// HTTPStatus, when non-zero and not 200, answers with that status instead of an envelope,
	// with the body a real CCS would send: 400 missing_principal, 401 unauthorized, 403
	// principal_mismatch, 404 unknown_enricher, 429 rate_limited, 502/503/504 unavailable,
	// anything else internal.
	HTTPStatus int
	// Hang never answers: the handler waits until the request's context ends.
	Hang bool
	// Times limits an injected fault to the next Times calls of its enricher; 0 (or less)
	// keeps it until cleared. Per-request header faults ignore it.
	Times int
}

type faultJSON struct {
	Status         string          `json:"status,omitempty"`
	WrongPrincipal bool            `json:"wrong_principal,omitempty"`
	BadSignature   bool            `json:"bad_signature,omitempty"`
	Latency        json.RawMessage `json:"latency,omitempty"`
	MajorBump      bool            `json:"major_bump,omitempty"`
	HTTPStatus     int             `json:"http_status,omitempty"`
	Hang           bool            `json:"hang,omitempty"`
	Times          int             `json:"times,omitempty"`
}

// MarshalJSON writes the documented JSON form.
func (f Fault) MarshalJSON() ([]byte, error) {
	j := faultJSON{
		Status: f.Status, WrongPrincipal: f.WrongPrincipal, BadSignature: f.BadSignature,
		MajorBump: f.MajorBump, HTTPStatus: f.HTTPStatus, Hang: f.Hang, Times: f.Times,
	}
	if f.Latency != 0 {
		j.Latency, _ = json.Marshal(f.Latency.String())
	}
	return json.Marshal(j)
}

// faultWords are the one-word forms accepted by [ParseFault] and by a JSON string.
var faultWords = map[string]Fault{
	"error":           {Status: "error"},
	"partial":         {Status: "partial"},
	"wrong_principal": {WrongPrincipal: true},
	"bad_signature":   {BadSignature: true},
	"major_bump":      {MajorBump: true},
	"hang":            {Hang: true},
	"unavailable":     {HTTPStatus: 503},
	// The words eval datasets use for the same faults.
	"principal_mismatch": {WrongPrincipal: true},
	"timeout":            {Hang: true},
}

// FaultWords lists the one-word forms of a fault, for messages: "bad_signature, error, ...".
var FaultWords = strings.Join(slices.Sorted(maps.Keys(faultWords)), ", ")

// ParseFault reads a fault written either as its JSON object or as one word: error, partial,
// wrong_principal (or principal_mismatch), bad_signature, major_bump, hang (or timeout) or
// unavailable (HTTP 503). Eval datasets ("faults: {rewards: error}"), the X-Demo-Fault header
// and the dev endpoint's JSON use the word form; a config file's ccs.faults takes the fields
// of the object ("points.balance: {status: error}").
func ParseFault(s string) (Fault, error) {
	if f, ok := faultWords[strings.TrimSpace(s)]; ok {
		return f, nil
	}
	var f Fault
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		if !errors.Is(err, ErrFault) {
			err = fmt.Errorf("%w: unknown fault %q (one of %s, or a JSON object)", ErrFault, s, FaultWords)
		}
		return Fault{}, err
	}
	return f, nil
}

// UnmarshalJSON reads the documented JSON form, or a JSON string holding one of
// [ParseFault]'s words. Unknown keys are an error, so a typo in a test or eval fault does not
// silently inject nothing. Latency may also be a number of nanoseconds.
func (f *Fault) UnmarshalJSON(data []byte) error {
	var word string
	if json.Unmarshal(data, &word) == nil {
		w, ok := faultWords[word]
		if !ok {
			return fmt.Errorf("%w: unknown fault %q (one of %s, or a JSON object)", ErrFault, word, FaultWords)
		}
		*f = w
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var j faultJSON
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("%w: %w", ErrFault, err)
	}
	var latency time.Duration
	if len(j.Latency) > 0 && string(j.Latency) != "null" {
		var s string
		if err := json.Unmarshal(j.Latency, &s); err == nil {
			d, err := time.ParseDuration(s)
			if err != nil {
				return fmt.Errorf("%w: latency %q is not a duration (like 250ms or 2s)", ErrFault, s)
			}
			latency = d
		} else if err := json.Unmarshal(j.Latency, &latency); err != nil {
			return fmt.Errorf("%w: latency must be a duration string such as \"250ms\"", ErrFault)
		}
	}
	if latency < 0 || j.HTTPStatus < 0 || j.HTTPStatus > 599 {
		return fmt.Errorf("%w: negative latency or http status out of range", ErrFault)
	}
	*f = Fault{
		Status: j.Status, WrongPrincipal: j.WrongPrincipal, BadSignature: j.BadSignature,
		Latency: latency, MajorBump: j.MajorBump, HTTPStatus: j.HTTPStatus, Hang: j.Hang, Times: j.Times,
	}
	return nil
}

// faultSlot is an injected fault and how many more calls it applies to (-1: unlimited).
type faultSlot struct {
	fault Fault
	left  int
}

func newSlot(f Fault) faultSlot {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	return faultSlot{fault: f, left: left}
}

// Inject makes enricherID (or every enricher, with [AnyEnricher]) misbehave as f for every
// principal, replacing any fault injected for it before.
func (s *Server) Inject(enricherID string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[enricherID] = newSlot(f)
}

// InjectFor is Inject for the calls made on behalf of one principal only: other principals'
// calls are untouched. A principal's own fault for an enricher wins over one for everyone.
func (s *Server) InjectFor(principal, enricherID string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scoped[principal] == nil {
		s.scoped[principal] = make(map[string]faultSlot)
	}
	s.scoped[principal][enricherID] = newSlot(f)
}

// Clear removes every injected fault, including those from [Options.Faults] and every
// principal's own.
func (s *Server) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
	clear(s.scoped)
}

// ClearFor removes the faults injected for principal with [Server.InjectFor].
func (s *Server) ClearFor(principal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.scoped, principal)
}

// takeFault returns the fault that applies to one call of enricherID for principal and uses it
// up once: the principal's own fault first, then one for everyone.
func (s *Server) takeFault(principal, enricherID string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if own := s.scoped[principal]; own != nil {
		if f, ok := take(own, enricherID); ok {
			if len(own) == 0 {
				delete(s.scoped, principal)
			}
			return f, true
		}
	}
	return take(s.faults, enricherID)
}

// take uses up once the fault in faults for enricherID (or AnyEnricher); s.mu must be held.
func take(faults map[string]faultSlot, enricherID string) (Fault, bool) {
	id := enricherID
	slot, ok := faults[id]
	if !ok {
		id = AnyEnricher
		if slot, ok = faults[id]; !ok {
			return Fault{}, false
		}
	}
	if slot.left > 0 {
		slot.left--
		if slot.left == 0 {
			delete(faults, id)
		} else {
			faults[id] = slot
		}
	}
	return slot.fault, true
}
