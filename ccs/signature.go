package ccs

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Envelope signatures follow the context service's signing scheme: a lowercase hex
// HMAC-SHA256, keyed with a secret shared by producer and consumer, over the canonical form of
// the envelope.
//
// The canonical form is the UTF-8 JSON object produced from the envelope's decoded fields with
// these rules, so both sides compute it from what they hold rather than from bytes on the wire:
//
//   - members in this order: status, principal, domain_type, enricher_id, version, payload,
//     partial, cache_meta; signature is left out;
//   - partial is left out when it has no entries; inside cache_meta, ttl and key are left out
//     when empty; all other members are always present;
//   - strings are encoded as encoding/json does but without HTML escaping (<, > and & stay
//     literal);
//   - payload is the payload's JSON text as received with insignificant whitespace removed
//     (json.Compact); keys are not reordered and escapes are not rewritten; an absent payload
//     is null;
//   - no whitespace between tokens and no trailing newline.
//
// Binding principal and status into the MAC is the point: a tampered owner or a flipped
// "error" to "ok" no longer verifies.

// canonicalEnvelope mirrors EnricherResponse's JSON without the signature; keep the field
// order in step with the documented canonical form.
type canonicalEnvelope struct {
	Status     string          `json:"status"`
	Principal  string          `json:"principal"`
	DomainType string          `json:"domain_type"`
	EnricherID string          `json:"enricher_id"`
	Version    string          `json:"version"`
	Payload    json.RawMessage `json:"payload"`
	Partial    []FailedSource  `json:"partial,omitempty"`
	CacheMeta  CacheMeta       `json:"cache_meta"`
}

// Canonical returns the bytes that [Sign] and [VerifySignature] MAC. It fails with
// [ErrMalformed] when the payload is not valid JSON.
func Canonical(resp *RawResponse) ([]byte, error) {
	if resp == nil {
		return nil, fmt.Errorf("%w: nil envelope", ErrMalformed)
	}
	payload := json.RawMessage("null")
	if len(bytes.TrimSpace(resp.Payload)) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, resp.Payload); err != nil {
			return nil, fmt.Errorf("%w: payload: %w", ErrMalformed, err)
		}
		payload = buf.Bytes()
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	err := enc.Encode(canonicalEnvelope{
		Status:     resp.Status,
		Principal:  resp.Principal,
		DomainType: resp.DomainType,
		EnricherID: resp.EnricherID,
		Version:    resp.Version,
		Payload:    payload,
		Partial:    resp.Partial,
		CacheMeta:  resp.CacheMeta,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// Sign returns the hex HMAC-SHA256 of resp's canonical form under key; it does not modify resp.
func Sign(resp *RawResponse, key []byte) (string, error) {
	if len(key) == 0 {
		return "", fmt.Errorf("%w: empty signing key", ErrInvalidConfig)
	}
	mac, err := macOf(resp, key)
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(mac), nil
}

// VerifySignature checks resp.Signature against resp's canonical form under key, in constant
// time. A missing, non-hex or wrong signature fails with [ErrBadSignature].
func VerifySignature(resp *RawResponse, key []byte) error {
	if len(key) == 0 {
		return fmt.Errorf("%w: empty signing key", ErrInvalidConfig)
	}
	if resp == nil || resp.Signature == "" {
		return fmt.Errorf("%w: missing", ErrBadSignature)
	}
	got, err := hex.DecodeString(resp.Signature)
	if err != nil {
		return fmt.Errorf("%w: not hex", ErrBadSignature)
	}
	want, err := macOf(resp, key)
	if err != nil {
		return errors.Join(ErrBadSignature, err)
	}
	if !hmac.Equal(got, want) {
		return fmt.Errorf("%w: mismatch", ErrBadSignature)
	}
	return nil
}

func macOf(resp *RawResponse, key []byte) ([]byte, error) {
	c, err := Canonical(resp)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(c)
	return m.Sum(nil), nil
}
