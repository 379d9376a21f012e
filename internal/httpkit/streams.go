package httpkit

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
)

// StreamLimits bound the event streams open at once in this process, across every surface
// (REST event streams, A2A message/stream and tasks/resubscribe, AG-UI runs). A zero field
// means no limit.
type StreamLimits struct {
	PerPrincipal int
	PerTurn      int
}

// streamRetry is the Retry-After of a refused stream: streams end when their turn does.
const streamRetry = time.Second

// StreamCounter counts open streams by principal and by turn. One counter serves every
// surface, so a principal's limit holds whichever protocol its streams use. It is safe for
// concurrent use.
type StreamCounter struct {
	limits StreamLimits
	// onLimited, when set, is told of every stream refused for a limit and whose it was.
	onLimited func(p principal.Principal, limit string)

	mu     sync.Mutex
	byP    map[principal.Principal]int
	byTurn map[string]int
}

// NewStreamCounter returns a counter with the given limits; onLimited, when not nil, is told
// of each refusal and its principal (for a metric and the audit log).
func NewStreamCounter(l StreamLimits, onLimited func(p principal.Principal, limit string)) *StreamCounter {
	return &StreamCounter{limits: l, onLimited: onLimited, byP: map[principal.Principal]int{}, byTurn: map[string]int{}}
}

// StreamSlot is one open stream; Close it once the stream ends.
type StreamSlot struct {
	c      *StreamCounter
	p      principal.Principal
	turnID string
	once   sync.Once
}

// Open counts a stream of p, on turnID when it is known (empty: a turn about to start, which
// the slot joins with [StreamSlot.ForTurn]). Over a limit it refuses with a
// *orchestrator.LimitError, after telling OnLimited.
func (c *StreamCounter) Open(p principal.Principal, turnID string) (*StreamSlot, error) {
	slot, err := c.open(p, turnID)
	var le *orchestrator.LimitError
	if errors.As(err, &le) && c.onLimited != nil {
		c.onLimited(p, le.Limit)
	}
	return slot, err
}

func (c *StreamCounter) open(p principal.Principal, turnID string) (*StreamSlot, error) {
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
	return &StreamSlot{c: c, p: p, turnID: turnID}, nil
}

// ForTurn counts the slot on a turn that has just started: it has no other stream yet, so
// this never refuses.
func (s *StreamSlot) ForTurn(turnID string) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.turnID = turnID
	s.c.byTurn[turnID]++
}

// Close gives the slot back; later calls do nothing.
func (s *StreamSlot) Close() {
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

// LimitMessage says, for the client, which limit was hit.
func LimitMessage(limit string) string {
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

// WriteLimited answers 429 with Retry-After and code rate_limited for le.
func WriteLimited(w http.ResponseWriter, le *orchestrator.LimitError) {
	w.Header().Set("Retry-After", strconv.Itoa(le.RetryAfterSeconds()))
	WriteError(w, http.StatusTooManyRequests, "rate_limited", LimitMessage(le.Limit))
}
