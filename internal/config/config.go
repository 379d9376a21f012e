// Package config reads the service's configuration file and applies
// SWITCHBOARD_* environment overrides handed in by cmd, which alone reads the environment.
// Secrets are never in the file: it names the environment variables that hold them.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/internal/llm"
)

// Config is the whole configuration. Every key is optional.
type Config struct {
	// Orchestrator is the id of the orchestrator definition to serve; empty picks the only
	// one in the agents folder.
	Orchestrator string                     `yaml:"orchestrator"`
	Models       map[string]llm.ModelConfig `yaml:"models"`
	CCS          CCS                        `yaml:"ccs"`
	Auth         Auth                       `yaml:"auth"`
	Store        Store                      `yaml:"store"`
	Turns        Turns                      `yaml:"turns"`
	Instance     Instance                   `yaml:"instance"`
	Prompts      Prompts                    `yaml:"prompts"`
	// Flags resolves feature-flag names used by definitions' `enabled:`.
	Flags  map[string]bool `yaml:"flags"`
	A2A    A2A             `yaml:"a2a"`
	Limits Limits          `yaml:"limits"`
	HTTP   HTTP            `yaml:"http"`
	// Breakers tunes the circuit breakers in front of each CCS enricher, remote sub-agent and
	// model alias: open after error_threshold failures within window, one probe call after
	// half_open_after.
	Breakers breaker.Config `yaml:"breakers"`
}

// Limits bound what one principal may use, so that one user cannot exhaust the service. They
// are on by default; a key set to 0 turns that limit off. Over a limit a request gets 429 with
// Retry-After and code rate_limited (A2A: a JSON-RPC error with the same meaning).
type Limits struct {
	// TurnsRunning is how many of a principal's turns may run at once. Counted from the store:
	// it holds across replicas sharing PostgreSQL. Default 8.
	TurnsRunning int `yaml:"turns_running"`
	// TurnsPerMinute is the sustained rate of turn starts per principal, per process (a token
	// bucket). Default 60.
	TurnsPerMinute int `yaml:"turns_per_minute"`
	// TurnsBurst is how many starts may come at once before TurnsPerMinute applies. Default 20.
	TurnsBurst int `yaml:"turns_burst"`
	// StreamsPerPrincipal bounds a principal's open event streams, per process. Default 32.
	StreamsPerPrincipal int `yaml:"streams_per_principal"`
	// StreamsPerTurn bounds the open event streams of one turn, per process. Default 8.
	StreamsPerTurn int `yaml:"streams_per_turn"`
}

// HTTP bounds how long and how much the server reads of a request, so that slow or oversized
// requests cannot hold connections.
type HTTP struct {
	// Zero values take the defaults.

	// ReadHeaderTimeout bounds reading a request's headers. Default 10s.
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	// BodyReadTimeout bounds reading a request's body, from the end of its headers. Default 10s.
	BodyReadTimeout time.Duration `yaml:"body_read_timeout"`
	// MaxHeaderBytes bounds the request line and headers; larger requests get 431. Default
	// 64 KiB.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// CORSOrigins are the web origins ("https://app.example.com") whose pages may call the API
	// from a browser: an AG-UI or A2A client served from another site. "*" allows any origin;
	// requests authenticate with bearer tokens, never cookies. Empty (the default) allows
	// none: the chat page is served from the API's own origin and needs no CORS.
	CORSOrigins []string `yaml:"cors_origins"`
	// DevHosts are host names, besides localhost and IP addresses, that a dev-mode server
	// answers ("devbox.internal"). Dev mode signs anyone in as anyone, so it refuses requests
	// addressed to any other name: a web page the developer visits could otherwise rebind its
	// own name to 127.0.0.1 and call the API. Ignored outside dev mode.
	DevHosts []string `yaml:"dev_hosts"`
}

// A2A configures the A2A surface and calls to remote (a2a_url) sub-agents.
type A2A struct {
	// PublicURL is the base URL the agent card advertises; empty derives it from each request.
	PublicURL string `yaml:"public_url"`
	// CredentialEnv names the env var holding the service credential (a bearer token) sent to
	// remote sub-agents, which act for the turn's user named in each call's metadata when they
	// trust this credential (their trusted_services). In dev mode without it, each call carries
	// a dev token minted for the turn's principal. Unlike other secrets, an unset variable is
	// not fatal: only turns that reach a remote sub-agent need it (the service warns at start).
	CredentialEnv string `yaml:"credential_env"`
	// TrustedServices are the principals (the subjects of service credentials, such as another
	// switchboard's a2a.credential_env token) allowed to act on behalf of the user named in
	// an A2A call's metadata.principal. Everyone else acts only as themselves.
	TrustedServices []string `yaml:"trusted_services"`

	Credential string `yaml:"-"` // resolved from CredentialEnv by cmd
}

