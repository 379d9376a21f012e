package web

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// ErrShuttingDown is the cause with which the server's base context is cancelled on a graceful
// shutdown (see http.Server.BaseContext): streams end, but turns are not treated as abandoned.
var ErrShuttingDown = errors.New("web: server shutting down")

// apiError is the JSON error body: {"error":{"code","message"}}. Messages are written for
// clients; causes stay in logs.
type apiError struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func abort(c *gin.Context, status int, code, message string) {
	c.AbortWithStatusJSON(status, apiError{Error: errorBody{Code: code, Message: message}})
}

// retryUnavailable is the Retry-After, in seconds, of a 503 for a store outage: databases
// restart or release a lock within seconds.
const retryUnavailable = "2"

// invalidTextMessage answers text that no store can hold as sent.
const invalidTextMessage = "Text and ids must be valid UTF-8 without NUL bytes."

// abortErr maps a domain error to its HTTP status.
func (s *server) abortErr(c *gin.Context, err error) {
	var input *orchestrator.InputError
	switch {
	case errors.Is(err, orchestrator.ErrNotFound):
		abort(c, http.StatusNotFound, "not_found", "No such turn or episode.")
	case errors.Is(err, orchestrator.ErrRunningElsewhere):
		c.Header("Retry-After", "1")
		abort(c, http.StatusConflict, "running_elsewhere", "This turn is running on another server and cannot be cancelled from here. Retry, or let it finish.")
	case errors.Is(err, orchestrator.ErrTurnFinished):
		abort(c, http.StatusConflict, "turn_finished", "This turn has already finished; there is nothing to cancel.")
	case errors.Is(err, orchestrator.ErrUnavailable):
		s.log.WarnContext(c.Request.Context(), "store unavailable", "path", c.FullPath(), "err", err)
		c.Header("Retry-After", retryUnavailable)
		abort(c, http.StatusServiceUnavailable, "unavailable", "The service cannot reach its storage right now. Please retry shortly.")
	case errors.Is(err, orchestrator.ErrRateLimited):
		s.abortLimited(c, err)
	case errors.Is(err, orchestrator.ErrInvalidText):
		abort(c, http.StatusBadRequest, "invalid_text", invalidTextMessage)
	case errors.As(err, &input):
		code := "invalid_body"
		if input.Field == "message" {
			code = "invalid_message"
		}
		abort(c, http.StatusBadRequest, code, input.Error())
	case errors.Is(err, orchestrator.ErrConflict):
		abort(c, http.StatusConflict, "idempotency_conflict", "This Idempotency-Key was already used with a different request.")
	case errors.Is(err, c.Request.Context().Err()) && c.Request.Context().Err() != nil:
		abort(c, 499, "client_closed", "The request was cancelled.")
	default:
		s.log.ErrorContext(c.Request.Context(), "request failed", "path", c.FullPath(), "err", err)
		abort(c, http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again.")
	}
}
