// Command switchboard serves chat turns with an orchestrator LLM that routes to specialist
// sub-agents defined in YAML, and carries the tools around it: init, validate, token, ccs-demo,
// eval, audit and version.
//
// Only this command reads the environment; everything below it is configured explicitly.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `switchboard: an orchestrator LLM that routes chat turns to specialist sub-agents.

Usage:
  switchboard serve     [--addr HOST:PORT] [--metrics-addr HOST:PORT [--pprof]] [--agents ./agents] [--config FILE]
                        [--dev] [--log-format text|json] [--watch=false] [--trace-stdout]
  switchboard init      [DIR]                      write the demo's definitions into DIR (./agents) to start from
  switchboard validate  [--agents ./agents] [--config FILE]
  switchboard token     --sub NAME [--ttl 24h] [--config FILE]
  switchboard ccs-demo  [--addr 127.0.0.1:8081] [--config FILE] [--fixtures ./agents/fixtures] [--allow-header-faults]
  switchboard eval      --dataset FILE... [--agents DIR] [--config FILE] [--target URL] [--report DIR]
                        [--min-accuracy 0.95] [--min-answer 0.85] [--concurrency 4] [--suggest FILE]
                        [--baseline report.json [--fail-on-regression]] [--no-coverage-gate] [--judge-model ALIAS]
                        [--today YYYY-MM-DD]
  switchboard audit     [--since 2h|TIME] [--principal NAME] [--type TYPE] [--json] [--config FILE]
  switchboard version

With no ./agents folder, serve, validate and eval use the demo agents built into the binary.
Run "switchboard COMMAND --help" for a command's flags.

Environment (overrides the config file):
  SWITCHBOARD_DEV_SECRET   HS256 secret of dev mode (at least 32 bytes); serve and token share it
  SWITCHBOARD_AUTH_MODE    dev or jwt; SWITCHBOARD_AUTH_ISSUER, _AUDIENCE, _JWKS_URL, _PUBLIC_KEY_FILE
  SWITCHBOARD_CCS_URL      "embedded" or the base URL of a CCS
  SWITCHBOARD_STORE_DRIVER sqlite, postgres or memory; SWITCHBOARD_STORE_DSN
  SWITCHBOARD_INSTANCE_ID  this process among those sharing the database (default host/--addr)
  SWITCHBOARD_TURNS_DEADLINE, SWITCHBOARD_CANCEL_ON_DISCONNECT, SWITCHBOARD_ORCHESTRATOR
  OTEL_EXPORTER_OTLP_ENDPOINT (and the other OTEL_EXPORTER_OTLP_* variables) export traces
                           over OTLP/HTTP (port 4318); gRPC needs a build with -tags otlpgrpc
`

func main() {
	ctx, stop := signalContext(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// signalContext returns a context that the first SIGINT or SIGTERM ends, which stops serve
// gracefully. A second one ends the process at once with status 130, whatever handling it
// inherited (a script's background job starts with SIGINT ignored); the turns it interrupts
// are ended as failed when the next process starts, as after a crash.
func signalContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() { // lives as long as the process
		<-sigs
		cancel()
		<-sigs
		fmt.Fprintln(stderr, "switchboard: second signal: stopping at once")
		os.Exit(130)
	}()
	return ctx, func() { signal.Stop(sigs); cancel() }
}

// env is how commands read the environment: os.LookupEnv in main, a map in tests.
type env func(string) (string, bool)

// run dispatches a command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, lookup env) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "serve":
		err = serveCmd(ctx, rest, stdout, stderr, lookup)
	case "validate":
		err = validateCmd(rest, stdout, stderr, lookup)
	case "token":
		err = tokenCmd(rest, stdout, stderr, lookup)
	case "ccs-demo":
		err = ccsDemoCmd(ctx, rest, stdout, stderr, lookup)
	case "eval":
		err = evalCmd(ctx, rest, stdout, stderr, lookup)
	case "audit":
		err = auditCmd(ctx, rest, stdout, stderr, lookup)
	case "init":
		err = initCmd(rest, stdout, stderr)
	case "version", "--version":
		err = versionCmd(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "switchboard: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	return exitCode(err, stderr)
}

// versionCmd prints the binary's version. It parses flags like every other command, so
// --help prints its usage and exits 0 there too.
func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "Usage: switchboard version\n\nPrints the version of this binary.") }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("version takes no arguments, got %q", fs.Args())
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, "switchboard", describeVersion(version, info))
	return nil
}

// describeVersion is v, and for a binary built without -ldflags (go build, go install) the
// commit it was built from, which go records when it builds inside a git checkout: otherwise
// every such binary would say only "dev".
func describeVersion(v string, info *debug.BuildInfo) string {
	if v != "dev" || info == nil {
		return v
	}
	var rev string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		return v + " (commit " + rev + ", with local changes)"
	}
	return v + " (commit " + rev + ")"
}
