package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/internal/telemetry"
	"github.com/switchboard-ai/switchboard/web"
)

// shutdownGrace is how long running turns get to finish after a stop signal.
const shutdownGrace = 15 * time.Second

type serveFlags struct {
	addr, agents, config string
	metricsAddr          string
	dev, traceStdout     bool
	logFormat            string
	watch                bool
	pprof                bool
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	fs.StringVar(&f.addr, "addr", "", "HOST:PORT to listen on (default 127.0.0.1:8080 in dev mode, where anyone who reaches the port can sign in as anyone; :8080 otherwise)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "HOST:PORT to serve /metrics on, alone, instead of on --addr (keeps metrics off the public listener)")
	fs.StringVar(&f.agents, "agents", defaultAgentsDir, "folder of Agent Definition YAML files (the built-in demo agents when ./agents is absent)")
	fs.StringVar(&f.config, "config", "", "config file (YAML, see README); every key is optional")
	fs.BoolVar(&f.dev, "dev", false, "force dev mode: dev auth, text logs (the default when no auth is configured)")
	fs.BoolVar(&f.traceStdout, "trace-stdout", false, "print spans to stdout (dev)")
	fs.StringVar(&f.logFormat, "log-format", "", "text or json (default: text in dev mode, json otherwise)")
	fs.BoolVar(&f.pprof, "pprof", false, "serve net/http/pprof under /debug/pprof/ on --metrics-addr (needs --metrics-addr; off by default)")
	fs.BoolVar(&f.watch, "watch", true, "reload the agents folder when a file in it changes (SIGHUP reloads too); --watch=false turns watching off")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard serve [flags]\n\nServes the chat API and page. With no config it runs fully embedded: offline model,\ndemo CCS, SQLite store (switchboard.db) and dev auth.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("serve takes no arguments, got %q", fs.Args())
	}
	if f.logFormat != "" && f.logFormat != "text" && f.logFormat != "json" {
		return usageError("--log-format is text or json, got %q", f.logFormat)
	}
	if err := checkAgentsFlag(f.agents); err != nil {
		return err
	}
	if f.pprof && f.metricsAddr == "" {
		// Profiles show request data and cost CPU to take: never on the public listener.
		return usageError("--pprof needs --metrics-addr: profiles are served only on the private metrics listener")
	}
	return serve(ctx, f, stdout, stderr, lookup, nil)
}

