package ccs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

// Registry maps (domain_type, enricher_id) to the Go type of the payload, so a raw envelope can
// be turned into a typed one. Register everything at start-up; lookups are safe for concurrent
// use with each other and with late registrations.
type Registry struct {
	mu      sync.RWMutex
	entries map[registryKey]registryEntry
}

type registryKey struct{ domainType, enricherID string }

type registryEntry struct {
	typ    reflect.Type
	decode func(json.RawMessage) (any, error)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{entries: make(map[registryKey]registryEntry)}
}

// Register records T as the payload type of envelopes with the given domain type and enricher
// id. Registering the same pair twice fails with [ErrDuplicateRegistration], even with the same
// T, since it most likely means two verticals claimed one enricher.
func Register[T any](r *Registry, domainType, enricherID string) error {
	if domainType == "" || enricherID == "" {
		return fmt.Errorf("%w: empty domain type or enricher id", ErrInvalidConfig)
	}
	k := registryKey{domainType, enricherID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.entries[k]; ok {
		return fmt.Errorf("%w: (%s, %s) already maps to %v", ErrDuplicateRegistration, domainType, enricherID, prev.typ)
	}
	r.entries[k] = registryEntry{
		typ: reflect.TypeFor[T](),
		decode: func(raw json.RawMessage) (any, error) {
			v, err := decodePayload[T](raw)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	}
	return nil
}

// Decode turns resp's payload into a new value of the type registered for its
// (domain_type, enricher_id), returned as that type (T, not *T). An unknown pair fails with
// [ErrUnregistered]; a payload that does not fit T with [ErrMalformed]. Decode does not judge
// the envelope: call [Check] first.
func (r *Registry) Decode(resp *RawResponse) (any, error) {
	e, err := r.lookup(resp)
	if err != nil {
		return nil, err
	}
	return e.decode(resp.Payload)
}

// Unwrap is the typed form of [Registry.Decode]: it returns a copy of resp whose payload is
// decoded into T. It fails with [ErrUnregistered] when the pair is unknown or was registered
// with a type other than T, and with [ErrMalformed] when the payload does not fit T.
func Unwrap[T any](r *Registry, resp *RawResponse) (*EnricherResponse[T], error) {
	e, err := r.lookup(resp)
	if err != nil {
		return nil, err
	}
	if want := reflect.TypeFor[T](); e.typ != want {
		return nil, fmt.Errorf("%w: (%s, %s) is registered as %v, not %v", ErrUnregistered, resp.DomainType, resp.EnricherID, e.typ, want)
	}
	payload, err := decodePayload[T](resp.Payload)
	if err != nil {
		return nil, err
	}
	return &EnricherResponse[T]{
		Status:     resp.Status,
		Principal:  resp.Principal,
		DomainType: resp.DomainType,
		EnricherID: resp.EnricherID,
		Version:    resp.Version,
		Payload:    payload,
		Partial:    append([]FailedSource(nil), resp.Partial...),
		CacheMeta:  resp.CacheMeta,
		Signature:  resp.Signature,
	}, nil
}

func (r *Registry) lookup(resp *RawResponse) (registryEntry, error) {
	if resp == nil {
		return registryEntry{}, fmt.Errorf("%w: nil envelope", ErrMalformed)
	}
	r.mu.RLock()
	e, ok := r.entries[registryKey{resp.DomainType, resp.EnricherID}]
	r.mu.RUnlock()
	if !ok {
		return registryEntry{}, fmt.Errorf("%w: (%q, %q)", ErrUnregistered, resp.DomainType, resp.EnricherID)
	}
	return e, nil
}

// decodePayload is strict about shape and lenient about additions: a payload must be one JSON
// value whose types fit T, with nothing after it, but unknown object fields are ignored because a
// newer minor version of the schema may add them (same-major skew is tolerated by contract). An
// absent or null payload yields T's zero value.
func decodePayload[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(bytes.TrimSpace(raw)) == 0 {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&v); err != nil {
		var zero T
		return zero, fmt.Errorf("%w: payload: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var zero T
		return zero, fmt.Errorf("%w: trailing data after payload", ErrMalformed)
	}
	return v, nil
}