// CCS says where the context service is.
type CCS struct {
	// URL is "embedded" (the demo CCS in-process) or the base URL of a CCS.
	URL string `yaml:"url"`
	// CredentialEnv names the env var holding the service credential sent to the CCS.
	CredentialEnv string `yaml:"credential_env"`
	// SigningKeyEnv names the env var holding the envelope HMAC key; when set,
	// unsigned or badly signed envelopes are rejected like a principal mismatch.
	SigningKeyEnv string        `yaml:"signing_key_env"`
	Timeout       time.Duration `yaml:"timeout"`
	// Faults injects failures into the embedded demo CCS, by enricher id.
	Faults map[string]Fault `yaml:"faults"`

	Credential string `yaml:"-"` // resolved from CredentialEnv by cmd
	SigningKey string `yaml:"-"` // resolved from SigningKeyEnv by cmd
}

// Fault is a failure the embedded demo CCS injects for one enricher.
type Fault struct {
	Status         string        `yaml:"status"` // error | partial
	WrongPrincipal bool          `yaml:"wrong_principal"`
	BadSignature   bool          `yaml:"bad_signature"`
	Latency        time.Duration `yaml:"latency"`
	MajorBump      bool          `yaml:"major_bump"`
	HTTPStatus     int           `yaml:"http_status"`
	Hang           bool          `yaml:"hang"`
	Times          int           `yaml:"times"` // 0: every call
}

// Auth configures how bearer tokens are verified.
type Auth struct {
	// Mode is "dev" (the default: a random or SWITCHBOARD_DEV_SECRET HS256 secret, tokens
	// minted by `switchboard token`) or "jwt".
	Mode           string        `yaml:"mode"`
	Issuer         string        `yaml:"issuer"`
	Audience       string        `yaml:"audience"`
	HS256SecretEnv string        `yaml:"hs256_secret_env"`
	PublicKeyFile  string        `yaml:"public_key_file"`
	JWKSURL        string        `yaml:"jwks_url"`
	Leeway         time.Duration `yaml:"leeway"`
	// TurnTokenSecretEnv names the env var holding the key of the turn-scoped tokens in
	// events_url (at least 32 bytes). Replicas must share it; without it the HS256 secret is
	// used, and with neither each process has its own (fine for one replica only).
	TurnTokenSecretEnv string `yaml:"turn_token_secret_env"`

	HS256Secret     string `yaml:"-"` // resolved from HS256SecretEnv (or SWITCHBOARD_DEV_SECRET) by cmd
	TurnTokenSecret string `yaml:"-"` // resolved from TurnTokenSecretEnv by cmd
}

// Store says where episodes, turns and event logs live.
type Store struct {
	Driver string `yaml:"driver"` // sqlite (default), postgres or memory
	DSN    string `yaml:"dsn"`
	DSNEnv string `yaml:"dsn_env"`
	// MaxEpisodes bounds the memory driver, which is for tests and evals: it keeps the newest
	// episodes only (default 1000). The other drivers ignore it.
	MaxEpisodes int `yaml:"max_episodes"`
}

// Turns tunes the life of a turn.
type Turns struct {
	// Deadline bounds a turn, whoever is listening. Default 60s.
	Deadline time.Duration `yaml:"deadline"`
	// CancelOnDisconnect cancels a turn when its streaming client goes away, to save tokens.
	// By default a turn outlives its client, which resumes with Last-Event-ID.
	CancelOnDisconnect bool `yaml:"cancel_on_disconnect"`
}

// Instance names this process to the store, which records it as the owner of the turns it
// runs, and sets the lease by which other processes tell it is alive (docs/operations.md,
// "Crash recovery").
type Instance struct {
	// ID must be unique among the processes sharing a database and stable across restarts of
	// one of them: a process restarting under its id ends at once the turns its previous run
	// left. serve defaults it to the host name and --addr; empty in a library or eval means a
	// random id, whose leftovers end when its lease runs out.
	ID string `yaml:"id"`
	// Heartbeat is how often the lease is renewed and dead processes' turns are swept.
	// Default 5s.
	Heartbeat time.Duration `yaml:"heartbeat"`
	// Lease is how long after its last renewal a process is taken for dead. Default 15s; it
	// must exceed Heartbeat.
	Lease time.Duration `yaml:"lease"`
}

