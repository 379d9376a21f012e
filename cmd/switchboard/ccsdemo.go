package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/telemetry"
)

func ccsDemoCmd(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) error {
	fs := flag.NewFlagSet("ccs-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "HOST:PORT to listen on; :8081 for every interface (it serves the demo users' data to whoever reaches it)")
	cfgPath := fs.String("config", "", "config file whose ccs section sets credential_env, signing_key_env and faults")
	headerFaults := fs.Bool("allow-header-faults", false, "accept per-request faults in the X-Demo-Fault header (tests)")
	fixturesDir := fs.String("fixtures", "./agents/fixtures", "folder of <enricher id>.json fixtures answering enrichers the demo does not serve itself (see docs/adding-an-agent.md)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: switchboard ccs-demo [flags]\n\nRuns the demo context service (CCS) over HTTP, with fixtures for alice and bob and\noptional fault injection. Point serve at it with ccs: {url: http://HOST:PORT}.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("ccs-demo takes no arguments, got %q", fs.Args())
	}
	// The default folder may be absent (the demo then answers its own enrichers only); one the
	// user names must exist, or a misspelt path would serve no fixture without a word.
	if named(fs, "fixtures") {
		if fi, err := os.Stat(*fixturesDir); err != nil || !fi.IsDir() {
			return usageError("--fixtures %s is not a folder", *fixturesDir)
		}
	}
	ccsCfg, err := ccsDemoConfig(*cfgPath, lookup)
	if err != nil {
		return err
	}
	fixtures, err := ccsdemo.LoadFixturesDir(*fixturesDir)
	if err != nil {
		return err
	}
	opts := ccsdemo.Options{Credential: ccsCfg.Credential, AllowHeaderFaults: *headerFaults, Faults: map[string]ccsdemo.Fault{}, Fixtures: fixtures}
	if ccsCfg.SigningKey != "" {
		opts.SigningKey = []byte(ccsCfg.SigningKey)
	}
	for id, f := range ccsCfg.Faults {
		opts.Faults[id] = ccsdemo.Fault(f)
	}
	log := telemetry.NewLogger(stderr, telemetry.Options{Level: slog.LevelInfo, Secrets: nonEmpty(ccsCfg.Credential, ccsCfg.SigningKey)})
	ln, err := listen("--addr", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: ccsdemo.New(opts), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("demo CCS listening", "url", "http://"+displayAddr(ln.Addr()), "faults", len(opts.Faults), "fixtures", len(fixtures))
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// named reports whether the command line set the flag name.
func named(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// ccsDemoConfig is the ccs section of the config at path, with the SWITCHBOARD_* overrides
// applied and its two secrets resolved as serve resolves them. The rest of the file is not
// resolved: the demo CCS needs no model key, and a serve config whose keys are not set where
// the demo runs must not stop it.
func ccsDemoConfig(path string, lookup env) (config.CCS, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return config.CCS{}, err
	}
	if err := cfg.ApplyOverrides(lookup); err != nil {
		return config.CCS{}, err
	}
	c := cfg.CCS
	if err := c.ResolveSecrets(lookup); err != nil {
		return config.CCS{}, err
	}
	return c, nil
}

// nonEmpty is the secrets of ss that are set, for the logger to redact.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
