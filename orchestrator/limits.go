package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
)

// ErrRateLimited means a principal is over one of its limits; the error is a [*LimitError]
// that says which and when to retry. Other principals are not affected.
var ErrRateLimited = errors.New("orchestrator: rate limited")

// Names of the limits, as LimitError.Limit and the label of switchboard_limited_total.
const (
	LimitTurnsRunning        = "turns_running"
	LimitTurnsPerMinute      = "turns_per_minute"
	LimitStreamsPerPrincipal = "streams_per_principal"
	LimitStreamsPerTurn      = "streams_per_turn"
)

const (
	// runningRetry is the Retry-After of the running-turns limit: a turn usually ends within
	// seconds, and a refused start costs the server next to nothing.
	runningRetry = time.Second
	// minSweep is the number of principals the limiter holds before it forgets idle ones.
	minSweep = 1024
)

// LimitError is a request refused because its principal is over a limit.
type LimitError struct {
	// Limit is which limit: one of the Limit* names.
	Limit string
	// RetryAfter is when a retry can succeed (at least a second).
	RetryAfter time.Duration
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("orchestrator: rate limited (%s), retry after %s", e.Limit, e.RetryAfter)
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *LimitError) Is(target error) bool { return target == ErrRateLimited }

// RetryAfterSeconds is RetryAfter for a Retry-After header: whole seconds, at least 1.
func (e *LimitError) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

// TurnLimits bound the turns one principal may start. A zero field means no limit.
type TurnLimits struct {
	// Running is how many of a principal's turns may run at once. With a store that counts
	// running turns ([RunningCounter]) the count is the store's, so it holds across replicas
	// sharing the store; otherwise it is this process's.
	Running int
	// PerMinute is the sustained rate of turn starts (a token bucket refilled at PerMinute/60
	// per second). It is enforced per process.
	PerMinute int
	// Burst is how many starts may come at once before the rate applies; default PerMinute.
	Burst int
}

// RunningCounter is implemented by stores that can count a principal's running turns, across
// every process that shares them.
type RunningCounter interface {
	RunningTurns(ctx context.Context, p principal.Principal) (int, error)
}

// turnLimiter enforces TurnLimits per principal. Admitting a turn and storing it happen under
// the principal's own lock, so that one principal's burst cannot slip past the running count
// (other principals are never waited on).
type turnLimiter struct {
	cfg     TurnLimits
	counter RunningCounter // nil: count this process's turns
	now     func() time.Time

	mu      sync.Mutex
	byP     map[principal.Principal]*principalLimits
	sweepAt int
}

type principalLimits struct {
	admit sync.Mutex // held from the running check to the stored turn

	// guarded by turnLimiter.mu
	running int       // this process's running turns
	users   int       // admissions in progress; the entry is kept while > 0
	tokens  float64   // the rate bucket
	filled  time.Time // when tokens was last refilled
}

func newTurnLimiter(cfg TurnLimits, store Store) *turnLimiter {
	l := &turnLimiter{cfg: cfg, now: time.Now, byP: map[principal.Principal]*principalLimits{}, sweepAt: minSweep}
	if c, ok := store.(RunningCounter); ok {
		l.counter = c
	}
	if l.cfg.PerMinute > 0 && l.cfg.Burst <= 0 {
		l.cfg.Burst = l.cfg.PerMinute
	}
	return l
}

// admission is a turn start that passed the limits and is being stored. Exactly one of
// started or abandoned must be called.
type admission struct {
	l  *turnLimiter
	pl *principalLimits
}