// Prompts tunes prompt assembly.
type Prompts struct {
	// FewShot attaches sub-agents' examples to the orchestrator prompt. Default true.
	FewShot *bool `yaml:"few_shot"`
}

// Default returns the configuration used when no file is given.
func Default() Config {
	return Config{
		Models:   map[string]llm.ModelConfig{llm.DefaultAlias: {Provider: llm.ProviderOffline}},
		CCS:      CCS{URL: "embedded", Timeout: 5 * time.Second},
		Auth:     Auth{Mode: "dev", Issuer: devIssuer, Audience: "switchboard", Leeway: 30 * time.Second},
		Store:    Store{Driver: "sqlite", DSN: defaultSQLiteDSN},
		Turns:    Turns{Deadline: 60 * time.Second},
		Instance: Instance{Heartbeat: 5 * time.Second, Lease: 15 * time.Second},
		Limits:   Limits{TurnsRunning: 8, TurnsPerMinute: 60, TurnsBurst: 20, StreamsPerPrincipal: 32, StreamsPerTurn: 8},
		HTTP:     HTTP{ReadHeaderTimeout: 10 * time.Second, BodyReadTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10},
		Breakers: breaker.Config{ErrorThreshold: breaker.DefaultErrorThreshold, Window: breaker.DefaultWindow, HalfOpenAfter: breaker.DefaultHalfOpenAfter},
	}
}

// Load reads path (empty: defaults only), strictly: an unknown key is an error with its line.
func Load(path string) (Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if err := decodeFile(path, data, &cfg); err != nil {
		return cfg, err
	}
	if cfg.Models == nil {
		cfg.Models = map[string]llm.ModelConfig{}
	}
	if _, ok := cfg.Models[llm.DefaultAlias]; !ok {
		cfg.Models[llm.DefaultAlias] = llm.ModelConfig{Provider: llm.ProviderOffline}
	}
	return cfg, cfg.validateStructure()
}

// decodeFile decodes a config file into cfg, explaining what is wrong in terms of the file:
// file:line, the key, and the closest known key for a misspelt one.
func decodeFile(path string, data []byte, cfg *Config) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := definitions.SyntaxError(err)
		return &FileError{Problems: []string{fmt.Sprintf("%s:%d: invalid YAML: %s", path, line, msg)}}
	}
	if len(doc.Content) == 0 {
		return nil // an empty file is all defaults
	}
	var problems []string
	unknownKeys(&doc, reflect.TypeFor[Config](), "", func(line int, msg string) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", path, line, msg))
	})
	if len(problems) > 0 {
		return &FileError{Problems: problems}
	}
	if err := doc.Decode(cfg); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return fmt.Errorf("config %s: %w", path, err)
		}
		for _, e := range te.Errors {
			problems = append(problems, typeProblem(path, e))
		}
		return &FileError{Problems: problems}
	}
	return nil
}

// defaultSQLiteDSN is the store's file when the config names none.
const defaultSQLiteDSN = "switchboard.db"

// devIssuer is the issuer of the tokens dev mode mints.
const devIssuer = "switchboard-dev"

// Validate reports every problem at once. Model aliases and the store's connection string are
// checked too, so call it once the environment is applied ([Config.ApplyEnv] does).
func (c Config) Validate() error {
	var errs []error
	for alias, m := range c.Models {
		if err := m.Validate(alias); err != nil {
			errs = append(errs, err)
		}
	}
	// Switching the driver alone keeps SQLite's file name, which pgx would only call
	// unparsable.
	// jwt mode left with dev mode's issuer would refuse every token of the real identity
	// provider, each as a bad token, with nothing at start to say why.
	if c.Auth.Mode == "jwt" && c.Auth.Issuer == devIssuer {
		errs = append(errs, errors.New("config: auth mode jwt needs auth.issuer (or SWITCHBOARD_AUTH_ISSUER): the iss your identity provider puts in its tokens; switchboard-dev is dev mode's"))
	}
	if c.Store.Driver == "postgres" && (c.Store.DSN == "" || c.Store.DSN == defaultSQLiteDSN) {
		errs = append(errs, errors.New("config: store driver postgres needs a connection string: set store.dsn_env (or SWITCHBOARD_STORE_DSN) to one such as postgres://user@host:5432/switchboard"))
	}
	return errors.Join(append(errs, c.validateStructure())...)
}

