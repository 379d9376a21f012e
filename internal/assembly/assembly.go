package assembly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/switchboard-ai/switchboard/a2aserver"
	"github.com/switchboard-ai/switchboard/agui"
	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/internal/store"
	"github.com/switchboard-ai/switchboard/internal/telemetry"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
	"github.com/switchboard-ai/switchboard/web"
)

// App is the service wired from its configuration: definitions, models, the CCS client
// (embedded demo or remote), sub-agent runtimes injected into the orchestrator, the store,
// the turn service and the HTTP routes. The root package's Server adds the lifecycle around it.
type App struct {
	// Definitions and Orchestrator are the set loaded at start; after a reload ([App.Reload]), turns
	// use the new set (Service.Orchestrator).
	Definitions  *definitions.Set
	Orchestrator *orchestrator.Orchestrator
	Service      *orchestrator.Service
	Hub          *stream.Hub
	// Handler serves every surface; API, Chat, A2A and AGUI each serve one of them.
	Handler   http.Handler
	API, Chat http.Handler
	A2A       *a2aserver.Handler
	AGUI      *agui.Handler
	// Demo is the embedded demo CCS, nil when the CCS is remote.
	Demo *ccsdemo.Server
	// DevSigner mints dev tokens; nil unless auth mode is dev.
	DevSigner *principal.DevSigner
	// Providers describes the configured models, without keys, for /readyz.
	Providers []llm.ProviderInfo
	// Audit is the append-only audit log, kept in the store beside the turns.
	Audit *audit.Log

	binder  *binder
	current atomic.Pointer[boundAgents] // the set new turns start with
	reloads reloadStatus
	// reloadMu serialises reloads; reloadCount counts them by result.
	reloadMu    sync.Mutex
	reloadCount metric.Int64Counter
	// readStamp is the agents folder's [folderStamp] when it was last read, under reloadMu.
	readStamp   string
	closers     []func() error
	routes      *web.Handler // Handler, for what only web's own type offers
	closing     context.Context
	stopStreams context.CancelCauseFunc
	log         *slog.Logger
	sweeper     *staleSweeper // nil when the store cannot abandon turns
}

