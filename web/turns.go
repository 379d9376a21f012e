package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
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

// decodeTurnRequest reads and checks a turn body, saying exactly what is wrong.
func decodeTurnRequest(r io.Reader) (turnRequest, *httpkit.Problem) {
	var req turnRequest
	bad := func(code, msg string) (turnRequest, *httpkit.Problem) {
		return req, httpkit.BadRequest(code, msg)
	}
	dec, holdable := httpkit.ReadBody(r)
	if !holdable {
		return bad("invalid_text", httpkit.InvalidTextMessage)
	}
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return req, &httpkit.Problem{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Message: httpkit.TooLargeMessage(mbe.Limit)}
		case httpkit.BodyTimedOut(err):
			return req, &httpkit.Problem{Status: http.StatusRequestTimeout, Code: "request_timeout", Message: "The request body did not arrive in time."}
		case errors.Is(err, io.EOF):
			return bad("invalid_body", `The body must be JSON like {"message": "..."}.`)
		}
		return bad("invalid_body", "The body is not valid JSON for a turn: "+httpkit.JSONProblem(err)+".")
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

// eventsURL links to a turn's events with a turn token, for clients that cannot set headers
// (a browser's EventSource).
func (s *server) eventsURL(r *http.Request, turnID string, p principal.Principal) string {
	prefix := (&url.URL{Path: httpkit.MountPrefix(r)}).EscapedPath()
	return prefix + "/v1/turns/" + url.PathEscape(turnID) + "/events?token=" + url.QueryEscape(s.cfg.TurnTokens.Mint(turnID, p))
}

func (s *server) postTurn(c *gin.Context) {
	req, bad := decodeTurnRequest(c.Request.Body)
	if bad != nil {
		abort(c, bad.Status, bad.Code, bad.Message)
		return
	}
	key := c.GetHeader("Idempotency-Key")
	if len(key) > 200 {
		abort(c, http.StatusBadRequest, "invalid_idempotency_key", "Idempotency-Key is longer than 200 characters.")
		return
	}
	if !printableKey(key) {
		abort(c, http.StatusBadRequest, "invalid_idempotency_key", "Idempotency-Key must be printable text: no tabs or other control characters.")
		return
	}
	p := principalOf(c)
	var slot *httpkit.StreamSlot
	if wantsEventStream(c.Request) {
		// Refuse the stream before the turn starts, or the turn would run unseen.
		if slot = s.openStream(c, ""); slot == nil {
			return
		}
	}
	rec, _, err := s.cfg.Service.Start(c.Request.Context(), orchestrator.StartRequest{
		Principal: p, EpisodeID: req.EpisodeID, Message: req.Message,
		Locale: req.Locale, Location: req.Location, IdempotencyKey: key,
	})
	if err != nil {
		if slot != nil {
			slot.Close()
		}
		s.abortErr(c, err)
		return
	}
	if slot != nil {
		slot.ForTurn(rec.ID)
		s.serveEvents(c, rec.ID, 0, slot.Close)
		return
	}
	c.JSON(http.StatusAccepted, turnCreated{
		TurnID: rec.ID, EpisodeID: rec.EpisodeID,
		EventsURL: s.eventsURL(c.Request, rec.ID, p),
	})
}

func wantsEventStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

func (s *server) turnEvents(c *gin.Context) {
	id := c.Param("id")
	if _, err := s.cfg.Service.Turn(c.Request.Context(), principalOf(c), id); err != nil {
		s.abortErr(c, err)
		return
	}
	after, err := stream.LastEventID(c.Request)
	if err != nil {
		// Also a number past the ids' range, so "must be a number" alone would mislead.
		abort(c, http.StatusBadRequest, "invalid_last_event_id",
			"Last-Event-ID (or lastEventId) must be the id of an event this stream sent; leave it out to start from the first event.")
		return
	}
	slot := s.openStream(c, id)
	if slot == nil {
		return
	}
	s.serveEvents(c, id, after, slot.Close)
}