// validateStructure checks what does not depend on the environment.
func (c Config) validateStructure() error {
	var errs []error
	switch c.Auth.Mode {
	case "dev", "":
	case "jwt":
		n := 0
		for _, set := range []bool{c.Auth.HS256SecretEnv != "", c.Auth.PublicKeyFile != "", c.Auth.JWKSURL != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, errors.New("config: auth mode jwt needs exactly one of hs256_secret_env, public_key_file, jwks_url"))
		}
		if c.Auth.Issuer == "" || c.Auth.Audience == "" {
			errs = append(errs, errors.New("config: auth mode jwt needs issuer and audience"))
		}
	default:
		errs = append(errs, fmt.Errorf("config: auth mode %q is not dev or jwt", c.Auth.Mode))
	}
	if c.Store.Driver == "postgres" && c.Auth.TurnTokenSecretEnv == "" && c.Auth.HS256SecretEnv == "" && c.Auth.Mode == "jwt" {
		errs = append(errs, errors.New("config: with several replicas (store driver postgres) set auth.turn_token_secret_env so that every replica accepts the events_url tokens the others mint"))
	}
	switch c.Store.Driver {
	case "sqlite", "postgres", "memory", "":
	default:
		errs = append(errs, fmt.Errorf("config: store driver %q is not sqlite, postgres or memory", c.Store.Driver))
	}
	if c.Instance.Heartbeat < 0 || c.Instance.Lease < 0 || (c.Instance.Heartbeat > 0 && c.Instance.Lease > 0 && c.Instance.Lease <= c.Instance.Heartbeat) {
		errs = append(errs, errors.New("config: instance.heartbeat and instance.lease must be positive, and the lease longer than the heartbeat"))
	}
	if c.Store.MaxEpisodes < 0 {
		errs = append(errs, errors.New("config: store.max_episodes must be positive"))
	}
	if c.Turns.Deadline < 0 {
		errs = append(errs, errors.New("config: turns.deadline must be positive"))
	}
	for _, svc := range c.A2A.TrustedServices {
		if strings.TrimSpace(svc) == "" {
			errs = append(errs, errors.New("config: a2a.trusted_services lists an empty principal"))
		}
	}
	l := c.Limits
	if l.TurnsRunning < 0 || l.TurnsPerMinute < 0 || l.TurnsBurst < 0 || l.StreamsPerPrincipal < 0 || l.StreamsPerTurn < 0 {
		errs = append(errs, errors.New("config: limits must be 0 (off) or positive"))
	}
	if c.HTTP.ReadHeaderTimeout < 0 || c.HTTP.BodyReadTimeout < 0 {
		errs = append(errs, errors.New("config: http.read_header_timeout and http.body_read_timeout must be positive"))
	}
	if err := c.Breakers.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("config: %w", err))
	}
	if err := llm.CheckFallbacks(c.Models); err != nil {
		errs = append(errs, fmt.Errorf("config: %w", err))
	}
	if c.HTTP.MaxHeaderBytes != 0 && c.HTTP.MaxHeaderBytes < 4<<10 {
		errs = append(errs, errors.New("config: http.max_header_bytes must be at least 4096"))
	}
	for _, o := range c.HTTP.CORSOrigins {
		if err := checkOrigin(o); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Auth.Mode == "dev" && slices.Contains(c.HTTP.CORSOrigins, "*") {
		// Dev auth mints a token for anyone who asks: with any origin allowed, any page a
		// developer opens could drive their instance.
		errs = append(errs, errors.New(`config: http.cors_origins: "*" is refused with dev auth; list the origins`))
	}
	return errors.Join(errs...)
}

// checkOrigin accepts "*" or a web origin: scheme and host, an optional port, no path.
func checkOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.Contains(u.Host, "*") {
		return fmt.Errorf("config: http.cors_origins: %q is not an origin such as https://app.example.com", o)
	}
	// Browsers send an origin without its scheme's default port and in lower case; one
	// written otherwise would never match.
	if p := u.Port(); (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") || o != strings.ToLower(o) {
		return fmt.Errorf("config: http.cors_origins: %q never matches what a browser sends; write it as %s://%s", o, u.Scheme, strings.ToLower(u.Hostname()))
	}
	return nil
}

