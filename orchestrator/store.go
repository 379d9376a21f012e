package orchestrator

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// ErrNotFound means the turn or episode does not exist for this principal. Another
// principal's turns are reported as not found, never as forbidden.
var ErrNotFound = errors.New("orchestrator: not found")

// ErrRunningElsewhere means the turn is running in another process, which alone can cancel it.
var ErrRunningElsewhere = errors.New("orchestrator: turn is running on another server")

// ErrTurnFinished means the turn has already ended, so it can no longer be cancelled (or
// finished again: a late FinishTurn, after a sweep took its process for dead and failed it,
// leaves the sweep's outcome standing).
var ErrTurnFinished = errors.New("orchestrator: turn already finished")

// ErrUnavailable means the store cannot serve the call just now: the database is down or
// unreachable, a lock held elsewhere outlasted the wait, or the disk is full. A later retry
// may succeed. Stores wrap such errors with it; callers answer 503 rather than blame the
// request.
var ErrUnavailable = errors.New("orchestrator: store unavailable")

// ErrConflict means an idempotency key was reused with a different request.
var ErrConflict = errors.New("orchestrator: idempotency key reused with another request")

// ErrInvalidText means a message, id, locale, location or idempotency key holds a NUL byte or
// is not valid UTF-8: no store keeps such text faithfully (PostgreSQL refuses NUL outright),
// so it is the client's mistake, refused before anything is stored.
var ErrInvalidText = errors.New("orchestrator: text is not valid UTF-8 or holds a NUL byte")

// storable reports whether every string is valid UTF-8 without a NUL byte.
func storable(texts ...string) bool {
	for _, t := range texts {
		if !utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0 {
			return false
		}
	}
	return true
}

// TurnState is where a stored turn is in its life.
type TurnState string

const (
	TurnRunning   TurnState = "running"
	TurnCompleted TurnState = "completed"
)

// TurnRecord is a turn as stored.
type TurnRecord struct {
	ID             string              `json:"turn_id"`
	EpisodeID      string              `json:"episode_id"`
	Principal      principal.Principal `json:"-"`
	Message        string              `json:"message"`
	Locale         string              `json:"locale,omitempty"`
	Location       string              `json:"location,omitempty"`
	IdempotencyKey string              `json:"-"`
	RequestHash    string              `json:"-"` // of the request first sent under IdempotencyKey; empty without one
	State          TurnState           `json:"state"`
	Outcome        stream.Outcome      `json:"outcome,omitempty"`
	Reply          string              `json:"reply,omitempty"`
	Decision       *Decision           `json:"routing,omitempty"`
	Created        time.Time           `json:"created"`
	Completed      time.Time           `json:"completed,omitzero"`
}

// Episode is a conversation: a principal's turns, oldest first.
type Episode struct {
	ID        string              `json:"episode_id"`
	Principal principal.Principal `json:"-"`
	Turns     []TurnRecord        `json:"turns"`
}

// EndStore is a Store that can also store a turn's end together with the last records of its
// event log, in one transaction: one commit instead of two at every turn's end. The service
// uses it when the store is also its hub's log store.
type EndStore interface {
	// FinishTurnWithEvents does FinishTurn and appends recs to the turn's log, all of it or,
	// on any error (ErrTurnFinished included), nothing.
	FinishTurnWithEvents(ctx context.Context, t TurnRecord, recs []stream.Record) error
}

// Store keeps episodes and turns. Implementations must be safe for concurrent use; lookups
// are always scoped to a principal.
type Store interface {
	// CreateTurn stores a new running turn, creating its episode when needed. Episode ids are
	// scoped per principal: the turn goes to t.Principal's episode of that id, whether or not
	// another principal has one of the same id, and is never refused for it. When the
	// principal already has a turn with the same idempotency key it stores nothing and
	// returns that turn with existing=true.
	CreateTurn(ctx context.Context, t TurnRecord) (stored TurnRecord, existing bool, err error)
	// FinishTurn records a turn's end: state, outcome, reply and routing decision. It changes
	// only a turn still running: one already finished (abandoned by a sweep) is left as it is
	// and the call fails with ErrTurnFinished.
	FinishTurn(ctx context.Context, t TurnRecord) error
	// Turn returns one of p's turns, or ErrNotFound.
	Turn(ctx context.Context, p principal.Principal, turnID string) (TurnRecord, error)
	// Episode returns one of p's episodes with its turns, or ErrNotFound.
	Episode(ctx context.Context, p principal.Principal, episodeID string) (Episode, error)
	// RecentTurns returns the last n turns of one of p's episodes, oldest first: all of them
	// when the episode has n or fewer, none (an empty slice) when n < 1. An episode that does
	// not exist or is another principal's is ErrNotFound, whatever n, as for Episode. It spares
	// a new turn reading a long episode to see its last few exchanges.
	RecentTurns(ctx context.Context, p principal.Principal, episodeID string, n int) ([]TurnRecord, error)
}

// KeyedTurns is a [Store] that finds a turn by the idempotency key it was started with. A
// [Service] over one answers a replay even while its principal is over a limit, since a
// replay starts nothing; over any other store such a replay waits out the limit like a start.
type KeyedTurns interface {
	// TurnByKey returns p's turn started with key, or ErrNotFound.
	TurnByKey(ctx context.Context, p principal.Principal, key string) (TurnRecord, error)
}