// serve runs the service until ctx ends. ready, when set, receives the bound address (tests).
func serve(ctx context.Context, f serveFlags, stdout, stderr io.Writer, lookup env, ready chan<- string) error {
	cfg, err := switchboard.LoadConfig(f.config, switchboard.WithEnv(lookup))
	if err != nil {
		return err
	}
	if f.dev {
		cfg.Auth.Mode = "dev"
	}
	dev := cfg.Auth.Mode == "" || cfg.Auth.Mode == "dev"
	if dev && cfg.Auth.HS256Secret == "" {
		secret, err := devSecret(lookup, true)
		if err != nil {
			return err
		}
		cfg.Auth.HS256Secret = string(secret)
	}
	f.addr = listenAddr(f.addr, dev)
	if sameListener(f.metricsAddr, f.addr) {
		// Caught here, the second listen would fail once everything was built, blaming
		// "another process".
		return usageError("--metrics-addr %s is --addr too: metrics get a listener of their own, on another port", f.metricsAddr)
	}

	host, _ := os.Hostname()
	if cfg.Instance.ID == "" {
		// Unique among processes sharing a database (two cannot listen on one address of one
		// host) and the same after a restart, which then ends its predecessor's turns at once.
		cfg.Instance.ID = host + "/" + f.addr
	}
	otlp := telemetry.ConfigFromEnv(lookup)
	sampler, err := telemetry.SamplerFromEnv(lookup)
	if err != nil {
		return err
	}
	secrets := append(secretsOf(cfg), otlp.Secrets()...)
	tel, err := telemetry.Setup(ctx, telemetry.Config{
		ServiceName: "switchboard", Version: version, Instance: host,
		Dev: dev, Sampler: sampler, TraceStdout: f.traceStdout, Stdout: stdout, OTLP: otlp, Secrets: secrets,
	})
	if err != nil {
		return err
	}
	jsonLogs := f.logFormat == "json" || (f.logFormat == "" && !dev)
	log := telemetry.NewLogger(stderr, telemetry.Options{JSON: jsonLogs, Level: slog.LevelInfo, Secrets: secrets})
	slog.SetDefault(log)
	defer shutdownTelemetry(ctx, tel, log) // runs last: it exports what closing the service traced

	opts := switchboard.Options{
		Config: &cfg, Logger: log, Version: version, ShutdownGrace: shutdownGrace,
		TracerProvider: tel.TracerProvider(), MeterProvider: tel.MeterProvider(), Metrics: tel.MetricsHandler(),
	}
	if f.metricsAddr != "" {
		opts.Metrics = nil // on its own listener only
		stop, err := serveMetrics(f.metricsAddr, tel.MetricsHandler(), f.pprof, cfg.HTTP.ReadHeaderTimeout, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	var builtIn bool
	agentsShown := f.agents // what the start log says is served
	if opts.Agents, opts.AgentsFS, builtIn = agentsSource(f.agents); builtIn {
		log.Info("no ./agents folder: serving the built-in demo agents")
		agentsShown = "embedded demo"
	}
	// The API's address is taken before the service is built, which takes seconds (the store's
	// migrations, the offline model's data): a port in use is said at once.
	ln, err := listen("--addr", f.addr)
	if err != nil {
		return err
	}
	sb, err := switchboard.New(ctx, opts)
	if err != nil {
		_ = ln.Close()
		return withAgentsHint(err)
	}
	defer func() {
		if err := sb.Close(context.WithoutCancel(ctx)); err != nil {
			log.Error("closing the service", "err", err) // the store may have lost its last writes
		}
	}()
	if f.watch && opts.AgentsFS == nil {
		if err := sb.Watch(ctx); err != nil {
			log.Warn("not watching the agents folder: reload with SIGHUP", "dir", opts.Agents, "err", err)
		}
	}
	stopHUP := reloadOnHangup(ctx, sb)
	defer stopHUP()

	base, cancelBase := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelBase(nil)
	srv := web.NewHTTPServer(sb.Handler(), web.ServerOptions{ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout, MaxHeaderBytes: cfg.HTTP.MaxHeaderBytes})
	srv.BaseContext = func(net.Listener) context.Context { return base }
	served := make(chan error, 1)
	go func() { served <- srv.Serve(web.JSONErrors(ln)) }()

	url := "http://" + displayAddr(ln.Addr())
	listening := []any{"url", url, "agents", agentsShown, "dev", dev}
	if !dev {
		// What a bearer token must carry, for the operator whose tokens are refused.
		listening = append(listening, "auth_issuer", cfg.Auth.Issuer, "auth_audience", cfg.Auth.Audience)
	}
	log.Info("switchboard listening", listening...)
	if dev && !isLoopback(ln.Addr()) {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		log.Warn("dev mode on a non-loopback address: anyone who can reach it can sign in as any user (POST /v1/dev/token); use --addr 127.0.0.1:" + port + " or configure auth for anything shared")
	}
	if tok, err := sb.DevToken("alice", 24*time.Hour); dev && err == nil {
		// Printed for the developer at the terminal, deliberately not through the logger.
		fmt.Fprintf(stderr, "\n  switchboard is running in dev mode: open %s\n  bearer token for alice (24h): %s\n  more with: switchboard token --sub bob\n\n", url, tok)
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing running turns (a second Ctrl-C stops at once)", "grace", shutdownGrace.String()) // as text: JSON logs print a Duration in nanoseconds
	// Open event streams never go idle: Drain ends them at once, so Shutdown can return while
	// the running turns get their grace period.
	cancelBase(httpkit.ErrShuttingDown)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	drained := make(chan struct{})
	go func() { sb.Drain(sctx); close(drained) }()
	stopHTTP(sctx, srv, log)
	<-drained
	log.Info("stopped")
	return nil
}

// stopHTTP shuts srv down within ctx, then closes the connections whose requests outlived it:
// the service they use is about to close, and their clients learn at once that it is gone.
func stopHTTP(ctx context.Context, srv *http.Server, log *slog.Logger) {
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("closing the connections still open after the grace period", "err", err)
		if err := srv.Close(); err != nil {
			log.Warn("closing the listener", "err", err)
		}
	}
}

// telemetryFlushTimeout bounds the export of the last spans and metrics at exit.
const telemetryFlushTimeout = 5 * time.Second

// shutdownTelemetry flushes and stops tel. A failure is logged, not returned: the service
// itself stopped cleanly, but the operator must learn that its last spans and metrics are
// lost (an exporter that cannot be reached, a flush that timed out).
func shutdownTelemetry(ctx context.Context, tel interface{ Shutdown(context.Context) error }, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlushTimeout)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		log.Error("flushing telemetry at exit: the last spans and metrics may be lost", "err", err)
	}
}

