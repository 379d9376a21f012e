package subagents

import (
	"context"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/principal"
)

// Suppression is a CCS envelope kept from the model for a reason that concerns more than
// one call: it named another principal (ccs.ReasonPrincipalMismatch), its signature did not
// verify (ccs.ReasonBadSignature), or its major version is not one this service reads
// (ccs.ReasonVersionMismatch). It carries no payload.
type Suppression struct {
	// Principal is the user the sub-agent acted for, not the one the envelope named.
	Principal principal.Principal
	TurnID    string
	Agent     string
	Enricher  string
	Reason    ccs.Reason
}

// WithOnSuppressed has fn told of every [Suppression], for the audit log. fn runs on the
// sub-agent's path and must return at once.
func WithOnSuppressed(fn func(ctx context.Context, s Suppression)) Option {
	return func(o *options) { o.onSuppressed = fn }
}

// suppressed reports a suppression of the invocation's envelope from enricher, if anyone
// listens.
func (r *invocation) suppressed(ctx context.Context, enricher string, reason ccs.Reason) {
	if r.a.opts.onSuppressed == nil {
		return
	}
	in := r.req.Inherited
	r.a.opts.onSuppressed(ctx, Suppression{Principal: in.Principal, TurnID: in.TurnID, Agent: r.a.def.ID, Enricher: enricher, Reason: reason})
}
