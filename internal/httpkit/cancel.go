package httpkit

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
)

// Canceller cancels a principal's turn; [orchestrator.Service] is one.
type Canceller interface {
	Cancel(ctx context.Context, p principal.Principal, turnID string) error
}

// ClientLeft reports whether a request ended because its client went away: a server shutting
// down is not a client leaving, and its turns get their grace period to finish.
func ClientLeft(reqCtx context.Context) bool {
	return reqCtx.Err() != nil && !errors.Is(context.Cause(reqCtx), ErrShuttingDown)
}

// CancelIfLeft implements turns.cancel_on_disconnect for a stream that has ended: when its
// client went away, the turn, if it still runs, is cancelled.
func CancelIfLeft(reqCtx context.Context, svc Canceller, p principal.Principal, turnID string, log *slog.Logger) {
	if ClientLeft(reqCtx) {
		CancelIfRunning(context.WithoutCancel(reqCtx), svc, p, turnID, log)
	}
}

// CancelIfRunning cancels turnID unless it has already ended.
func CancelIfRunning(ctx context.Context, svc Canceller, p principal.Principal, turnID string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := svc.Cancel(ctx, p, turnID); err != nil && !errors.Is(err, orchestrator.ErrNotFound) && !errors.Is(err, orchestrator.ErrTurnFinished) {
		log.WarnContext(ctx, "cancel on disconnect", "turn_id", turnID, "err", err)
	}
}