// ApplyEnv applies the SWITCHBOARD_* overrides ([Config.ApplyOverrides]), resolves the
// secrets named by *_env keys, and then validates the result. lookup is os.LookupEnv in cmd
// and a map in tests.
func (c *Config) ApplyEnv(lookup func(string) (string, bool)) error {
	var errs []error
	if err := c.ApplyOverrides(lookup); err != nil {
		errs = append(errs, err)
	}
	secret := func(env string, dst *string, what string) {
		if err := resolveSecret(lookup, env, dst, what); err != nil {
			errs = append(errs, err)
		}
	}
	for alias, m := range c.Models {
		secret(m.APIKeyEnv, &m.APIKey, "models."+alias+".api_key_env")
		c.Models[alias] = m
	}
	if err := c.CCS.ResolveSecrets(lookup); err != nil {
		errs = append(errs, err)
	}
	secret(c.Auth.HS256SecretEnv, &c.Auth.HS256Secret, "auth.hs256_secret_env")
	if c.A2A.CredentialEnv != "" {
		c.A2A.Credential, _ = lookup(c.A2A.CredentialEnv) // unset: warned about at start, not fatal
	}
	secret(c.Auth.TurnTokenSecretEnv, &c.Auth.TurnTokenSecret, "auth.turn_token_secret_env")
	if c.Store.DSNEnv != "" {
		secret(c.Store.DSNEnv, &c.Store.DSN, "store.dsn_env")
	}
	// The variable hs256_secret_env names wins over the dev secret, as `switchboard token`
	// signs: otherwise serve would refuse every token it mints when both are set.
	if (c.Auth.Mode == "dev" || c.Auth.Mode == "") && c.Auth.HS256SecretEnv == "" {
		if v, ok := lookup("SWITCHBOARD_DEV_SECRET"); ok && v != "" {
			c.Auth.HS256Secret = v
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return c.Validate()
}

// ResolveSecrets sets the credential and signing key from the environment variables the ccs
// section names: all a command that serves or calls the CCS alone needs of the environment.
func (c *CCS) ResolveSecrets(lookup func(string) (string, bool)) error {
	return errors.Join(
		resolveSecret(lookup, c.CredentialEnv, &c.Credential, "ccs.credential_env"),
		resolveSecret(lookup, c.SigningKeyEnv, &c.SigningKey, "ccs.signing_key_env"),
	)
}

// resolveSecret sets *dst to the value of the environment variable env, which the config key
// what names; an empty env names none.
func resolveSecret(lookup func(string) (string, bool), env string, dst *string, what string) error {
	if env == "" {
		return nil
	}
	v, ok := lookup(env)
	if !ok || v == "" {
		return fmt.Errorf("config: %s names env var %s, which is not set", what, env)
	}
	*dst = v
	return nil
}

// ApplyOverrides applies the SWITCHBOARD_* settings of the environment (not the secrets that
// *_env keys name): what a command that needs no secret, such as validate, must see as serve
// sees it.
func (c *Config) ApplyOverrides(lookup func(string) (string, bool)) error {
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok && v != "" {
			*dst = v
		}
	}
	str("SWITCHBOARD_ORCHESTRATOR", &c.Orchestrator)
	str("SWITCHBOARD_CCS_URL", &c.CCS.URL)
	str("SWITCHBOARD_AUTH_MODE", &c.Auth.Mode)
	str("SWITCHBOARD_AUTH_ISSUER", &c.Auth.Issuer)
	str("SWITCHBOARD_AUTH_AUDIENCE", &c.Auth.Audience)
	str("SWITCHBOARD_AUTH_JWKS_URL", &c.Auth.JWKSURL)
	str("SWITCHBOARD_AUTH_PUBLIC_KEY_FILE", &c.Auth.PublicKeyFile)
	str("SWITCHBOARD_STORE_DRIVER", &c.Store.Driver)
	str("SWITCHBOARD_STORE_DSN", &c.Store.DSN)
	str("SWITCHBOARD_INSTANCE_ID", &c.Instance.ID)
	var errs []error
	if v, ok := lookup("SWITCHBOARD_TURNS_DEADLINE"); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: SWITCHBOARD_TURNS_DEADLINE: %w", err))
		}
		c.Turns.Deadline = d
	}
	if v, ok := lookup("SWITCHBOARD_CANCEL_ON_DISCONNECT"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: SWITCHBOARD_CANCEL_ON_DISCONNECT: %w", err))
		}
		c.Turns.CancelOnDisconnect = b
	}
	return errors.Join(errs...)
}
