package breaker

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ccs"
)

// CCS is the context service as [Enricher] wraps it; *ccs.Client implements it.
type CCS interface {
	Enrich(ctx context.Context, req ccs.EnricherRequest) (*ccs.RawResponse, error)
}

var _ CCS = (*ccs.Client)(nil)

// Enricher puts a breaker in front of each enricher of a CCS (target "ccs:<enricher id>"): an
// enricher that keeps failing is refused at once while the others are still called.
type Enricher struct {
	set  *Set
	next CCS
}

var _ CCS = (*Enricher)(nil)

// NewEnricher wraps next with set's breakers.
func NewEnricher(set *Set, next CCS) *Enricher { return &Enricher{set: set, next: next} }

// EnricherTarget names an enricher's breaker.
func EnricherTarget(enricherID string) string { return "ccs:" + enricherID }

// Enrich calls next unless the enricher's breaker is open. A refused call fails at once with
// an error wrapping both [ccs.ErrUnavailable], so that it reads as "data unavailable" like any
// other outage, and [ErrOpen].
func (e *Enricher) Enrich(ctx context.Context, req ccs.EnricherRequest) (*ccs.RawResponse, error) {
	target := EnricherTarget(req.EnricherID)
	var resp *ccs.RawResponse
	err := e.set.Do(target, func(err error) Verdict { return ccsVerdict(ctx, err) }, func() error {
		var err error
		resp, err = e.next.Enrich(ctx, req)
		return err
	})
	if errors.Is(err, ErrOpen) {
		refused(ctx, target)
		return nil, fmt.Errorf("%w: %w", ccs.ErrUnavailable, err)
	}
	return resp, err
}

// ccsVerdict counts what shows the enricher down or broken: no answer (transport failure,
// timeout, a status other than 200) or an answer that is not an envelope. A refused principal
// is an answer; a request never sent, or one the caller cancelled, says nothing.
func ccsVerdict(ctx context.Context, err error) Verdict {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return Neutral
	case errors.Is(err, ccs.ErrUnavailable), errors.Is(err, ccs.ErrMalformed):
		return Failure
	case errors.Is(err, ccs.ErrInvalidRequest), errors.Is(err, ccs.ErrMissingPrincipal):
		return Neutral
	}
	return Success
}

// refused marks the span of a call that its breaker refused.
func refused(ctx context.Context, target string) {
	trace.SpanFromContext(ctx).AddEvent("breaker.open", trace.WithAttributes(attribute.String("breaker.target", target)))
}
