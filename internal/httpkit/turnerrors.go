package httpkit

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// RetryUnavailable is the Retry-After, in seconds, of a 503 for a store outage: databases
// restart or release a lock within seconds.
const RetryUnavailable = "2"

// WriteTurnError answers for an error of the turn service with its HTTP status and code. What
// the client is told never includes the error's text, except an [orchestrator.InputError]'s,
// which is written for clients; anything unexpected is logged and answered 500.
func WriteTurnError(w http.ResponseWriter, r *http.Request, err error, log *slog.Logger) {
	var input *orchestrator.InputError
	var limit *orchestrator.LimitError
	switch {
	case errors.Is(err, orchestrator.ErrNotFound):
		WriteError(w, http.StatusNotFound, "not_found", "No such turn or episode.")
	case errors.Is(err, orchestrator.ErrRunningElsewhere):
		w.Header().Set("Retry-After", "1")
		WriteError(w, http.StatusConflict, "running_elsewhere", "This turn is running on another server and cannot be cancelled from here. Retry, or let it finish.")
	case errors.Is(err, orchestrator.ErrTurnFinished):
		WriteError(w, http.StatusConflict, "turn_finished", "This turn has already finished; there is nothing to cancel.")
	case errors.Is(err, orchestrator.ErrUnavailable):
		log.WarnContext(r.Context(), "store unavailable", "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", RetryUnavailable)
		WriteError(w, http.StatusServiceUnavailable, "unavailable", "The service cannot reach its storage right now. Please retry shortly.")
	case errors.As(err, &limit):
		WriteLimited(w, limit)
	case errors.Is(err, orchestrator.ErrInvalidText):
		WriteError(w, http.StatusBadRequest, "invalid_text", InvalidTextMessage)
	case errors.As(err, &input):
		code := "invalid_body"
		if input.Field == "message" {
			code = "invalid_message"
		}
		WriteError(w, http.StatusBadRequest, code, input.Error())
	case errors.Is(err, orchestrator.ErrConflict):
		WriteError(w, http.StatusConflict, "idempotency_conflict", "This Idempotency-Key was already used with a different request.")
	case errors.Is(err, r.Context().Err()) && r.Context().Err() != nil:
		WriteError(w, 499, "client_closed", "The request was cancelled.")
	default:
		log.ErrorContext(r.Context(), "request failed", "path", r.URL.Path, "err", err)
		WriteError(w, http.StatusInternalServerError, "internal", Internal)
	}
}
