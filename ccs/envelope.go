package ccs

import "encoding/json"

// Envelope statuses: the single decision boundary for a consumer.
const (
	StatusOK      = "ok"
	StatusPartial = "partial"
	StatusError   = "error"
)

// EnricherRequest asks one enricher for data on behalf of Principal.
type EnricherRequest struct {
	Principal  string         `json:"principal"`
	EnricherID string         `json:"enricher_id"`
	Params     map[string]any `json:"params,omitempty"`
	TraceID    string         `json:"trace_id,omitempty"`
}

// EnricherResponse is the envelope every enricher answers with.
type EnricherResponse[T any] struct {
	Status     string         `json:"status"`
	Principal  string         `json:"principal"`
	DomainType string         `json:"domain_type"`
	EnricherID string         `json:"enricher_id"`
	Version    string         `json:"version"`
	Payload    T              `json:"payload"`
	Partial    []FailedSource `json:"partial,omitempty"`
	CacheMeta  CacheMeta      `json:"cache_meta"`
	Signature  string         `json:"signature,omitempty"`
}

// RawResponse is an envelope whose payload is not yet typed.
type RawResponse = EnricherResponse[json.RawMessage]

// FailedSource names an upstream source that did not answer. Consumers never branch on it:
// the producer already folded criticality into Status.
type FailedSource struct {
	Source   string `json:"source"`
	Critical bool   `json:"critical"`
	Reason   string `json:"reason"`
}

// CacheMeta is observable only: it goes to spans, never into a decision.
type CacheMeta struct {
	Cached    bool   `json:"cached"`
	Cacheable bool   `json:"cacheable"`
	TTL       string `json:"ttl,omitempty"`
	Key       string `json:"key,omitempty"`
}