// New wires the service from o, which the root package completed: o.Config and o.Agents are set.
// Close releases what it opened.
func New(ctx context.Context, o Input) (_ *App, err error) {
	cfg := *o.Config
	tel := ask.Telemetry{Tracers: o.TracerProvider, Meters: o.MeterProvider, Logger: o.Logger}.OrDefaults()
	o.TracerProvider, o.MeterProvider, o.Logger = tel.Tracers, tel.Meters, tel.Logger
	a := &App{log: o.Logger}
	// Open event streams end with closing, so that an http.Server's Shutdown, which waits for
	// every handler, can return, and detached streams (which it does not wait for) end too.
	a.closing, a.stopStreams = context.WithCancelCause(context.WithoutCancel(ctx))
	if c := cfg.A2A; c.CredentialEnv != "" && c.Credential == "" {
		o.Logger.Warn("a2a.credential_env names an unset variable: calls to remote (a2a_url) sub-agents carry no service credential"+
			" (in dev mode, a dev token for the turn's user)", "env", c.CredentialEnv)
	}
	defer func() {
		if err != nil {
			_ = a.Close()
		}
	}()
	w := &wiring{App: a, cfg: cfg, o: o, audited: auditor{a}} // its hooks run once a.Audit is open, before any request
	for _, step := range []func(context.Context) error{w.models, w.agents, w.turns, w.routes} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// wiring is [New] at work: each step wires one part of the App and keeps here what a later
// step needs. Whatever a step opens is added to the App's closers at once, so that a later
// step's failure closes it.
type wiring struct {
	*App
	cfg     config.Config
	o       Input
	audited auditor

	breakers  *breaker.Set                              // set by models
	llm       func(alias string) (llmModel, error)      // set by models
	bound     *boundAgents                              // set by agents
	store     appStore                                  // set by turns
	onLimited func(p principal.Principal, limit string) // set by turns
}

// models opens the configured models behind their circuit breakers, with usage metrics.
// Models given in Input take precedence over configured ones of the same alias.
func (w *wiring) models(ctx context.Context) error {
	o := w.o
	usage, err := newLLMUsage(o.MeterProvider, w.cfg.Models)
	if err != nil {
		return err
	}
	breakers, err := breaker.New(w.cfg.Breakers, breaker.WithMeterProvider(o.MeterProvider), breaker.WithLogger(o.Logger))
	if err != nil {
		return err
	}
	w.breakers = breakers
	w.closers = append(w.closers, breakers.Close)
	reg, err := llm.NewRegistry(ctx, w.cfg.Models, llm.WithUsageHook(usage.record), llm.WithBreakers(breakers),
		llm.WithMeterProvider(o.MeterProvider), llm.WithModels(o.Models))
	if err != nil {
		return err
	}
	w.Providers = reg.Describe()
	w.llm = func(alias string) (llmModel, error) {
		if m, ok := o.Models[alias]; ok {
			return m, nil
		}
		return reg.Model(alias)
	}
	return nil
}

// agents connects the CCS (the embedded demo or a remote one) and loads and binds the agents
// folder: the set turns start with.
func (w *wiring) agents(ctx context.Context) error {
	cfg := w.cfg
	w.readStamp = folderStamp(w.o) // before the fixtures and definitions are read
	enricher, fixtures, err := w.ccsClient(cfg.CCS, w.o.CCSTransport, w.o)
	if err != nil {
		return err
	}
	// Typed payloads for the demo's own enrichers, when the demo answers; every other
	// (domain type, enricher) pair reaches the models as the JSON its CCS sent.
	registry := ccs.NewRegistry()
	if w.Demo != nil {
		if err := ccsdemo.Register(registry); err != nil {
			return err
		}
	}
	check := ccs.CheckOptions{}
	if cfg.CCS.SigningKey != "" {
		check.SigningKey = []byte(cfg.CCS.SigningKey)
	}
	w.binder = &binder{
		cfg: cfg, opts: w.o, models: w.llm, enricher: breaker.NewEnricher(w.breakers, enricher), breakers: w.breakers, registry: registry, check: check,
		credential: w.remoteCredential(w.o.A2ACredential, cfg.A2A), onSuppressed: w.audited.suppressed,
	}
	b, err := w.binder.load()
	if err != nil {
		return err
	}
	w.bound = b
	w.Definitions, w.Orchestrator = b.defs, b.orc
	w.current.Store(b)
	if w.Demo != nil {
		w.warnDomainMismatches(ctx, b.defs, fixtures)
	}
	w.reloads.succeeded(len(b.defs.All()))
	w.reloadCount, err = newReloadCounter(w.o.MeterProvider)
	return err
}

// turns opens the store and the audit log beside it, and starts the turn service, the event
// hub and, for a store that can, the sweeper of turns a dead process left running.
func (w *wiring) turns(ctx context.Context) error {
	cfg, o := w.cfg, w.o
	st, err := w.openStore(ctx, cfg.Store, store.WithInstance(cfg.Instance.ID))
	if err != nil {
		return err
	}
	w.store = st
	if err := w.openAudit(st, o); err != nil {
		return err
	}
	// A replay waiting on a turn whose end never reached the store ends on its own.
	hubOpts := []stream.HubOption{stream.WithLostAfter(orchestrator.LostAfter(cfg.Turns.Deadline))}
	if cfg.Store.Driver == "memory" {
		hubOpts = append(hubOpts, stream.WithStoreTimeout(0)) // its writes cannot hang
	}
	w.Hub = stream.NewHub(st, hubOpts...)
	w.closers = append(w.closers, func() error { w.Hub.Close(); return nil })
	countLimited, err := limitedCounter(o.MeterProvider)
	if err != nil {
		return err
	}
	w.onLimited = w.audited.limited(countLimited)
	w.Service, err = orchestrator.NewService(orchestrator.ServiceConfig{
		Orchestrator: w.bound.orc, Store: st, Hub: w.Hub, Deadline: cfg.Turns.Deadline,
		Forbidden: w.bound.forbidden, Logger: o.Logger, Annotate: telemetry.WithTurnID,
		Limits: turnLimits(cfg.Limits), OnLimited: w.onLimited, Audit: w.audited,
	})
	if err != nil {
		return err
	}
	w.closers = append(w.closers, func() error { w.Service.Close(); return nil })
	if s, ok := st.(recoverer); ok {
		// Ends the turns a process that died (this one before a restart, another replica) left
		// running, which followers and cancels would otherwise wait on forever, and on every
		// heartbeat stores the turn ends this process could not store in time.
		heartbeat, lease := cmp.Or(cfg.Instance.Heartbeat, defaultHeartbeat), cmp.Or(cfg.Instance.Lease, defaultLease)
		w.sweeper = startStaleSweeper(ctx, s, staleAge(cfg.Turns.Deadline), heartbeat, lease, o.Logger, w.Service.Settle)
		w.closers = append(w.closers, w.sweeper.stop)
	}
	return nil
}

// routes wires authentication and the HTTP surfaces: the REST API and chat page, A2A and
// AG-UI, which share the stream limits.
func (w *wiring) routes(ctx context.Context) error {
	cfg, o, a := w.cfg, w.o, w.App
	verifier, err := a.authenticator(ctx, cfg.Auth)
	if err != nil {
		return err
	}
	auth := o.Authenticate
	if auth == nil {
		auth = principal.BearerAuth(verifier)
	}
	streams := httpkit.NewStreamCounter(streamLimits(cfg.Limits), w.onLimited)
	a.A2A, err = a2aserver.New(a2aserver.Config{
		Service: a.Service, Hub: a.Hub, Auth: auth, Streams: streams, Logger: o.Logger,
		Orchestrator: w.bound.orcDef, SubAgents: w.bound.orc.SubAgents(), PublicURL: cfg.A2A.PublicURL, Version: o.Version,
		TrustedServices: trustedServices(cfg.A2A.TrustedServices), CancelOnDisconnect: cfg.Turns.CancelOnDisconnect,
		OnDelegated: w.audited.delegated,
		Current: func() (*definitions.Definition, []*definitions.Definition) {
			cur := a.current.Load()
			return cur.orcDef, cur.orc.SubAgents()
		},
	})
	if err != nil {
		return err
	}
	a.AGUI, err = agui.New(agui.Config{Service: a.Service, Hub: a.Hub, Auth: auth, Streams: streams, Logger: o.Logger})
	if err != nil {
		return err
	}
	turnTokens, err := principal.NewTurnTokens(a.turnTokenKey(cfg), 10*time.Minute)
	if err != nil {
		return err
	}
	breakers := w.breakers
	wcfg := web.Config{
		Service: a.Service, Hub: a.Hub, Auth: auth, TurnTokens: turnTokens,
		Metrics: o.Metrics, CancelOnDisconnect: cfg.Turns.CancelOnDisconnect, Logger: o.Logger,
		Streams: streams, A2A: a.A2A, AGUI: a.AGUI,
		BodyReadTimeout: cfg.HTTP.BodyReadTimeout, MaxHeaderBytes: cfg.HTTP.MaxHeaderBytes,
		CORSOrigins:   cfg.HTTP.CORSOrigins,
		DetachStreams: a.closing,
		Check:         storeReady(w.store),
		Ready: func() map[string]any {
			r := map[string]any{
				"providers": a.Providers, "orchestrator": a.current.Load().orcDef.ID, "ccs": ccsMode(cfg.CCS),
				"store": storeDriver(cfg.Store), "definitions": a.reloads.status(),
				"breakers_open": breakers.Open(),
			}
			return r
		},
	}
	if a.DevSigner != nil {
		wcfg.DevHosts = append([]string{}, cfg.HTTP.DevHosts...) // not nil: the check is on
		if o.Authenticate == nil {
			// With the embedding program's own sign-in, a dev token would be ignored anyway.
			wcfg.DevLogin = w.audited.devLogin(func(sub string) (string, error) { return a.DevSigner.Mint(sub, 12*time.Hour) })
		}
		if a.Demo != nil {
			wcfg.DevFaults = devFaults(a.Demo, func() []string { return a.current.Load().forbidden })
		}
	}
	routes, err := web.New(wcfg)
	if err != nil {
		return err
	}
	a.Handler, a.routes = routes, routes
	a.API, a.Chat = routes.API(), routes.Chat()
	// Closers run last first: the streams end, and stop reading the store, before it closes.
	a.closers = append(a.closers, func() error {
		a.stopStreams(httpkit.ErrShuttingDown)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return routes.WaitStreams(ctx)
	})
	return nil
}

// Close waits for nothing: callers drain turns with Service.Wait first.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	return errors.Join(errs...)
}

