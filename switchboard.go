// Package switchboard is the whole switchboard service as a library: an orchestrator LLM that
// routes each chat turn to specialist sub-agents defined in YAML, with the chat API and its SSE
// streams, A2A and AG-UI endpoints, the chat page and health routes.
//
// [New] assembles it from [Options]; everything has a default, so
//
//	srv, err := switchboard.New(ctx, switchboard.Options{Agents: "./agents"})
//	...
//	http.ListenAndServe(":8080", srv.Handler())
//
// serves the agents folder with the offline model, the embedded demo CCS, an in-memory store
// and dev sign-in. [Server.Handler] serves every surface; [Server.API], [Server.ChatPage],
// [Server.A2A] and [Server.AGUI] serve one each, to mount behind a program's own middleware.
// Options.Models replaces models by alias with any langchaingo llms.Model, Options.Authenticate
// replaces bearer tokens with a program's own sign-in, and Options.Config carries what the
// config file would ([LoadConfig] reads one as `switchboard serve` does). docs/embedding.md in
// the repository says more; docs/architecture.md maps the packages.
package switchboard

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/assembly"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// ProviderInfo describes one configured model alias for readiness reports. It never carries
// a key.
type ProviderInfo struct {
	Alias       string `json:"alias"`
	Provider    string `json:"provider"`
	Model       string `json:"model,omitempty"`
	BaseURLHost string `json:"base_url_host,omitempty"` // host[:port] only
	Offline     bool   `json:"offline"`
	// Fallback is what is tried after this alias, in order.
	Fallback []string `json:"fallback,omitempty"`
}

// Options is what [New] needs. Only Agents (or AgentsFS) is required.
type Options struct {
	// Agents is the folder of Agent Definition YAML files. With AgentsFS it is a folder
	// inside that file system ("." for its root).
	Agents   string
	AgentsFS fs.FS
	// Config is the service's configuration; nil is [DefaultConfig] with an in-memory store.
	// Secrets named by *_env keys must already be resolved into the Config's secret fields
	// (the binary reads them from the environment; a library reads them as it likes).
	Config *Config
	// Models are langchaingo models used as they are for their aliases ("default" is the one
	// every definition without `model:` uses); aliases not given here come from Config.Models.
	Models map[string]llms.Model
	// CCSTransport carries the calls to a remote CCS (Config.CCS.URL) instead of
	// http.DefaultTransport.
	CCSTransport http.RoundTripper
	// TracerProvider and MeterProvider receive spans and metrics; nil uses the OTel globals.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Metrics, when set, is served at GET /metrics (for example a Prometheus exporter's
	// handler); nil leaves the route out.
	Metrics http.Handler
	// Logger receives the service's logs; nil uses slog.Default().
	Logger *slog.Logger
	// ShutdownGrace is how long [Server.Close] lets running turns finish before cancelling
	// them. Default 15 s.
	ShutdownGrace time.Duration
	// Version is shown on the A2A agent card; default "dev".
	Version string
	// Authenticate, when set, tells whom each request speaks for, on every surface, instead
	// of Config.Auth's bearer tokens: put switchboard behind a program's own sign-in (a
	// session, mTLS, or a principal its middleware placed in the request's context). An error
	// answers 401; one wrapping principal.ErrKeysUnavailable answers 503.
	Authenticate func(r *http.Request) (principal.Principal, error)
	// A2ACredential returns the bearer token sent to remote (a2a_url) sub-agents on behalf of
	// a turn's user; nil uses Config.A2A's credential, or in dev auth mode a dev token for the
	// user.
	A2ACredential func(ctx context.Context, user principal.Principal) (string, error)
	// Clock is where sub-agents read today's date, which their system prompts state (in
	// UTC) so that their models can resolve "yesterday" or "last sunday"; nil is time.Now.
	// The eval command pins it to --today.
	Clock func() time.Time
}

// Parts are the assembled service's parts, for programs that drive turns without HTTP (the
// eval harness, load tests) or report on them.
type Parts struct {
	// Service starts, follows and cancels turns.
	Service *orchestrator.Service
	// Hub carries each turn's events to its followers.
	Hub *stream.Hub
	// Orchestrator is the definition set new turns start with (it changes on [Server.Reload]).
	Orchestrator *orchestrator.Orchestrator
	// DemoCCS is the embedded demo CCS; nil when the CCS is remote.
	DemoCCS *ccsdemo.Server
	// Providers describes the configured models, without keys.
	Providers []ProviderInfo
}

// Server is an assembled switchboard service.
type Server struct {
	app     *assembly.App
	metrics http.Handler
	grace   time.Duration
}

// New assembles the service. Close it when done.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Agents == "" && opts.AgentsFS == nil {
		return nil, errors.New("switchboard: Options.Agents names no agents folder")
	}
	var cfg config.Config
	if opts.Config != nil {
		cfg = opts.Config.internal()
	} else {
		cfg = config.Default()
		cfg.Store.Driver, cfg.Store.DSN = "memory", ""
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Agents == "" {
		opts.Agents = "."
	}
	a, err := assembly.New(ctx, assembly.Input{
		Agents: opts.Agents, AgentsFS: opts.AgentsFS, Config: &cfg, Models: opts.Models,
		CCSTransport: opts.CCSTransport, TracerProvider: opts.TracerProvider, MeterProvider: opts.MeterProvider,
		Metrics: opts.Metrics, Logger: opts.Logger, Version: opts.Version, A2ACredential: opts.A2ACredential,
		Clock:        opts.Clock,
		Authenticate: authenticator(opts.Authenticate),
	})
	if err != nil {
		return nil, err
	}
	grace := opts.ShutdownGrace
	if grace <= 0 {
		grace = 15 * time.Second
	}
	return &Server{app: a, grace: grace, metrics: opts.Metrics}, nil
}

