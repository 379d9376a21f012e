package orchestrator

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// ServiceConfig holds what [NewService] needs.
type ServiceConfig struct {
	Orchestrator *Orchestrator
	Store        Store
	Hub          *stream.Hub
	// Deadline bounds a whole turn, however long its client stays. Default 60 s.
	Deadline time.Duration
	// EndGrace is how long past a turn's deadline its end and events are retried while the
	// store fails (an outage, a lock). A turn whose end is still not stored then ends failed
	// for its clients, and [Service.Settle] stores it so. Default [DefaultEndGrace].
	EndGrace time.Duration
	// Forbidden are strings that must never reach a client (enricher ids, internal codes);
	// the guard on every turn's stream removes them.
	Forbidden []string
	Logger    *slog.Logger
	// Annotate, when set, decorates each turn's context (e.g. with its id for log lines).
	Annotate func(ctx context.Context, turnID string) context.Context
	// Limits bound the turns each principal may start; the zero value sets none.
	Limits TurnLimits
	// OnLimited, when set, is told of every start refused for a limit and whose it was (for
	// switchboard_limited_total and the audit log).
	OnLimited func(p principal.Principal, limit string)
	// Audit, when set, is told of each turn accepted, ended and cancelled.
	Audit Auditor
}

// Service runs turns detached from the request that started them: a turn outlives a dropped
// connection and runs to completion within its deadline, its events go to the turn log that
// clients follow and resume, and [Service.Cancel] stops it.
type Service struct {
	cfg    ServiceConfig
	bound  atomic.Pointer[boundSet]
	limits *turnLimiter
	mu     sync.Mutex
	run    map[string]*running // turn id -> a turn running in this process
	// unsaved holds the turns that ended here without their end in the store; Settle stores
	// them.
	unsaved  map[string]*unsavedEnd
	settleMu sync.Mutex // one Settle at a time
	wg       sync.WaitGroup
	workers  *workers // run the turns
}

// boundSet is the orchestrator turns start with and the guard built from its forbidden strings.
// [Service.Rebind] swaps it whole, so a turn never sees a new orchestrator with an old guard.
type boundSet struct {
	orc   *Orchestrator
	guard *stream.GuardPolicy
}

func newBoundSet(orc *Orchestrator, forbidden []string) *boundSet {
	return &boundSet{orc: orc, guard: stream.CompileGuard(stream.GuardConfig{Forbidden: forbidden})}
}

type running struct {
	principal principal.Principal
	cancel    context.CancelCauseFunc
	done      chan struct{}
}

// errCancelled is the cause of a turn cancelled by [Service.Cancel].
var errCancelled = errors.New("turn cancelled by request")

