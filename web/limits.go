package web

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
)

// StreamLimits bound the event streams open at once in this process (SSE of
// /v1/turns/{id}/events, POST /v1/turns with Accept: text/event-stream, A2A message/stream and
// tasks/resubscribe, AG-UI runs of POST /agui). A zero field means no limit.
type StreamLimits struct {
	PerPrincipal int
	PerTurn      int
}

// streamRetry is the Retry-After of a refused stream: streams end when their turn does.
const streamRetry = time.Second

// streamCounter counts open streams by principal and by turn.
type streamCounter struct {
	limits StreamLimits
	mu     sync.Mutex
	byP    map[principal.Principal]int
	byTurn map[string]int
}

func newStreamCounter(l StreamLimits) *streamCounter {
	return &streamCounter{limits: l, byP: map[principal.Principal]int{}, byTurn: map[string]int{}}
}

// streamSlot is one open stream; close it once.
type streamSlot struct {
	c      *streamCounter
	p      principal.Principal
	turnID string
	once   sync.Once
}

// open counts a stream of p, on turnID when it is known (empty: a turn about to start, which
// the slot joins with forTurn). It refuses with a *orchestrator.LimitError over a limit.
func (c *streamCounter) open(p principal.Principal, turnID string) (*streamSlot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limits.PerPrincipal > 0 && c.byP[p] >= c.limits.PerPrincipal {
		return nil, &orchestrator.LimitError{Limit: orchestrator.LimitStreamsPerPrincipal, RetryAfter: streamRetry}
	}
	if turnID != "" && c.limits.PerTurn > 0 && c.byTurn[turnID] >= c.limits.PerTurn {
		return nil, &orchestrator.LimitError{Limit: orchestrator.LimitStreamsPerTurn, RetryAfter: streamRetry}
	}
	c.byP[p]++
	if turnID != "" {
		c.byTurn[turnID]++
	}
	return &streamSlot{c: c, p: p, turnID: turnID}, nil
}

// forTurn counts the slot on a turn that has just started: it has no other stream yet, so
// this never refuses.
func (s *streamSlot) forTurn(turnID string) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.turnID = turnID
	s.c.byTurn[turnID]++
}

func (s *streamSlot) close() {
	s.once.Do(func() {
		s.c.mu.Lock()
		defer s.c.mu.Unlock()
		if s.c.byP[s.p]--; s.c.byP[s.p] <= 0 {
			delete(s.c.byP, s.p)
		}
		if s.turnID != "" {
			if s.c.byTurn[s.turnID]--; s.c.byTurn[s.turnID] <= 0 {
				delete(s.c.byTurn, s.turnID)
			}
		}
	})
}

// openStream counts a stream for the request's principal; over a limit it answers 429 (and
// reports it) and returns nil.
func (s *server) openStream(c *gin.Context, turnID string) *streamSlot {
	slot, err := s.streams.open(principalOf(c), turnID)
	if err != nil {
		s.abortLimited(c, err)
		return nil
	}
	return slot
}

// limited reports a refusal to the OnLimited hook.
func (s *server) limited(err error) {
	var le *orchestrator.LimitError
	if errors.As(err, &le) && s.cfg.OnLimited != nil {
		s.cfg.OnLimited(le.Limit)
	}
}

// abortLimited answers 429 with Retry-After for a *orchestrator.LimitError. Refusals of the
// turn service are counted by the service itself; stream refusals are counted here.
func (s *server) abortLimited(c *gin.Context, err error) {
	var le *orchestrator.LimitError
	if !errors.As(err, &le) {
		s.abortErr(c, err)
		return
	}
	if le.Limit == orchestrator.LimitStreamsPerPrincipal || le.Limit == orchestrator.LimitStreamsPerTurn {
		s.limited(err)
	}
	c.Header("Retry-After", strconv.Itoa(le.RetryAfterSeconds()))
	abort(c, http.StatusTooManyRequests, "rate_limited", limitMessage(le.Limit))
}

// limitMessage says, for the client, which limit was hit.
func limitMessage(limit string) string {
	switch limit {
	case orchestrator.LimitTurnsRunning:
		return "Too many of your turns are running at once. Wait for one to finish, then try again."
	case orchestrator.LimitTurnsPerMinute:
		return "You are starting turns too quickly. Please wait a moment and try again."
	case orchestrator.LimitStreamsPerTurn:
		return "Too many event streams are open on this turn. Close one and try again."
	}
	return "Too many of your event streams are open. Close one and try again."
}

// openRPCStream is openStream for the A2A streaming methods, which answer in JSON-RPC.
func (s *server) openRPCStream(c *gin.Context, turnID string) (*streamSlot, *rpcError) {
	slot, err := s.streams.open(principalOf(c), turnID)
	if err != nil {
		s.limited(err)
		return nil, rpcLimited(err)
	}
	return slot, nil
}

// rpcLimited is the JSON-RPC error for a *orchestrator.LimitError: the same meaning as the
// REST API's 429 rate_limited, with the seconds to wait in data.retry_after.
func rpcLimited(err error) *rpcError {
	le := &orchestrator.LimitError{RetryAfter: time.Second}
	errors.As(err, &le)
	e := rpcErr(codeRateLimited, limitMessage(le.Limit))
	e.Data = &errorData{Code: "rate_limited", RetryAfter: le.RetryAfterSeconds()}
	return e
}

// setRetryAfter sends Retry-After with a rate-limited JSON-RPC error; JSON-RPC answers with
// HTTP 200 whatever the error, so the header is the HTTP-level hint.
func setRetryAfter(c *gin.Context, e *rpcError) {
	if e != nil && e.Data != nil && e.Data.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(e.Data.RetryAfter))
	}
}
