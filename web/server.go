package web

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
	"github.com/switchboard-ai/switchboard/internal/gostack"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

//go:embed static
var static embed.FS

// aguiRoute is where Config.AGUI is mounted.
const aguiRoute = "/agui"

// TurnService is what the handlers need of the turn service; [orchestrator.Service] is it. It
// is an interface so that handlers depend on these operations only, and a test can put a fake
// behind them.
type TurnService interface {
	Start(ctx context.Context, req orchestrator.StartRequest) (rec orchestrator.TurnRecord, existing bool, err error)
	Cancel(ctx context.Context, p principal.Principal, turnID string) error
	Turn(ctx context.Context, p principal.Principal, turnID string) (orchestrator.TurnRecord, error)
	Episode(ctx context.Context, p principal.Principal, episodeID string) (orchestrator.Episode, error)
	EpisodeTail(ctx context.Context, p principal.Principal, episodeID string, n int) (ep orchestrator.Episode, more bool, err error)
}

var _ TurnService = (*orchestrator.Service)(nil)

// Config holds what [New] needs.
type Config struct {
	Service TurnService
	// Hub serves the turns' event logs; it stays concrete, as [stream.ServeSSE] reads it.
	Hub *stream.Hub
	// Auth tells whom each request speaks for: principal.BearerAuth over a token verifier,
	// or a program's own sign-in.
	Auth       principal.Authenticator
	TurnTokens *principal.TurnTokens
	// Ready reports readiness details for /readyz (providers configured, store, CCS); it must
	// never include secrets. Nil reports only that the process is up.
	Ready func() map[string]any
	// Check, when set, says whether the process can serve turns now (the store reachable and
	// writable): an error makes /readyz answer 503 with Retry-After.
	Check func(ctx context.Context) error
	// Metrics serves /metrics; nil leaves the route out.
	Metrics http.Handler
	// DevLogin mints a token for a user name; set only in dev mode, for the chat page.
	DevLogin func(sub string) (string, error)
	// DevFaults serves PUT/DELETE /v1/dev/ccs-faults (fault injection into the embedded
	// demo CCS, for evals against a live dev server); nil leaves the route out.
	DevFaults http.Handler
	// CancelOnDisconnect cancels a turn whose streaming client goes away
	// (config turns.cancel_on_disconnect). By default turns outlive their clients.
	CancelOnDisconnect bool
	// MaxBody bounds request bodies; default 64 KiB.
	MaxBody int64
	// CORSOrigins are the web origins allowed to call the API from a browser (config
	// http.cors_origins); "*" allows any. Empty adds no CORS headers.
	CORSOrigins []string
	// BodyReadTimeout bounds reading a request's body, from the end of its headers (config
	// http.body_read_timeout); default 10 s. A body that does not arrive in time gets 408 and
	// its connection is closed.
	BodyReadTimeout time.Duration
	// MaxHeaderBytes bounds a request's line and headers (config http.max_header_bytes);
	// default 64 KiB. Larger requests get 431 in the JSON error shape.
	MaxHeaderBytes int
	// DevHosts, when not nil, makes the server answer only requests addressed (Host header)
	// to localhost, a name under .localhost, an IP address or one of these names: set in dev
	// mode, where anyone may sign in as anyone, so that a web page cannot reach a developer's
	// server through DNS rebinding.
	DevHosts []string
	// SSE tunes event streams.
	SSE stream.SSEOptions
	// DetachStreams, when set, lets event streams over HTTP/1.x leave their handler once
	// they start (see stream.Detach), so that an idle stream costs a few kilobytes instead of
	// a request's worth; they end when this context does (a server shutting down). Nil keeps
	// each stream on its request's goroutine.
	DetachStreams context.Context
	// Streams counts the event streams each principal (and each turn) holds open, shared
	// with the other surfaces; nil counts none.
	Streams *httpkit.StreamCounter
	// A2A, when set, serves GET /.well-known/agent-card.json and POST /a2a (see package
	// a2aserver); AGUI, when set, serves POST /agui (package agui). Both pass through this
	// handler's middleware: bounds, CORS, dev hosts, access log.
	A2A    http.Handler
	AGUI   http.Handler
	Logger *slog.Logger
}

type server struct {
	cfg Config
	log *slog.Logger
	// detached counts the event streams running apart from their handlers.
	detached sync.WaitGroup
}