// serveMetrics serves GET /metrics on its own listener until stop is called, and with withPprof
// the runtime profiles under /debug/pprof/; nothing else.
func serveMetrics(addr string, metrics http.Handler, withPprof bool, readHeaderTimeout time.Duration, log *slog.Logger) (stop func(), err error) {
	ln, err := listen("--metrics-addr", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	if withPprof {
		// Routed by hand: the package registers itself only on http.DefaultServeMux, which
		// nothing here serves, so the profiles exist on this listener alone.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		log.Info("profiling on", "url", "http://"+displayAddr(ln.Addr())+"/debug/pprof/")
	}
	srv := web.NewHTTPServer(mux, web.ServerOptions{ReadHeaderTimeout: readHeaderTimeout})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	log.Info("metrics listening", "url", "http://"+displayAddr(ln.Addr())+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// reloadOnHangup reloads the agent definitions on each SIGHUP until the returned func is called.
func reloadOnHangup(ctx context.Context, a interface{ Reload(context.Context) error }) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				_ = a.Reload(ctx) // logged, counted and shown in /readyz
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(hup); close(done) }
}

// listen opens the TCP listener a flag names. Its errors name the flag and say what to do:
// net.Listen's own ("listen tcp 127.0.0.1:8080: bind: address already in use") name neither.
func listen(flag, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	var bad *net.AddrError
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s %s: another process already listens there; stop it or pass another port", flag, addr)
	case errors.As(err, &bad):
		return nil, fmt.Errorf("%s %q cannot be listened on (%s): write HOST:PORT, such as 127.0.0.1:8080, or :PORT for every interface", flag, addr, bad.Err)
	}
	return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
}

// displayAddr turns ":8080" into "localhost:8080" for the message a human reads.
func displayAddr(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// secretsOf lists the configured secrets, which the log handler removes wherever they appear.
func secretsOf(cfg switchboard.Config) []string {
	out := []string{cfg.Auth.HS256Secret, cfg.Auth.TurnTokenSecret, cfg.CCS.Credential, cfg.CCS.SigningKey, cfg.A2A.Credential}
	for _, m := range cfg.Models {
		out = append(out, m.APIKey)
	}
	var nonEmpty []string
	for _, s := range out {
		if s != "" {
			nonEmpty = append(nonEmpty, s)
		}
	}
	return nonEmpty
}

// listenAddr is the address serve listens on: addr as given, or by default all interfaces
// when auth is configured and only this machine in dev mode, which lets anyone who reaches
// the port mint a token for any user.
func listenAddr(addr string, dev bool) string {
	switch {
	case addr != "":
		return addr
	case dev:
		return "127.0.0.1:8080"
	}
	return ":8080"
}

// sameListener reports whether --metrics-addr names the address --addr listens on. Port 0
// twice is two ports the system picks.
func sameListener(metricsAddr, addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return metricsAddr == addr && err == nil && port != "0"
}