// NewService returns a Service; cfg.Orchestrator, Store and Hub are required.
func NewService(cfg ServiceConfig) (*Service, error) {
	if cfg.Orchestrator == nil || cfg.Store == nil || cfg.Hub == nil {
		return nil, errors.New("orchestrator: service needs an orchestrator, a store and a hub")
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 60 * time.Second
	}
	if cfg.EndGrace <= 0 {
		cfg.EndGrace = DefaultEndGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Audit == nil {
		cfg.Audit = nopAuditor{}
	}
	s := &Service{cfg: cfg, limits: newTurnLimiter(cfg.Limits, cfg.Store), run: map[string]*running{},
		unsaved: map[string]*unsavedEnd{}, workers: newWorkers()}
	s.bound.Store(newBoundSet(cfg.Orchestrator, cfg.Forbidden))
	return s, nil
}

// Rebind makes turns started from now on use orc, guarded against forbidden (which replaces
// the configured list). Running turns finish on the orchestrator they started with.
func (s *Service) Rebind(orc *Orchestrator, forbidden []string) error {
	if orc == nil {
		return errors.New("orchestrator: rebind without an orchestrator")
	}
	s.bound.Store(newBoundSet(orc, forbidden))
	return nil
}

// Orchestrator returns the orchestrator new turns start with.
func (s *Service) Orchestrator() *Orchestrator { return s.bound.Load().orc }

// StartRequest is a user message to answer.
type StartRequest struct {
	Principal      principal.Principal
	EpisodeID      string // empty starts a new episode
	Message        string
	Locale         string
	Location       string
	IdempotencyKey string
}

// Start stores a new turn and runs it in the background. With an idempotency key already used
// by the principal it returns the earlier turn (existing=true) and dispatches nothing, or
// ErrConflict when the earlier request differs. A principal over one of its limits gets a
// [*LimitError] (ErrRateLimited); text or ids that no store can hold, ErrInvalidText; a blank,
// overlong or otherwise impossible request, an [*InputError].
func (s *Service) Start(ctx context.Context, req StartRequest) (rec TurnRecord, existing bool, err error) {
	if req.Principal == "" {
		return TurnRecord{}, false, errors.New("orchestrator: turn without principal")
	}
	if !storable(req.EpisodeID, req.Message, req.Locale, req.Location, req.IdempotencyKey) {
		return TurnRecord{}, false, ErrInvalidText
	}
	if err := req.check(); err != nil {
		return TurnRecord{}, false, err
	}
	adm, err := s.limits.admit(ctx, req.Principal)
	if err != nil {
		if rec, ok, rerr := s.replay(ctx, req); ok {
			return rec, true, rerr
		}
		var le *LimitError
		if errors.As(err, &le) && s.cfg.OnLimited != nil {
			s.cfg.OnLimited(req.Principal, le.Limit)
		}
		return TurnRecord{}, false, err
	}
	settled := false
	defer func() {
		if !settled { // a panic while storing must not leave p's admission locked
			adm.abandoned(true)
		}
	}()
	rec, existing, err = s.start(ctx, req)
	settled = true
	if err != nil || existing {
		adm.abandoned(true) // nothing new runs: the start is not counted
		return rec, existing, err
	}
	adm.started()
	return rec, false, nil
}

// replay finds the turn an idempotent retry refers to, when the store can look it up by its
// key: ok reports that one was found, and err is ErrConflict when the retry's request
// differs from the one stored. A lookup that fails is no replay; the caller's own answer
// stands.
func (s *Service) replay(ctx context.Context, req StartRequest) (rec TurnRecord, ok bool, err error) {
	keyed, can := s.cfg.Store.(KeyedTurns)
	if req.IdempotencyKey == "" || !can {
		return TurnRecord{}, false, nil
	}
	stored, err := keyed.TurnByKey(ctx, req.Principal, req.IdempotencyKey)
	if err != nil {
		return TurnRecord{}, false, nil
	}
	if stored.RequestHash != requestHash(req) {
		return TurnRecord{}, true, ErrConflict
	}
	return stored, true, nil
}

// start does the work of Start once the principal's limits have admitted the turn.
func (s *Service) start(ctx context.Context, req StartRequest) (rec TurnRecord, existing bool, err error) {
	var hash string
	if req.IdempotencyKey != "" { // only a retry under the same key is compared with it
		hash = requestHash(req) // before an episode id is assigned: the client's request as sent
	}
	b := s.bound.Load() // the whole turn runs on the set it started with
	var history []Exchange
	if req.EpisodeID != "" {
		// Only the window the LLM sees: an episode may be long, and each turn carries its
		// routing decision.
		turns, err := s.cfg.Store.RecentTurns(ctx, req.Principal, req.EpisodeID, b.orc.HistoryTurns())
		switch {
		case errors.Is(err, ErrNotFound):
			// a client-chosen id for a new episode
		case err != nil:
			return TurnRecord{}, false, err
		default:
			history = exchanges(turns)
		}
	} else {
		req.EpisodeID = newID("ep")
	}
	rec = TurnRecord{
		ID: newID("turn"), EpisodeID: req.EpisodeID, Principal: req.Principal, Message: req.Message,
		Locale: req.Locale, Location: req.Location, IdempotencyKey: req.IdempotencyKey,
		RequestHash: hash, State: TurnRunning, Created: time.Now().UTC(),
	}
	stored, existing, err := s.cfg.Store.CreateTurn(ctx, rec)
	if err != nil {
		return TurnRecord{}, false, err
	}
	if existing {
		if stored.RequestHash != rec.RequestHash {
			return TurnRecord{}, true, ErrConflict
		}
		return stored, true, nil
	}
	s.cfg.Audit.TurnAccepted(ctx, rec)

	base := context.WithoutCancel(ctx) // the turn outlives its request
	if s.cfg.Annotate != nil {
		base = s.cfg.Annotate(base, rec.ID)
	}
	j := &turnJob{s: s, b: b, rec: rec, history: history}
	j.ctx, j.cancelDeadline = context.WithTimeout(base, s.cfg.Deadline)
	j.ctx, j.cancel = context.WithCancelCause(j.ctx)
	j.principal, j.done = req.Principal, make(chan struct{})
	s.mu.Lock()
	s.run[rec.ID] = &j.running
	s.mu.Unlock()
	j.log = s.cfg.Hub.Open(rec.ID)
	j.log.RetryUntil(s.endBy(rec))
	s.wg.Add(1)
	s.workers.Go(j.run)
	return rec, false, nil
}

// turnJob is a turn started here, with all its worker needs to run it: one allocation
// rather than a closure, its running entry and a heap copy of the record each.
type turnJob struct {
	running
	s              *Service
	ctx            context.Context
	cancelDeadline context.CancelFunc
	b              *boundSet
	rec            TurnRecord
	history        []Exchange
	log            *stream.TurnLog
}

func (j *turnJob) run() {
	s := j.s
	defer s.wg.Done()
	defer s.limits.finished(j.principal)
	defer close(j.done)
	defer j.cancelDeadline()
	defer j.cancel(nil)
	s.execute(j.ctx, j.b, j.rec, j.history, j.log)
}

// execute runs one turn to its end and stores it. It always closes the stream with
// turn.completed.
func (s *Service) execute(ctx context.Context, b *boundSet, rec TurnRecord, history []Exchange, log *stream.TurnLog) {
	out := b.guard.Guard(log)
	defer s.recoverTurn(ctx, out, log, rec)
	out.Publish(stream.TurnStarted{TurnID: rec.ID, EpisodeID: rec.EpisodeID})
	res, err := b.orc.Run(ctx, Turn{
		ID: rec.ID, EpisodeID: rec.EpisodeID, Principal: rec.Principal, Message: rec.Message,
		Locale: rec.Locale, Location: rec.Location, History: history,
	}, out)
	outcome := res.Outcome
	if err != nil && outcome == stream.OutcomeFailed { // Run says so when the deadline passed
		out.Publish(stream.Error{Message: "Sorry, that took too long and I had to stop. Please try again.", IsFinal: true})
	}
	// The stored reply is what the guard let clients see: GET /v1/turns, episodes and A2A
	// serve it later, and must not show what the stream scrubbed.
	rec.State, rec.Outcome, rec.Reply, rec.Completed = TurnCompleted, outcome, out.Reply(res.Reply), time.Now().UTC()
	rec.Decision = &res.Decision
	rec.Outcome = s.end(ctx, out, log, rec)
	s.cfg.Audit.TurnEnded(ctx, rec)
	if err := log.Err(); err != nil {
		// Live followers saw every event; replays from the store miss some until Settle
		// stores them.
		s.cfg.Logger.ErrorContext(ctx, "turn log not fully stored", "turn_id", rec.ID, "err", err)
	}
	// The log stays in memory for a grace period for followers, then only in the store.
	s.cfg.Hub.Done(rec.ID)
}

// stopRunning drops the turn from those running here. It happens before clients learn the turn
// ended: a cancel sent on turn.completed must find it finished (409), not running.
func (s *Service) stopRunning(turnID string) {
	s.mu.Lock()
	delete(s.run, turnID)
	s.mu.Unlock()
}

// sameStore reports whether a and b are one store. Comparing interfaces whose dynamic type is
// not comparable panics, so such stores are taken for different ones.
func sameStore(a, b any) bool {
	ta := reflect.TypeOf(a)
	return ta != nil && ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// panicMessage is what the user reads when the turn itself crashed.
const panicMessage = "Sorry, something went wrong on our side while answering. Please try again."

// recoverTurn keeps a panic in the turn (the orchestrator's own model call, composition) from
// taking the process down: the turn fails in plain words, is stored as failed and ends its log,
// and the crash is logged as an alert with its stack. Sub-agents recover their own panics.
func (s *Service) recoverTurn(ctx context.Context, out *stream.Guard, log *stream.TurnLog, rec TurnRecord) {
	p := recover()
	if p == nil {
		return
	}
	s.cfg.Logger.ErrorContext(ctx, "turn panicked", "alert", "turn_panic", "turn_id", rec.ID,
		"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	out.Publish(stream.Error{Message: panicMessage, IsFinal: true})
	rec.State, rec.Outcome, rec.Completed = TurnCompleted, stream.OutcomeFailed, time.Now().UTC()
	rec.Reply, rec.Decision = "", &Decision{}
	rec.Outcome = s.end(ctx, out, log, rec)
	s.cfg.Audit.TurnEnded(ctx, rec)
	s.cfg.Hub.Done(rec.ID)
}

// Cancel stops p's running turn and waits (briefly) for it to end. It returns ErrNotFound for
// unknown turns and for other principals' turns, ErrRunningElsewhere for a turn that runs in
// another process, and ErrTurnFinished for a turn that had already ended.
func (s *Service) Cancel(ctx context.Context, p principal.Principal, turnID string) error {
	s.mu.Lock()
	r, ok := s.run[turnID]
	u, ended := s.unsaved[turnID]
	s.mu.Unlock()
	if ended && u.rec.Principal == p {
		return ErrTurnFinished // ended here; the store learns it at the next Settle
	}
	if ok && r.principal == p {
		s.cfg.Audit.TurnCancelled(ctx, p, turnID) // first: the turn's end follows it
		r.cancel(errCancelled)
		wait, stop := context.WithTimeout(ctx, cancelWait)
		defer stop()
		select {
		case <-r.done:
		case <-wait.Done():
			// Cancelled, still unwinding: it will end as cancelled.
		}
		return nil
	}
	rec, err := s.Turn(ctx, p, turnID)
	switch {
	case err != nil:
		return err
	case rec.State == TurnRunning:
		return ErrRunningElsewhere
	}
	return ErrTurnFinished
}

// cancelWait bounds how long Cancel waits for a cancelled turn to finish unwinding.
const cancelWait = 5 * time.Second

// Turn returns p's turn.
func (s *Service) Turn(ctx context.Context, p principal.Principal, turnID string) (TurnRecord, error) {
	if !storable(turnID) {
		return TurnRecord{}, ErrNotFound // no turn can have such an id
	}
	return s.cfg.Store.Turn(ctx, p, turnID)
}

// Episode returns p's episode.
func (s *Service) Episode(ctx context.Context, p principal.Principal, episodeID string) (Episode, error) {
	if !storable(episodeID) {
		return Episode{}, ErrNotFound
	}
	return s.cfg.Store.Episode(ctx, p, episodeID)
}

// EpisodeTail returns the last n turns of p's episode, oldest first, and whether it has older
// ones: a client showing where a long conversation stands need not read all of it.
func (s *Service) EpisodeTail(ctx context.Context, p principal.Principal, episodeID string, n int) (ep Episode, more bool, err error) {
	if !storable(episodeID) {
		return Episode{}, false, ErrNotFound
	}
	turns, err := s.cfg.Store.RecentTurns(ctx, p, episodeID, n+1)
	if err != nil {
		return Episode{}, false, err
	}
	if more = len(turns) > n; more {
		turns = turns[1:]
	}
	return Episode{ID: episodeID, Principal: p, Turns: turns}, more, nil
}

// Wait blocks until every running turn has finished or ctx ends, for graceful shutdown.
func (s *Service) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the goroutines the Service keeps between turns for reuse; a turn still running
// finishes on its own. Call it after [Service.Wait], when the Service is done with.
func (s *Service) Close() {
	s.workers.stop()
}

// CancelAll cancels every running turn (shutdown past its grace period).
func (s *Service) CancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.run {
		r.cancel(errCancelled)
	}
}

// exchanges turns an episode's finished turns into the conversation the LLM sees. A turn still
// running (another of the episode's turns, started concurrently) has no reply yet and is left
// out.
func exchanges(turns []TurnRecord) []Exchange {
	out := make([]Exchange, 0, len(turns))
	for _, t := range turns {
		if t.State != TurnCompleted {
			continue
		}
		ex := Exchange{User: t.Message, Reply: t.Reply}
		if t.Decision != nil {
			ex.Agents = t.Decision.Invoked
		}
		out = append(out, ex)
	}
	return out
}

func requestHash(r StartRequest) string {
	var buf [1024]byte // most requests fit: hashed without allocating
	b := buf[:0]
	for i, s := range [...]string{r.EpisodeID, r.Message, r.Locale, r.Location} {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, s...)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// newID is prefix, an underscore and 24 hex digits, built in one allocation: the time in
// milliseconds (12 digits), then 48 random bits. Ids made later sort after earlier ones, so a
// store's indexes on them (a turn's events are keyed by its id) take each new turn at their
// end, in pages already cached and written, rather than in a random page of the whole table:
// that random page cost SQLite a read, a split now and then, and a page more in each commit.
func newID(prefix string) string {
	var b [12]byte
	ms := uint64(time.Now().UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	_, _ = rand.Read(b[6:])
	var s strings.Builder
	s.Grow(len(prefix) + 1 + hex.EncodedLen(len(b)))
	s.WriteString(prefix)
	s.WriteByte('_')
	var h [2 * len(b)]byte
	hex.Encode(h[:], b[:])
	s.Write(h[:])
	return s.String()
}