// Handler serves switchboard's HTTP API and chat page.
type Handler struct {
	server          *server
	engine          *gin.Engine
	maxHeaderBytes  int
	bodyReadTimeout time.Duration
}

var _ http.Handler = (*Handler)(nil)

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A turn's request reaches about 32 KiB of stack: the middleware, the token's claims
	// decoded, the turn started and its stream taken over. Each connection's goroutine is new
	// (a turn's stream closes its connection), so grown in steps it would copy its stack twice
	// a turn (1% of the server's CPU).
	gostack.To32K(len(r.URL.Path))
	if r = h.bounded(w, r); r != nil && !redirectToSlash(w, r) {
		h.engine.ServeHTTP(w, r)
	}
}

// New returns the HTTP handler of the service.
func New(cfg Config) (*Handler, error) {
	if cfg.Service == nil || cfg.Hub == nil || cfg.Auth == nil || cfg.TurnTokens == nil {
		return nil, errors.New("web: service, hub, authenticator and turn tokens are required")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Streams == nil {
		cfg.Streams = httpkit.NewStreamCounter(httpkit.StreamLimits{}, nil)
	}
	s := &server{cfg: cfg, log: cfg.Logger}

	gin.SetMode(gin.ReleaseMode) // no debug route dump; our own access log says what matters
	r := gin.New()
	r.Use(s.recover, securityHeaders, s.traceContext, s.accessLog)
	if cfg.DevHosts != nil {
		check, err := devHostsOnly(cfg.DevHosts)
		if err != nil {
			return nil, err
		}
		r.Use(check)
	}
	if len(cfg.CORSOrigins) > 0 {
		r.Use(corsFor(cfg.CORSOrigins))
	}
	r.Use(s.maxBody)
	r.HandleMethodNotAllowed = true
	// gin would redirect /v1/turns/ to /v1/turns itself, before any middleware: past the dev
	// hosts check, out of a mount prefix, and without dropping a body still arriving. Such
	// paths get the 404 every other unknown path gets.
	r.RedirectTrailingSlash = false
	r.NoRoute(func(c *gin.Context) { httpkit.NotFound(c.Writer, c.Request); c.Abort() })
	r.NoMethod(func(c *gin.Context) {
		httpkit.DropBody(c.Writer, c.Request)
		if isPreflight(c.Request) {
			// No CORS layer answered it: no origin is allowed. The page's developer reads
			// which setting allows one, where a 405 would send them looking at the method.
			abort(c, http.StatusForbidden, "origin_not_allowed", originRefused)
			return
		}
		abort(c, http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed here.")
	})

	r.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/readyz", s.ready)
	if cfg.Metrics != nil {
		r.GET("/metrics", gin.WrapH(cfg.Metrics))
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	r.GET("/", func(c *gin.Context) { c.FileFromFS("/", http.FS(sub)) })
	r.StaticFS("/static", http.FS(sub))

	v1 := r.Group("/v1")
	v1.POST("/turns", s.requireBearer, s.postTurn)
	v1.GET("/turns/:id", s.requireBearer, s.getTurn)
	v1.GET("/turns/:id/events", s.requireTurnAccess, s.turnEvents)
	v1.DELETE("/turns/:id", s.requireBearer, s.deleteTurn)
	v1.GET("/episodes/:id", s.requireBearer, s.getEpisode)
	if cfg.AGUI != nil {
		r.POST(aguiRoute, gin.WrapH(cfg.AGUI))
	}
	if cfg.A2A != nil {
		r.GET("/.well-known/agent-card.json", gin.WrapH(cfg.A2A))
		r.POST("/a2a", gin.WrapH(cfg.A2A))
	}
	if cfg.DevLogin != nil {
		r.POST(devTokenPath, s.devToken)
	}
	switch {
	case cfg.DevFaults != nil:
		v1.PUT("/dev/ccs-faults", s.requireBearer, gin.WrapH(cfg.DevFaults))
		v1.DELETE("/dev/ccs-faults", s.requireBearer, gin.WrapH(cfg.DevFaults))
	case cfg.DevLogin != nil:
		// A dev server with a CCS of its own has no faults to inject: say why, rather than
		// "no such route", to whoever points an eval with faults at it.
		noFaults := func(c *gin.Context) {
			httpkit.DropBody(c.Writer, c.Request)
			abort(c, http.StatusConflict, "ccs_not_embedded", "CCS faults can be injected only into the embedded demo CCS; this server calls the CCS at its config's ccs.url")
		}
		v1.PUT("/dev/ccs-faults", s.requireBearer, noFaults)
		v1.DELETE("/dev/ccs-faults", s.requireBearer, noFaults)
	}
	return &Handler{server: s, engine: r, maxHeaderBytes: cfg.MaxHeaderBytes, bodyReadTimeout: cfg.BodyReadTimeout}, nil
}

// API serves the REST API alone: /v1/... (the dev sign-in route excepted). Other paths get
// 404. It shares this handler's middleware and streams.
func (h *Handler) API() http.Handler {
	return h.only(func(path string) bool { return strings.HasPrefix(path, "/v1/") && path != devTokenPath })
}

// Chat serves the chat page alone: / and /static/..., and in dev mode its sign-in route. The
// page calls the REST API at v1/... relative to its own address, so mount [Handler.API]
// beside it, under the same prefix.
func (h *Handler) Chat() http.Handler {
	return h.only(func(path string) bool {
		return path == "" || path == "/" || strings.HasPrefix(path, "/static/") || path == devTokenPath
	})
}

// redirectToSlash sends a GET of the bare mount point (/assistant, which http.StripPrefix
// hands on as an empty path) to /assistant/: the chat page resolves its assets and API calls
// against its own address, and without the slash they would miss the prefix.
func redirectToSlash(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	prefix := httpkit.MountPrefix(r)
	if prefix == "" {
		return false
	}
	// One leading slash only: "//host/" would send the browser to another site.
	prefix = "/" + strings.TrimLeft(prefix, "/")
	target := (&url.URL{Path: prefix + "/", RawQuery: r.URL.RawQuery}).String()
	http.Redirect(w, r, target, http.StatusMovedPermanently)
	return true
}

// devTokenPath is the chat page's dev sign-in.
const devTokenPath = "/v1/dev/token"

func (h *Handler) only(serves func(path string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !serves(r.URL.Path) {
			// With the body's deadline set, the 404 can stop reading a body still arriving.
			httpkit.NotFound(w, httpkit.WithBodyDeadline(w, r, h.bodyReadTimeout))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// WaitStreams waits until the event streams that left their handlers (Config.DetachStreams)
// have ended, or ctx does. End them first by ending DetachStreams.
func (h *Handler) WaitStreams(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.server.detached.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *server) ready(c *gin.Context) {
	body := gin.H{"status": "ready"}
	if s.cfg.Ready != nil {
		for k, v := range s.cfg.Ready() {
			body[k] = v
		}
	}
	if s.cfg.Check != nil {
		if err := s.cfg.Check(c.Request.Context()); err != nil {
			s.log.WarnContext(c.Request.Context(), "not ready", "err", err)
			body["status"] = "unavailable"
			c.Header("Retry-After", httpkit.RetryUnavailable)
			c.JSON(http.StatusServiceUnavailable, body)
			return
		}
	}
	c.JSON(http.StatusOK, body)
}

// recover turns a handler panic into a plain 500; the panic goes to the log only.
func (s *server) recover(c *gin.Context) {
	defer func() {
		if p := recover(); p != nil {
			if errors.Is(asError(p), http.ErrAbortHandler) {
				panic(p)
			}
			s.log.ErrorContext(c.Request.Context(), "handler panic", "path", c.FullPath(), "panic", p)
			abort(c, http.StatusInternalServerError, "internal", httpkit.Internal)
		}
	}()
	c.Next()
}

func asError(p any) error {
	err, _ := p.(error)
	return err
}

// corsFor lets pages of the given origins call the API: preflights are answered before any
// route, and the headers a streaming client reads (Retry-After on 429 and 503) are exposed.
// Tokens travel as bearer headers, so credentials (cookies) stay off.
func corsFor(origins []string) gin.HandlerFunc {
	cfg := cors.Config{
		AllowMethods:  []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodPut},
		AllowHeaders:  []string{"Authorization", "Content-Type", "Accept", "Last-Event-ID", "Traceparent", "Tracestate"},
		ExposeHeaders: []string{"Retry-After"},
		MaxAge:        10 * time.Minute,
	}
	if slices.Contains(origins, "*") {
		cfg.AllowAllOrigins = true
	} else {
		cfg.AllowOrigins = origins
		cfg.AllowOriginWithContextFunc = func(c *gin.Context, origin string) bool {
			return origin == publicOrigin(c.Request)
		}
	}
	return dropsBody(cors.New(cfg))
}

// dropsBody runs a middleware that may answer a request itself, before any handler reads
// its body (the CORS middleware refuses an origin and answers preflights): such an answer
// does not wait for a body still arriving, and a refusal says why in the JSON error shape,
// where the middleware writes a bare 403.
func dropsBody(mw gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		w := c.Writer
		c.Writer = &bodyDropper{ResponseWriter: w, req: c.Request}
		defer func() { c.Writer = w }()
		mw(c)
	}
}

// isPreflight reports whether r is a browser's CORS preflight: OPTIONS asking, for a page of
// some origin, whether a method may follow.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

// originRefused is what a page of an origin the config does not list is told; it names the
// setting, never the origins it holds.
const originRefused = "This API does not accept requests from this page's origin. Its operator can allow the origin in http.cors_origins."

// bodyDropper drops the request's body ([httpkit.DropBody]) as the response's head is
// written, and gives a 403 written with no body of its own the JSON error body.
type bodyDropper struct {
	gin.ResponseWriter
	req *http.Request
}

func (b *bodyDropper) WriteHeaderNow() {
	if b.Written() {
		return
	}
	b.drop()
	if b.Status() == http.StatusForbidden {
		httpkit.WriteError(b.ResponseWriter, http.StatusForbidden, "origin_not_allowed", originRefused)
		return
	}
	b.ResponseWriter.WriteHeaderNow()
}

func (b *bodyDropper) Write(p []byte) (int, error) {
	b.drop()
	return b.ResponseWriter.Write(p)
}

func (b *bodyDropper) WriteString(s string) (int, error) {
	b.drop()
	return b.ResponseWriter.WriteString(s)
}

func (b *bodyDropper) drop() {
	if !b.Written() {
		httpkit.DropBody(b.ResponseWriter, b.req)
	}
}

// publicOrigin is the origin a proxy in front says the request came to (X-Forwarded-Host and
// -Proto), or "" without one. The middleware takes a request whose Origin is its own Host
// for a same-origin one; behind a proxy that rewrites Host, the chat page's own requests
// match this instead. A page of another site cannot pass for it: its Origin is its own.
func publicOrigin(r *http.Request) string {
	host, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ",")
	if host = strings.TrimSpace(host); host == "" {
		return ""
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if proto = strings.TrimSpace(proto); proto == "" {
		proto = "http"
		if r.TLS != nil {
			proto = "https"
		}
	}
	return proto + "://" + host
}

// accessLog writes one line per request. The query is left out: it may carry a turn token.
func (s *server) accessLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", c.Writer.Status()),
		// As text ("1.2ms"): a JSON log would print a Duration as nanoseconds.
		slog.String("took", time.Since(start).String()),
	}
	if c.GetBool(detachedKey) {
		// took covers the head only: "event stream ended" says how long the stream ran.
		attrs = append(attrs, slog.Bool("stream_detached", true))
	}
	s.log.LogAttrs(c.Request.Context(), slog.LevelInfo, "http", attrs...)
}

// securityHeaders keeps the page and API from being framed or sniffed, and keeps URLs out of
// Referer headers: events_url carries a turn token in its query.
func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	for _, kv := range securityHeaderValues {
		h[kv.key] = kv.values // as Set would, without a new slice each response (gin does the same)
	}
	c.Next()
}

// securityHeaderValues are securityHeaders' headers, keys canonical, each value a slice of its
// own shared by every response: Set would replace it, Add copies it (its capacity is full).
var securityHeaderValues = []struct {
	key    string
	values []string
}{
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"Referrer-Policy", []string{"no-referrer"}},
	{"X-Frame-Options", []string{"DENY"}},
	{"Content-Security-Policy", []string{"default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"}},
}

// traceContext continues an incoming W3C traceparent, so a turn's span joins the caller's trace.
func (s *server) traceContext(c *gin.Context) {
	ctx := otel.GetTextMapPropagator().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// maxBody bounds request bodies: gin has no limit of its own.
func (s *server) maxBody(c *gin.Context) {
	// AG-UI bounds its own body: its clients send the whole conversation with every run.
	if c.Request.Body != nil && c.FullPath() != aguiRoute {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.cfg.MaxBody)
	}
	c.Next()
}