// serve wraps a surface so that its requests end when the server closes: open event streams
// end (clients resume them elsewhere) instead of holding up shutdown.
func (s *Server) serve(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		closing := s.app.Closing()
		stop := context.AfterFunc(closing, func() { cancel(context.Cause(closing)) })
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

func authenticator(f func(*http.Request) (principal.Principal, error)) principal.Authenticator {
	if f == nil {
		return nil
	}
	return principal.AuthenticatorFunc(f)
}

// Parts returns the assembled parts; see [Parts].
func (s *Server) Parts() Parts {
	return Parts{
		Service: s.app.Service, Hub: s.app.Hub, Orchestrator: s.app.Current(),
		DemoCCS: s.app.Demo, Providers: providerInfos(s.app.Providers),
	}
}

// Handler serves every route: the chat API and its SSE streams, A2A, AG-UI, health and
// readiness, /metrics when configured, and the chat page at /. Mount it at the root of a
// server or under a prefix with http.StripPrefix. It bounds request heads and bodies (with a
// read deadline), checks CORS and (in dev mode) the Host, continues a caller's trace, sets
// security headers, logs each request and answers a panic with 500. [Server.API] and
// [Server.ChatPage] do all of that too; [Server.A2A] and [Server.AGUI] only bound bodies by
// size, continue a caller's trace and answer panics, and leave the rest to the program that
// mounts them.
func (s *Server) Handler() http.Handler { return s.serve(s.app.Handler) }

// API serves the REST API alone: POST /v1/turns, GET /v1/turns/{id}[/events], DELETE
// /v1/turns/{id} and GET /v1/episodes/{id}; other paths get 404. It runs behind the same
// middleware as [Server.Handler].
func (s *Server) API() http.Handler { return s.serve(s.app.API) }

// ChatPage serves the chat page alone (/ and /static/...; in dev mode its sign-in route),
// behind the same middleware as [Server.Handler]. The page calls the REST API relative to its
// own address: mount [Server.API] under the same prefix.
func (s *Server) ChatPage() http.Handler { return s.serve(s.app.Chat) }

// A2A serves the A2A v0.3 surface alone: GET /.well-known/agent-card.json and POST /a2a. It
// bounds request bodies by size, continues a caller's W3C trace and answers a panic with 500,
// but reads bodies without a deadline and writes no access log: give the http.Server a
// ReadTimeout, and log in the program's own middleware.
func (s *Server) A2A() http.Handler { return s.serve(s.app.A2A) }

// AGUI serves the AG-UI surface alone: POST /agui. Like [Server.A2A], it bounds bodies by size,
// continues a caller's trace and answers a panic with 500, and leaves read deadlines, CORS and
// logs to the program that mounts it.
func (s *Server) AGUI() http.Handler { return s.serve(s.app.AGUI) }

// Metrics is Options.Metrics, or nil when none was given.
func (s *Server) Metrics() http.Handler { return s.metrics }

// Reload reads the agents folder again and makes new turns use it when it is valid; running
// turns finish on the set they started with. A broken folder changes nothing and is reported.
func (s *Server) Reload(ctx context.Context) error { return s.app.Reload(ctx) }

// Watch reloads the agents folder whenever a file in it changes, until ctx ends or the server
// is closed. An embedded folder (Options.AgentsFS) cannot be watched.
func (s *Server) Watch(ctx context.Context) error { return s.app.Watch(ctx) }

// DevToken mints a bearer token for user in dev auth mode (the default), for a client or a
// test to sign in with. Other auth modes mint nothing and return an error.
func (s *Server) DevToken(user string, ttl time.Duration) (string, error) {
	if s.app.DevSigner == nil {
		return "", errors.New("switchboard: dev tokens exist only in dev auth mode")
	}
	return s.app.DevSigner.Mint(user, ttl)
}

// Close stops the service gracefully: open event streams end (clients resume them elsewhere
// with Last-Event-ID), running turns get Options.ShutdownGrace (or until ctx ends) to finish,
// then are cancelled, and everything the service opened is released. Call it alongside your
// http.Server's Shutdown: Shutdown stops new requests, and Close ends the streams Shutdown
// would otherwise wait for.
func (s *Server) Close(ctx context.Context) error {
	s.Drain(ctx)
	return s.app.Close()
}

// Drain is the first half of [Server.Close]: it ends open event streams and lets running turns
// finish within Options.ShutdownGrace (or until ctx ends), then cancels the rest, but releases
// nothing, so requests still in flight keep working. Run it while your http.Server shuts
// down, then call Close.
func (s *Server) Drain(ctx context.Context) {
	s.app.StopStreams(httpkit.ErrShuttingDown)
	_ = s.app.WaitStreams(ctx) // they end at once; their goroutines only finish up
	wait, cancel := context.WithTimeout(ctx, s.grace)
	defer cancel()
	if err := s.app.Service.Wait(wait); err != nil {
		s.app.Service.CancelAll()
		_ = s.app.Service.Wait(context.WithoutCancel(ctx))
	}
}

func providerInfos(in []llm.ProviderInfo) []ProviderInfo {
	out := make([]ProviderInfo, len(in))
	for i, p := range in {
		out[i] = ProviderInfo(p)
	}
	return out
}
