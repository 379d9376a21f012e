package ccs

import "github.com/switchboard-ai/switchboard/principal"

// Kind is what a consumer may do with an envelope.
type Kind int

const (
	// Unavailable: suppress the payload and tell the LLM the data is unavailable. It is the
	// zero value so that a forgotten verdict fails closed.
	Unavailable Kind = iota
	// Use: pass the payload on.
	Use
	// UseWithCaveat: pass the payload on, noting that it may be incomplete.
	UseWithCaveat
)

func (k Kind) String() string {
	switch k {
	case Use:
		return "use"
	case UseWithCaveat:
		return "use_with_caveat"
	default:
		return "unavailable"
	}
}

// Reason says why [Check] reached its verdict. The values are stable identifiers for metrics
// and logs, never text for users.
type Reason string

const (
	ReasonOK                Reason = "ok"
	ReasonPartial           Reason = "partial"
	ReasonStatusError       Reason = "status_error"
	ReasonPrincipalMismatch Reason = "principal_mismatch"
	ReasonBadSignature      Reason = "bad_signature"
	ReasonVersionMismatch   Reason = "version_mismatch"
	ReasonMalformed         Reason = "malformed"
	ReasonUnknownStatus     Reason = "unknown_status"
)

// Verdict is the outcome of [Check].
type Verdict struct {
	Kind   Kind
	Reason Reason
}

// Usable reports whether the payload may reach the LLM (Use or UseWithCaveat).
func (v Verdict) Usable() bool { return v.Kind == Use || v.Kind == UseWithCaveat }

// DefaultSupportedMajor is the payload schema major version accepted for a domain type that
// [CheckOptions.SupportedMajor] does not list.
const DefaultSupportedMajor = 1

// CheckOptions configures [Check].
type CheckOptions struct {
	// SigningKey, when non-empty, makes a valid signature mandatory.
	SigningKey []byte
	// SupportedMajor gives, per domain_type, the payload major version this consumer
	// understands; unlisted types use [DefaultSupportedMajor].
	SupportedMajor map[string]int
}

// Check decides what the consumer acting for invoking may do with resp. It runs these gates in
// order and stops at the first that fails:
//
//  1. signature, when opts.SigningKey is set: missing or invalid → Unavailable, bad_signature;
//  2. principal: [principal.Check] (exact match, neither side empty) → otherwise Unavailable,
//     principal_mismatch. This is a security incident for the caller to count and alert on;
//     it must not retry;
//  3. version: resp.Version must be semver; unparseable → Unavailable, malformed; a major
//     other than the supported one for resp.DomainType → Unavailable, version_mismatch. Minor
//     and patch skew is tolerated;
//  4. status, the single decision boundary: "ok" → Use; "partial" → UseWithCaveat; "error" →
//     Unavailable, status_error; anything else → Unavailable, unknown_status.
//
// Check never looks at Partial[] or CacheMeta: the producer already folded source
// criticality into Status, and re-deciding here would let the two drift apart. A nil resp is
// Unavailable, malformed.
func Check(resp *RawResponse, invoking principal.Principal, opts CheckOptions) Verdict {
	if resp == nil {
		return unavailable(ReasonMalformed)
	}
	if len(opts.SigningKey) > 0 {
		if err := VerifySignature(resp, opts.SigningKey); err != nil {
			return unavailable(ReasonBadSignature)
		}
	}
	if principal.Check(resp.Principal, invoking) != nil {
		return unavailable(ReasonPrincipalMismatch)
	}
	major, err := parseMajor(resp.Version)
	if err != nil {
		return unavailable(ReasonMalformed)
	}
	supported, ok := opts.SupportedMajor[resp.DomainType]
	if !ok {
		supported = DefaultSupportedMajor
	}
	if major != supported {
		return unavailable(ReasonVersionMismatch)
	}
	switch resp.Status {
	case StatusOK:
		return Verdict{Kind: Use, Reason: ReasonOK}
	case StatusPartial:
		return Verdict{Kind: UseWithCaveat, Reason: ReasonPartial}
	case StatusError:
		return unavailable(ReasonStatusError)
	default:
		return unavailable(ReasonUnknownStatus)
	}
}

func unavailable(r Reason) Verdict { return Verdict{Kind: Unavailable, Reason: r} }