// admit takes a start token and checks the running count for p. On success the caller holds
// p's admission lock until it calls started or abandoned.
func (l *turnLimiter) admit(ctx context.Context, p principal.Principal) (*admission, error) {
	l.mu.Lock()
	pl := l.entryLocked(p)
	if err := l.takeTokenLocked(pl); err != nil {
		pl.users--
		if l.cfg.Running > 0 && pl.running >= l.cfg.Running {
			// The bucket ran dry on starts the running limit refused (their tokens come back
			// only once they are refused): that limit is what the principal is over.
			err = &LimitError{Limit: LimitTurnsRunning, RetryAfter: runningRetry}
		}
		l.mu.Unlock()
		return nil, err
	}
	l.mu.Unlock()

	pl.admit.Lock()
	a := &admission{l: l, pl: pl}
	if l.cfg.Running <= 0 {
		return a, nil
	}
	running, err := l.running(ctx, p, pl)
	if err == nil && running >= l.cfg.Running {
		err = &LimitError{Limit: LimitTurnsRunning, RetryAfter: runningRetry}
	}
	if err != nil {
		a.abandoned(true)
		return nil, err
	}
	return a, nil
}

func (l *turnLimiter) running(ctx context.Context, p principal.Principal, pl *principalLimits) (int, error) {
	if l.counter != nil {
		n, err := l.counter.RunningTurns(ctx, p)
		if err != nil {
			return 0, fmt.Errorf("orchestrator: counting running turns: %w", err)
		}
		return n, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return pl.running, nil
}

// started records that the turn was stored and now runs; the caller calls finished when it ends.
func (a *admission) started() {
	a.l.mu.Lock()
	a.pl.running++
	a.pl.users--
	a.l.mu.Unlock()
	a.pl.admit.Unlock()
}

// abandoned records that no turn was started (an error, or an idempotent replay of an
// earlier turn); refund gives the start token back.
func (a *admission) abandoned(refund bool) {
	a.pl.admit.Unlock()
	a.l.mu.Lock()
	defer a.l.mu.Unlock()
	if refund && a.l.cfg.PerMinute > 0 {
		a.pl.tokens = min(a.pl.tokens+1, float64(a.l.cfg.Burst))
	}
	a.pl.users--
}

// finished records the end of a turn that started.
func (l *turnLimiter) finished(p principal.Principal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if pl, ok := l.byP[p]; ok {
		pl.running--
	}
}

func (l *turnLimiter) entryLocked(p principal.Principal) *principalLimits {
	pl, ok := l.byP[p]
	if !ok {
		if len(l.byP) >= l.sweepAt {
			l.sweepLocked()
		}
		pl = &principalLimits{tokens: float64(l.cfg.Burst), filled: l.now()}
		l.byP[p] = pl
	}
	pl.users++
	return pl
}

// sweepLocked forgets principals that hold nothing: no turn running, no admission under way
// and a full bucket, so that the map does not grow with every principal ever seen.
func (l *turnLimiter) sweepLocked() {
	now := l.now()
	for p, pl := range l.byP {
		l.refillLocked(pl, now)
		if pl.running == 0 && pl.users == 0 && pl.tokens >= float64(l.cfg.Burst) {
			delete(l.byP, p)
		}
	}
	l.sweepAt = max(minSweep, 2*len(l.byP))
}

func (l *turnLimiter) refillLocked(pl *principalLimits, now time.Time) {
	if l.cfg.PerMinute <= 0 {
		return
	}
	elapsed := now.Sub(pl.filled).Seconds()
	if elapsed > 0 {
		pl.tokens = min(float64(l.cfg.Burst), pl.tokens+elapsed*float64(l.cfg.PerMinute)/60)
		pl.filled = now
	}
}

func (l *turnLimiter) takeTokenLocked(pl *principalLimits) error {
	if l.cfg.PerMinute <= 0 {
		return nil
	}
	l.refillLocked(pl, l.now())
	if pl.tokens >= 1 {
		pl.tokens--
		return nil
	}
	wait := time.Duration((1 - pl.tokens) * 60 / float64(l.cfg.PerMinute) * float64(time.Second))
	return &LimitError{Limit: LimitTurnsPerMinute, RetryAfter: wait}
}