func trustedServices(names []string) []principal.Principal {
	out := make([]principal.Principal, 0, len(names))
	for _, n := range names {
		out = append(out, principal.Principal(n))
	}
	return out
}

// remoteCredential picks the bearer token for calls to remote sub-agents: the option, else the
// configured static credential, else in dev mode a dev token minted for the turn's principal
// (so two dev instances sharing SWITCHBOARD_DEV_SECRET can delegate to each other).
func (a *App) remoteCredential(given func(context.Context, principal.Principal) (string, error), c config.A2A) func(context.Context, principal.Principal) (string, error) {
	switch {
	case given != nil:
		return given
	case c.Credential != "":
		return func(context.Context, principal.Principal) (string, error) { return c.Credential, nil }
	}
	return func(_ context.Context, p principal.Principal) (string, error) {
		if a.DevSigner == nil { // set before any turn runs
			return "", errors.New("no credential configured for remote sub-agents (a2a.credential_env)")
		}
		return a.DevSigner.Mint(string(p), 5*time.Minute)
	}
}

// turnTokenKey is the key of the turn-scoped tokens in events_url. Every replica must share it,
// or a browser reconnecting to another replica gets 404: the configured turn token secret, else
// the HS256 secret (NewTurnTokens derives its own key from it), else a per-process random key,
// which only a single replica may use.
func (a *App) turnTokenKey(cfg config.Config) []byte {
	switch {
	case cfg.Auth.TurnTokenSecret != "":
		return []byte(cfg.Auth.TurnTokenSecret)
	case len(cfg.Auth.HS256Secret) >= 32:
		return []byte(cfg.Auth.HS256Secret)
	}
	return principal.RandomSecret()
}

