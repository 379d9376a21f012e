package agui

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// TurnService is what AG-UI runs need of the turn service; [orchestrator.Service] is it.
type TurnService interface {
	Start(ctx context.Context, req orchestrator.StartRequest) (rec orchestrator.TurnRecord, existing bool, err error)
	Cancel(ctx context.Context, p principal.Principal, turnID string) error
	Turn(ctx context.Context, p principal.Principal, turnID string) (orchestrator.TurnRecord, error)
}

var _ TurnService = (*orchestrator.Service)(nil)

// Config holds what [New] needs. Service, Hub and Auth are required.
type Config struct {
	Service TurnService
	Hub     *stream.Hub
	// Auth tells whom each run speaks for.
	Auth principal.Authenticator
	// Streams counts the open streams of each principal; nil counts none.
	Streams *httpkit.StreamCounter
	// SSE tunes the stream's heartbeat and stall timeout.
	SSE stream.SSEOptions
	// MaxBody bounds a RunAgentInput; default 1 MiB, as clients send the thread's whole
	// history with every run.
	MaxBody int64
	Logger  *slog.Logger
}

// Handler serves POST /agui; every other path gets 404.
type Handler struct {
	cfg Config
	log *slog.Logger
	mux *http.ServeMux
	// serve is mux behind a recover: mounted alone, no other middleware catches a panic.
	serve http.Handler
}

var _ http.Handler = (*Handler)(nil)

// New returns the AG-UI handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Service == nil || cfg.Hub == nil || cfg.Auth == nil {
		return nil, errors.New("agui: service, hub and authenticator are required")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Streams == nil {
		cfg.Streams = httpkit.NewStreamCounter(httpkit.StreamLimits{}, nil)
	}
	h := &Handler{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux()}
	h.mux.HandleFunc("POST "+Route, httpkit.Authenticated(h.cfg.Auth, h.cfg.MaxBody, h.postAGUI))
	h.mux.Handle(Route, httpkit.MethodNotAllowed(http.MethodPost))
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

func (s *Handler) writeErr(w http.ResponseWriter, r *http.Request, err error) {
	httpkit.WriteTurnError(w, r, err, s.log)
}