// serveEvents streams a turn's events after the given id; done runs once the stream has
// ended, on the goroutine that ends it (a detached stream's own, see Config.DetachStreams).
func (s *server) serveEvents(c *gin.Context, turnID string, after uint64, done func()) {
	opts := s.cfg.SSE
	p := principalOf(c)
	ctx := context.WithoutCancel(c.Request.Context()) // for logs and the cancel, after the request
	start := time.Now()
	if s.cfg.DetachStreams != nil {
		// The gin context is recycled once the handler returns: the callback uses none of it.
		s.detached.Add(1)
		opts.Detach = &stream.Detach{Context: s.cfg.DetachStreams, OnEnd: func(res stream.SSEResult, err error) {
			defer s.detached.Done()
			defer done()
			s.streamEnded(ctx, p, turnID, res, err, time.Since(start))
		}}
	}
	res, err := stream.ServeSSE(c.Writer, c.Request, s.cfg.Hub, turnID, after, opts)
	if res.Detached {
		c.Set(detachedKey, true) // the access log's line covers only the response head
		return
	}
	if opts.Detach != nil {
		s.detached.Done() // it ran here after all
	}
	defer done()
	if errors.Is(err, stream.ErrReplayUnavailable) {
		s.log.ErrorContext(ctx, "turn log unavailable", "turn_id", turnID, "err", err)
		c.Header("Retry-After", "2")
		abort(c, http.StatusServiceUnavailable, "unavailable", "The conversation cannot be streamed right now. Please retry shortly.")
		return
	}
	res.ClientLeft = httpkit.ClientLeft(c.Request.Context())
	s.streamEnded(ctx, p, turnID, res, err, time.Since(start))
}

// detachedKey marks, for the access log, a request whose event stream went on after its
// handler returned.
const detachedKey = "switchboard.stream_detached"

// streamEnded logs how a stream ended and, with turns.cancel_on_disconnect, cancels the turn
// of a client that left. A slow client dropped by the server is expected to resume with
// Last-Event-ID, so it never counts as leaving.
func (s *server) streamEnded(ctx context.Context, p principal.Principal, turnID string, res stream.SSEResult, err error, d time.Duration) {
	took := d.String() // as text: a JSON log would print a Duration as nanoseconds
	switch {
	case errors.Is(err, stream.ErrSlowClient):
		s.log.InfoContext(ctx, "dropped a stalled event stream", "turn_id", turnID, "events", res.Events, "took", took)
		return
	case err != nil:
		s.log.WarnContext(ctx, "event stream ended early", "turn_id", turnID, "events", res.Events, "took", took, "err", err)
	default:
		s.log.InfoContext(ctx, "event stream ended", "turn_id", turnID, "events", res.Events,
			"completed", res.Completed, "client_left", res.ClientLeft, "took", took)
	}
	if s.cfg.CancelOnDisconnect && res.ClientLeft && !res.Completed && !res.NoContent {
		httpkit.CancelIfRunning(ctx, s.cfg.Service, p, turnID, s.log)
	}
}

func (s *server) getTurn(c *gin.Context) {
	rec, err := s.cfg.Service.Turn(c.Request.Context(), principalOf(c), c.Param("id"))
	if err != nil {
		s.abortErr(c, err)
		return
	}
	view := turnView(rec)
	view.EventsURL = s.eventsURL(c.Request, rec.ID, principalOf(c))
	c.JSON(http.StatusOK, view)
}

func (s *server) deleteTurn(c *gin.Context) {
	if err := s.cfg.Service.Cancel(c.Request.Context(), principalOf(c), c.Param("id")); err != nil {
		s.abortErr(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// maxEpisodeLimit bounds GET /v1/episodes/{id}?limit=N.
const maxEpisodeLimit = 1000

func (s *server) getEpisode(c *gin.Context) {
	ctx, p, id := c.Request.Context(), principalOf(c), c.Param("id")
	q, paged := c.GetQuery("limit")
	if !paged {
		ep, err := s.cfg.Service.Episode(ctx, p, id)
		if err != nil {
			s.abortErr(c, err)
			return
		}
		c.JSON(http.StatusOK, episodeView(ep))
		return
	}
	n, err := strconv.Atoi(q)
	if err != nil || n < 1 || n > maxEpisodeLimit {
		abort(c, http.StatusBadRequest, "invalid_query", fmt.Sprintf("limit must be a whole number from 1 to %d.", maxEpisodeLimit))
		return
	}
	ep, more, err := s.cfg.Service.EpisodeTail(ctx, p, id, n)
	if err != nil {
		s.abortErr(c, err)
		return
	}
	view := episodeView(ep)
	view.More = more
	c.JSON(http.StatusOK, view)
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

// printableKey reports whether an Idempotency-Key is valid UTF-8 without control characters.
// net/http refuses most control bytes in headers itself; a tab passes, and would reach the
// store and logs.
func printableKey(key string) bool {
	if !utf8.ValidString(key) {
		return false
	}
	for _, r := range key {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