// ChooseOrchestrator returns the orchestrator a service configured with cfg starts with, or
// the error it refuses to start with: what `switchboard validate` checks ahead of serve.
func ChooseOrchestrator(defs *definitions.Set, cfg config.Config) (*definitions.Definition, error) {
	return pickOrchestrator(defs, cfg.Orchestrator, cfg.Flags)
}

// pickOrchestrator returns the orchestrator the config names or, when it names none, the only
// one its flags leave on. A flag on an orchestrator lets a team ship a new version of it beside
// the old one; an orchestrator named by the config but switched off is an error rather than a
// silent fall back to another.
func pickOrchestrator(defs *definitions.Set, id string, flags map[string]bool) (*definitions.Definition, error) {
	on := func(d *definitions.Definition) bool {
		return d.Enabled.Resolve(func(f string) bool { return flags[f] })
	}
	if id != "" {
		d, ok := defs.Get(id)
		if !ok || d.Kind != definitions.KindOrchestrator {
			return nil, fmt.Errorf("no orchestrator %q in the agents folder", id)
		}
		if !on(d) {
			return nil, fmt.Errorf("the config chooses orchestrator %q, which is disabled: %s", id, offBecause(d, flags))
		}
		return d, nil
	}
	orcs := defs.Orchestrators()
	var enabled []*definitions.Definition
	for _, d := range orcs {
		if on(d) {
			enabled = append(enabled, d)
		}
	}
	switch {
	case len(orcs) == 0:
		return nil, errors.New("the agents folder has no orchestrator definition")
	case len(enabled) == 1:
		return enabled[0], nil
	case len(enabled) == 0:
		var why []string
		for _, d := range orcs {
			why = append(why, fmt.Sprintf("%s: %s", d.ID, offBecause(d, flags)))
		}
		return nil, fmt.Errorf("every orchestrator is disabled (%s)", strings.Join(why, "; "))
	default:
		return nil, errors.New("the agents folder has several orchestrators: choose one with `orchestrator:` in the config")
	}
}

// offBecause says why d, which is off, is off.
func offBecause(d *definitions.Definition, flags map[string]bool) string {
	switch {
	case d.Enabled.Flag == "":
		return "enabled: false"
	case d.Enabled.UnsetIn(flags) != "":
		return fmt.Sprintf("flag %s is not set in the config's flags", d.Enabled.Flag)
	default:
		return fmt.Sprintf("flag %s is off", d.Enabled.Flag)
	}
}

func modelAlias(d *definitions.Definition) string {
	if d.Model == "" {
		return llm.DefaultAlias
	}
	return d.Model
}

