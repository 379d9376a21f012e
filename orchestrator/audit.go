package orchestrator

import (
	"context"

	"github.com/switchboard-ai/switchboard/principal"
)

// Auditor is told what the [Service] did for whom, for the audit log. Its methods run on the
// turn's path: they must return at once and never fail the turn (a recorder that cannot write
// deals with that itself). The records it receives carry the user's message and the reply;
// an auditor keeps only identifiers and outcomes.
type Auditor interface {
	// TurnAccepted: rec was stored and starts running (not a repeat of an idempotency key).
	TurnAccepted(ctx context.Context, rec TurnRecord)
	// TurnEnded: rec ended with rec.Outcome, routed as rec.Decision says.
	TurnEnded(ctx context.Context, rec TurnRecord)
	// TurnCancelled: p cancelled its turn while it ran here.
	TurnCancelled(ctx context.Context, p principal.Principal, turnID string)
}

// nopAuditor is the Auditor of a service configured without one.
type nopAuditor struct{}

func (nopAuditor) TurnAccepted(context.Context, TurnRecord)                   {}
func (nopAuditor) TurnEnded(context.Context, TurnRecord)                      {}
func (nopAuditor) TurnCancelled(context.Context, principal.Principal, string) {}
