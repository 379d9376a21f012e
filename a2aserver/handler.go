package a2aserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// TurnService is what the A2A methods need of the turn service; [orchestrator.Service] is it.
type TurnService interface {
	Start(ctx context.Context, req orchestrator.StartRequest) (rec orchestrator.TurnRecord, existing bool, err error)
	Cancel(ctx context.Context, p principal.Principal, turnID string) error
	Turn(ctx context.Context, p principal.Principal, turnID string) (orchestrator.TurnRecord, error)
}

var _ TurnService = (*orchestrator.Service)(nil)

// Config holds what [New] needs. Service, Hub, Auth and Orchestrator are required.
//
// Over A2A the service is one agent, the orchestrator: a task is a turn (task id = turn id), a
// context is an episode (contextId = episode id, each principal's own), and a message's
// messageId is the turn's idempotency key. The bound sub-agents are listed as the card's
// skills; callers never reach them directly.
type Config struct {
	Service TurnService
	// Hub carries each turn's events to the streaming methods.
	Hub *stream.Hub
	// Auth tells whom each JSON-RPC request speaks for.
	Auth principal.Authenticator
	// Orchestrator is the definition the card describes: its name and description.
	Orchestrator *definitions.Definition
	// SubAgents are the bound sub-agents, in sub_agents order; each becomes a skill.
	SubAgents []*definitions.Definition
	// Current, when set, returns the orchestrator and sub-agents turns use now, replacing the
	// two fields above on the card once the definitions can be reloaded.
	Current func() (*definitions.Definition, []*definitions.Definition)
	// PublicURL is the externally visible base URL (scheme://host[/prefix]) the card
	// advertises. Empty derives it from each request's Host (and X-Forwarded-Proto).
	PublicURL string
	// Version is the agent's version on the card; default "dev".
	Version string
	// TrustedServices are the principals (service credentials' subjects) allowed to act on
	// behalf of a user: another switchboard whose remote sub-agent this one is. A request
	// authenticated as one of them runs as the user its metadata.principal names; any other
	// caller runs as itself, and naming someone else is refused.
	TrustedServices []principal.Principal
	// Streams counts the open streams of each principal; nil counts none.
	Streams *httpkit.StreamCounter
	// OnDelegated, when set, is told of each request in which a trusted service acts for a
	// user (for the audit log). It runs on the request's path and must return at once.
	OnDelegated func(ctx context.Context, d Delegation)
	// CancelOnDisconnect cancels a streamed turn whose client goes away.
	CancelOnDisconnect bool
	// StallTimeout is how long one write of a stream may make no progress before the client
	// counts as gone (it resubscribes to resume); default 10 s.
	StallTimeout time.Duration
	// MaxBody bounds a request body; default 64 KiB.
	MaxBody int64
	Logger  *slog.Logger
}

// Handler serves the A2A v0.3 surface: GET /.well-known/agent-card.json (public) and
// POST /a2a (JSON-RPC, authenticated). It answers every other path with 404.
type Handler struct {
	cfg  Config
	log  *slog.Logger
	card agentCard // without its URL, which each request fills in
	mux  *http.ServeMux
	// serve is mux behind a recover: mounted alone, no other middleware catches a panic.
	serve http.Handler
}

var _ http.Handler = (*Handler)(nil)

// CardPath is where the agent card is served.
const CardPath = "/.well-known/agent-card.json"

// New returns the A2A handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Service == nil || cfg.Hub == nil || cfg.Auth == nil || cfg.Orchestrator == nil {
		return nil, errors.New("a2aserver: service, hub, authenticator and orchestrator are required")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Streams == nil {
		cfg.Streams = httpkit.NewStreamCounter(httpkit.StreamLimits{}, nil)
	}
	h := &Handler{cfg: cfg, log: cfg.Logger, card: newAgentCard(cfg), mux: http.NewServeMux()}
	h.mux.HandleFunc("GET "+CardPath, h.agentCardRoute)
	h.mux.HandleFunc("POST /a2a", httpkit.Authenticated(h.cfg.Auth, h.cfg.MaxBody, h.serveRPC))
	h.mux.Handle(CardPath, httpkit.MethodNotAllowed(http.MethodGet, http.MethodHead))
	h.mux.Handle("/a2a", httpkit.MethodNotAllowed(http.MethodPost))
	h.mux.HandleFunc("/", httpkit.NotFound)
	h.serve = httpkit.Recover(h.log, h.mux)
	return h, nil
}

// ServeHTTP implements http.Handler. A request continues its caller's W3C trace, unless a
// span is already in its context; a panic in it answers 500 and is logged.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve.ServeHTTP(w, httpkit.ContinueTrace(r))
}

func principalOf(r *http.Request) principal.Principal {
	p, _ := principal.FromContext(r.Context())
	return p
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

// openRPCStream counts a stream for the request's principal; over a limit it returns the
// JSON-RPC error to answer with.
func (s *Handler) openRPCStream(r *http.Request, turnID string) (*httpkit.StreamSlot, *rpcError) {
	slot, err := s.cfg.Streams.Open(principalOf(r), turnID)
	if err != nil {
		return nil, rpcLimited(err)
	}
	return slot, nil
}

// rpcLimited is the JSON-RPC error for a *orchestrator.LimitError: the same meaning as the
// REST API's 429 rate_limited, with the seconds to wait in data.retry_after.
func rpcLimited(err error) *rpcError {
	le := &orchestrator.LimitError{RetryAfter: time.Second}
	errors.As(err, &le)
	e := rpcErr(codeRateLimited, httpkit.LimitMessage(le.Limit))
	e.Data = &errorData{Code: "rate_limited", RetryAfter: le.RetryAfterSeconds()}
	return e
}

// setRetryAfter sends Retry-After with a rate-limited JSON-RPC error; JSON-RPC answers with
// HTTP 200 whatever the error, so the header is the HTTP-level hint.
func setRetryAfter(w http.ResponseWriter, e *rpcError) {
	if e != nil && e.Data != nil && e.Data.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.Data.RetryAfter))
	}
}

// cancelIfLeft cancels a streamed turn whose client went away, when so configured.
func (s *Handler) cancelIfLeft(r *http.Request, turnID string) {
	httpkit.CancelIfLeft(r.Context(), s.cfg.Service, principalOf(r), turnID, s.log)
}
