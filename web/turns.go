package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// turnRequest is the body of POST /v1/turns.
type turnRequest struct {
	EpisodeID string `json:"episode_id"`
	Message   string `json:"message"`
	Locale    string `json:"locale"`
	Location  string `json:"location"`
}

// turnCreated is the 202 body of POST /v1/turns.
type turnCreated struct {
	TurnID    string `json:"turn_id"`
	EpisodeID string `json:"episode_id"`
	EventsURL string `json:"events_url"`
}

// badRequest is a client mistake, worded for the client.
type badRequest struct {
	status  int
	code    string
	message string
}

// decodeTurnRequest reads and checks a turn body, saying exactly what is wrong.
func decodeTurnRequest(r io.Reader) (turnRequest, *badRequest) {
	var req turnRequest
	bad := func(code, msg string) (turnRequest, *badRequest) {
		return req, &badRequest{status: http.StatusBadRequest, code: code, message: msg}
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return req, &badRequest{status: http.StatusRequestEntityTooLarge, code: "too_large", message: "The request body is too large."}
		case bodyTimedOut(err):
			return req, &badRequest{status: http.StatusRequestTimeout, code: "request_timeout", message: "The request body did not arrive in time."}
		case errors.Is(err, io.EOF):
			return bad("invalid_body", `The body must be JSON like {"message": "..."}.`)
		}
		return bad("invalid_body", "The body is not valid JSON for a turn: "+jsonProblem(err)+".")
	}
	if dec.More() {
		return bad("invalid_body", "The body must hold one JSON object.")
	}
	req.Message = strings.TrimSpace(req.Message)
	if err := orchestrator.CheckMessage(req.Message); err != nil {
		return bad("invalid_message", err.Error())
	}
	return req, nil
}

// jsonProblem describes a decoding error without echoing the body.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "syntax error"
	case errors.As(err, &typ):
		return "field " + typ.Field + " has the wrong type"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "malformed"
}

func (s *server) postTurn(c *gin.Context) {
	req, bad := decodeTurnRequest(c.Request.Body)
	if bad != nil {
		abort(c, bad.status, bad.code, bad.message)
		return
	}
	key := c.GetHeader("Idempotency-Key")
	if len(key) > 200 {
		abort(c, http.StatusBadRequest, "invalid_idempotency_key", "Idempotency-Key is longer than 200 characters.")
		return
	}
	p := principalOf(c)
	var slot *streamSlot
	if wantsEventStream(c.Request) {
		// Refuse the stream before the turn starts, or the turn would run unseen.
		if slot = s.openStream(c, ""); slot == nil {
			return
		}
		defer slot.close()
	}
	rec, _, err := s.cfg.Service.Start(c.Request.Context(), orchestrator.StartRequest{
		Principal: p, EpisodeID: req.EpisodeID, Message: req.Message,
		Locale: req.Locale, Location: req.Location, IdempotencyKey: key,
	})
	if err != nil {
		s.abortErr(c, err)
		return
	}
	if slot != nil {
		slot.forTurn(rec.ID)
		s.serveEvents(c, rec.ID, 0)
		return
	}
	c.JSON(http.StatusAccepted, turnCreated{
		TurnID: rec.ID, EpisodeID: rec.EpisodeID,
		EventsURL: "/v1/turns/" + url.PathEscape(rec.ID) + "/events?token=" + url.QueryEscape(s.cfg.TurnTokens.Mint(rec.ID, p)),
	})
}

func wantsEventStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// cancelIfRunning implements turns.cancel_on_disconnect: the stream ended, and if the turn
// has not, the client left. A server shutting down is not a client leaving: its turns get
// their grace period to finish.
func (s *server) cancelIfRunning(c *gin.Context, turnID string) {
	reqCtx := c.Request.Context()
	if reqCtx.Err() == nil || errors.Is(context.Cause(reqCtx), ErrShuttingDown) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), 5*time.Second)
	defer cancel()
	if err := s.cfg.Service.Cancel(ctx, principalOf(c), turnID); err != nil && !errors.Is(err, orchestrator.ErrNotFound) && !errors.Is(err, orchestrator.ErrTurnFinished) {
		s.log.WarnContext(ctx, "cancel on disconnect", "turn_id", turnID, "err", err)
	}
}

func (s *server) turnEvents(c *gin.Context) {
	id := c.Param("id")
	if _, err := s.cfg.Service.Turn(c.Request.Context(), principalOf(c), id); err != nil {
		s.abortErr(c, err)
		return
	}
	after, err := stream.LastEventID(c.Request)
	if err != nil {
		abort(c, http.StatusBadRequest, "invalid_last_event_id", "Last-Event-ID must be a number.")
		return
	}
	slot := s.openStream(c, id)
	if slot == nil {
		return
	}
	defer slot.close()
	s.serveEvents(c, id, after)
}

// serveEvents streams a turn's events after the given id. A slow client dropped by the server
// is expected to resume with Last-Event-ID, so it never counts as the client leaving.
func (s *server) serveEvents(c *gin.Context, turnID string, after uint64) {
	res, err := stream.ServeSSE(c.Writer, c.Request, s.cfg.Hub, turnID, after, s.cfg.SSE)
	switch {
	case errors.Is(err, stream.ErrReplayUnavailable):
		s.log.ErrorContext(c.Request.Context(), "turn log unavailable", "turn_id", turnID, "err", err)
		c.Header("Retry-After", "2")
		abort(c, http.StatusServiceUnavailable, "unavailable", "The conversation cannot be streamed right now. Please retry shortly.")
		return
	case errors.Is(err, stream.ErrSlowClient):
		s.log.InfoContext(c.Request.Context(), "dropped a stalled event stream", "turn_id", turnID, "events", res.Events)
		return
	case err != nil:
		s.log.WarnContext(c.Request.Context(), "event stream ended early", "turn_id", turnID, "events", res.Events, "err", err)
	}
	if s.cfg.CancelOnDisconnect && !res.Completed && !res.NoContent {
		s.cancelIfRunning(c, turnID)
	}
}

func (s *server) getTurn(c *gin.Context) {
	rec, err := s.cfg.Service.Turn(c.Request.Context(), principalOf(c), c.Param("id"))
	if err != nil {
		s.abortErr(c, err)
		return
	}
	c.JSON(http.StatusOK, turnView(rec))
}

func (s *server) deleteTurn(c *gin.Context) {
	if err := s.cfg.Service.Cancel(c.Request.Context(), principalOf(c), c.Param("id")); err != nil {
		s.abortErr(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (s *server) getEpisode(c *gin.Context) {
	ep, err := s.cfg.Service.Episode(c.Request.Context(), principalOf(c), c.Param("id"))
	if err != nil {
		s.abortErr(c, err)
		return
	}
	c.JSON(http.StatusOK, episodeView(ep))
}

// devToken mints a token for the chat page's dev sign-in; registered only in dev mode.
func (s *server) devToken(c *gin.Context) {
	var body struct {
		Sub string `json:"sub"`
	}
	if err := c.ShouldBindJSON(&body); err != nil || strings.TrimSpace(body.Sub) == "" {
		abort(c, http.StatusBadRequest, "invalid_body", `Send {"sub": "alice"}.`)
		return
	}
	tok, err := s.cfg.DevLogin(strings.TrimSpace(body.Sub))
	if err != nil {
		abort(c, http.StatusBadRequest, "invalid_sub", "That user name cannot be used.")
		return
	}
	c.JSON(http.StatusOK, gin.H{"token": tok})
}