// ccsClient returns the client of the configured CCS, or of the embedded demo CCS with the
// fixtures it answers from.
func (a *App) ccsClient(c config.CCS, transport http.RoundTripper, o Input) (*ccs.Client, map[string]ccsdemo.Fixture, error) {
	cc := ccs.ClientConfig{BaseURL: c.URL, Credential: c.Credential, Timeout: c.Timeout}
	if transport != nil {
		cc.HTTPClient = &http.Client{Transport: transport}
	}
	var fixtures map[string]ccsdemo.Fixture
	if c.URL == "" || c.URL == "embedded" {
		var err error
		fixtures, err = loadFixtures(o)
		if err != nil {
			return nil, nil, err
		}
		opts := ccsdemo.Options{Credential: c.Credential, Faults: map[string]ccsdemo.Fault{}, Fixtures: fixtures}
		if c.SigningKey != "" {
			opts.SigningKey = []byte(c.SigningKey)
		}
		for id, f := range c.Faults {
			opts.Faults[id] = ccsdemo.Fault(f)
		}
		a.Demo = ccsdemo.New(opts)
		cc.BaseURL = "http://ccs.embedded"
		cc.HTTPClient = &http.Client{Transport: ccs.NewInProcessTransport(a.Demo)}
	}
	client, err := ccs.NewClient(cc)
	return client, fixtures, err
}

func (a *App) authenticator(ctx context.Context, c config.Auth) (principal.TokenVerifier, error) {
	if c.Mode == "" || c.Mode == "dev" {
		secret := []byte(c.HS256Secret)
		if len(secret) == 0 {
			secret = principal.RandomSecret()
		}
		s, err := principal.NewDevSigner(secret, c.Issuer, c.Audience)
		if err != nil {
			return nil, err
		}
		a.DevSigner = s
		return s.Verifier(), nil
	}
	vc := principal.VerifierConfig{Issuer: c.Issuer, Audience: c.Audience, JWKSURL: c.JWKSURL, Leeway: c.Leeway}
	if c.HS256Secret != "" {
		vc.HS256Secret = []byte(c.HS256Secret)
	}
	if c.PublicKeyFile != "" {
		pem, err := readFile(c.PublicKeyFile)
		if err != nil {
			return nil, fmt.Errorf("auth public_key_file: %w", err)
		}
		vc.PublicKeyPEM = pem
	}
	v, err := principal.NewVerifier(vc)
	if err != nil {
		return nil, err
	}
	if c.JWKSURL != "" {
		// Fetch the keys now rather than on the first user's request; a failure is retried on
		// demand, so it does not stop start-up.
		if err := v.Refresh(ctx); err != nil {
			a.log.WarnContext(ctx, "JWKS not loaded yet", "err", err)
		}
	}
	return v, nil
}

func (a *App) openStore(ctx context.Context, c config.Store, opts ...store.Option) (appStore, error) {
	switch c.Driver {
	case "memory":
		return store.NewMemory(append(opts, store.WithMaxEpisodes(c.MaxEpisodes))...), nil
	default:
		s, err := openDurable(ctx, c, opts...)
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, s.Close)
		return s, nil
	}
}

// loadFixtures reads the demo CCS fixtures beside the agent definitions (fixtures/), which
// answer the enrichers of agents the demo does not know.
func loadFixtures(o Input) (map[string]ccsdemo.Fixture, error) {
	if o.AgentsFS != nil {
		return ccsdemo.LoadFixtures(o.AgentsFS, path.Join(o.Agents, ccsdemo.FixturesDir))
	}
	return ccsdemo.LoadFixturesDir(filepath.Join(o.Agents, ccsdemo.FixturesDir))
}

func ccsMode(c config.CCS) string {
	if c.URL == "" || c.URL == "embedded" {
		return "embedded demo"
	}
	return "remote"
}

func storeDriver(c config.Store) string {
	if c.Driver == "" {
		return "sqlite"
	}
	return c.Driver
}

// Closing ends when the service starts shutting down; requests derive from it so that open
// event streams end then.
func (a *App) Closing() context.Context { return a.closing }

// StopStreams ends every open event stream with cause, and WaitStreams waits until their
// goroutines have finished.
func (a *App) StopStreams(cause error) { a.stopStreams(cause) }

// WaitStreams waits until every event stream ended by [App.StopStreams] has finished.
func (a *App) WaitStreams(ctx context.Context) error { return a.routes.WaitStreams(ctx) }

// Current is the orchestrator new turns start with; it changes on [App.Reload].
func (a *App) Current() *orchestrator.Orchestrator { return a.current.Load().orc }
