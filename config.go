package switchboard

import (
	"maps"
	"os"
	"time"

	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
)

// Config is the content of switchboard's config file as a Go value. Every field is optional;
// [DefaultConfig] is where to start, and [LoadConfig] reads a file the way `switchboard serve`
// does. Secrets are never in the file: *Env fields name the environment variables that hold
// them, and the fields without YAML keys (APIKey, Credential, ...) carry the resolved values.
type Config struct {
	// Orchestrator is the id of the orchestrator definition to serve; empty picks the only
	// one in the agents folder.
	Orchestrator string `yaml:"orchestrator"`
	// Models maps model aliases, which definitions name in `model:`, to providers. The alias
	// "default" is used by every definition without one.
	Models map[string]ModelConfig `yaml:"models"`
	CCS    CCSConfig              `yaml:"ccs"`
	Auth   AuthConfig             `yaml:"auth"`
	Store  StoreConfig            `yaml:"store"`
	Turns  TurnsConfig            `yaml:"turns"`
	// Instance names this process to a store shared by several replicas.
	Instance InstanceConfig `yaml:"instance"`
	Prompts  PromptsConfig  `yaml:"prompts"`
	// Flags resolves the feature-flag names definitions use in `enabled:`.
	Flags  map[string]bool `yaml:"flags"`
	A2A    A2AConfig       `yaml:"a2a"`
	Limits LimitsConfig    `yaml:"limits"`
	HTTP   HTTPConfig      `yaml:"http"`
	// Breakers tunes the circuit breakers in front of each CCS enricher, remote sub-agent and
	// model alias.
	Breakers BreakersConfig `yaml:"breakers"`
}

// BreakersConfig tunes the circuit breakers. While a breaker is open, calls to its target
// fail at once as unavailable instead of each waiting out its own failure.
type BreakersConfig struct {
	// ErrorThreshold is how many failures within Window open a breaker. Default 5.
	ErrorThreshold int `yaml:"error_threshold"`
	// Window is how far back failures are counted. Default 60 s.
	Window time.Duration `yaml:"window"`
	// HalfOpenAfter is how long an open breaker refuses calls before it lets one probe
	// through. Default 30 s.
	HalfOpenAfter time.Duration `yaml:"half_open_after"`
}

// ModelConfig configures one model alias: which provider answers and how to reach it.
type ModelConfig struct {
	// Provider is one of openai, anthropic, ollama, googleai, offline.
	Provider string `yaml:"provider"`
	// Model is the provider's model name (required except for offline).
	Model string `yaml:"model,omitempty"`
	// BaseURL points openai at any OpenAI-compatible server, ollama at its host, and anthropic
	// or googleai at a proxy.
	BaseURL string `yaml:"base_url,omitempty"`
	// APIKeyEnv names the environment variable that holds the key.
	APIKeyEnv string `yaml:"api_key_env,omitempty"`
	// APIKey is the resolved key: never read from or written to files, never printed.
	APIKey string `yaml:"-"`
	// Temperature, when set, is sent with every call unless the call overrides it.
	Temperature *float64 `yaml:"temperature,omitempty"`
	// MaxTokens, when positive, caps the reply length unless the call overrides it.
	MaxTokens int `yaml:"max_tokens,omitempty"`
	// Timeout bounds one call including its retries; 0 means 60 s.
	Timeout time.Duration `yaml:"timeout,omitempty"`
	// Retries is how many times a retryable failure (429, 5xx, connection error) is retried;
	// 0 means 2, a negative value disables retries.
	Retries int `yaml:"retries,omitempty"`
	// Fallback lists other aliases tried, in order, when this one fails after its retries or
	// its breaker is open; never once text has been streamed to the user.
	Fallback []string `yaml:"fallback,omitempty"`
}

// CCSConfig says where the context service is.
type CCSConfig struct {
	// URL is "embedded" (the demo CCS in-process) or the base URL of a CCS.
	URL string `yaml:"url"`
	// CredentialEnv names the env var holding the service credential sent to the CCS.
	CredentialEnv string `yaml:"credential_env"`
	// SigningKeyEnv names the env var holding the envelope HMAC key; when set, unsigned or
	// badly signed envelopes are refused like a principal mismatch.
	SigningKeyEnv string `yaml:"signing_key_env"`
	// Timeout bounds one CCS call. Default 5 s.
	Timeout time.Duration `yaml:"timeout"`
	// Faults injects failures into the embedded demo CCS, by enricher id.
	Faults map[string]Fault `yaml:"faults"`

	Credential string `yaml:"-"` // resolved from CredentialEnv
	SigningKey string `yaml:"-"` // resolved from SigningKeyEnv
}

// Fault is a failure the embedded demo CCS injects for one enricher; [ccsdemo.Fault] says what
// each field does.
type Fault struct {
	// Status replaces the envelope's: error, partial, or any other value, sent as it is, to
	// exercise the handling of a status the consumer does not know.
	Status         string        `yaml:"status"`
	WrongPrincipal bool          `yaml:"wrong_principal"`
	BadSignature   bool          `yaml:"bad_signature"`
	Latency        time.Duration `yaml:"latency"`
	MajorBump      bool          `yaml:"major_bump"`
	HTTPStatus     int           `yaml:"http_status"`
	Hang           bool          `yaml:"hang"`
	Times          int           `yaml:"times"` // 0: every call
}

// AuthConfig configures how bearer tokens are verified. [Options].Authenticate replaces it
// for a program with authentication of its own.
type AuthConfig struct {
	// Mode is "dev" (the default: an HS256 secret, random unless SWITCHBOARD_DEV_SECRET is
	// set, and tokens minted by `switchboard token`) or "jwt".
	Mode     string `yaml:"mode"`
	Issuer   string `yaml:"issuer"`
	Audience string `yaml:"audience"`
	// Exactly one of these three keys the jwt mode.
	HS256SecretEnv string `yaml:"hs256_secret_env"`
	PublicKeyFile  string `yaml:"public_key_file"`
	JWKSURL        string `yaml:"jwks_url"`
	// Leeway is the clock skew allowed on exp and nbf. Default 30 s.
	Leeway time.Duration `yaml:"leeway"`
	// TurnTokenSecretEnv names the env var holding the key of the turn-scoped tokens in
	// events_url (at least 32 bytes). Replicas must share it.
	TurnTokenSecretEnv string `yaml:"turn_token_secret_env"`

	HS256Secret     string `yaml:"-"` // resolved from HS256SecretEnv (or SWITCHBOARD_DEV_SECRET)
	TurnTokenSecret string `yaml:"-"` // resolved from TurnTokenSecretEnv
}

// StoreConfig says where episodes, turns and event logs live.
type StoreConfig struct {
	Driver string `yaml:"driver"` // sqlite (default), postgres or memory
	DSN    string `yaml:"dsn"`
	DSNEnv string `yaml:"dsn_env"`
	// MaxEpisodes bounds the memory driver, which keeps the newest episodes only (default
	// 1000). The other drivers ignore it.
	MaxEpisodes int `yaml:"max_episodes"`
}

// TurnsConfig tunes the life of a turn.
type TurnsConfig struct {
	// Deadline bounds a turn, whoever is listening. Default 60 s.
	Deadline time.Duration `yaml:"deadline"`
	// CancelOnDisconnect cancels a turn when its streaming client goes away. By default a
	// turn outlives its client, which resumes with Last-Event-ID.
	CancelOnDisconnect bool `yaml:"cancel_on_disconnect"`
}

// InstanceConfig names this process to the store, which records it as the owner of the turns
// it runs, and sets the lease by which other replicas tell it is alive.
type InstanceConfig struct {
	// ID is unique among the processes sharing a database and stable across restarts of one
	// of them; empty is a random id.
	ID string `yaml:"id"`
	// Heartbeat is how often the lease is renewed and dead processes' turns are ended.
	// Default 5 s.
	Heartbeat time.Duration `yaml:"heartbeat"`
	// Lease is how long after its last renewal a process is taken for dead. Default 15 s.
	Lease time.Duration `yaml:"lease"`
}

// PromptsConfig tunes prompt assembly.
type PromptsConfig struct {
	// FewShot attaches the sub-agents' examples to the orchestrator's prompt. Default true.
	FewShot *bool `yaml:"few_shot"`
}

// A2AConfig configures the A2A surface and the calls to remote (a2a_url) sub-agents.
type A2AConfig struct {
	// PublicURL is the base URL the agent card advertises; empty derives it from each request.
	PublicURL string `yaml:"public_url"`
	// CredentialEnv names the env var holding the bearer token sent to remote sub-agents.
	CredentialEnv string `yaml:"credential_env"`
	// TrustedServices are the principals allowed to act for the user named in an A2A call's
	// metadata.principal. Everyone else acts only as themselves.
	TrustedServices []string `yaml:"trusted_services"`

	Credential string `yaml:"-"` // resolved from CredentialEnv
}

// LimitsConfig bounds what one principal may use. A field set to 0 turns that limit off. Over
// a limit a request gets 429 with Retry-After and code rate_limited.
type LimitsConfig struct {
	// TurnsRunning is how many of a principal's turns may run at once. Default 8.
	TurnsRunning int `yaml:"turns_running"`
	// TurnsPerMinute is the sustained rate of turn starts per principal. Default 60.
	TurnsPerMinute int `yaml:"turns_per_minute"`
	// TurnsBurst is how many starts may come at once before TurnsPerMinute applies. Default 20.
	TurnsBurst int `yaml:"turns_burst"`
	// StreamsPerPrincipal bounds a principal's open event streams, per process. Default 32.
	StreamsPerPrincipal int `yaml:"streams_per_principal"`
	// StreamsPerTurn bounds the open event streams of one turn, per process. Default 8.
	StreamsPerTurn int `yaml:"streams_per_turn"`
}

// HTTPConfig bounds how long and how much the server reads of a request.
type HTTPConfig struct {
	// ReadHeaderTimeout bounds reading a request's headers. Default 10 s.
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	// BodyReadTimeout bounds reading a request's body. Default 10 s.
	BodyReadTimeout time.Duration `yaml:"body_read_timeout"`
	// MaxHeaderBytes bounds the request line and headers. Default 64 KiB.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// CORSOrigins are the web origins whose pages may call the API from a browser; "*" allows
	// any. Empty allows none.
	CORSOrigins []string `yaml:"cors_origins"`
	// DevHosts are host names, besides localhost and IP addresses, that a dev-mode server
	// answers. Ignored outside dev mode.
	DevHosts []string `yaml:"dev_hosts"`
}

// DefaultConfig is the configuration of a service with no config file: the offline model, the
// embedded demo CCS, dev auth and a SQLite store. [New] with a nil Options.Config uses it with
// an in-memory store instead.
func DefaultConfig() Config { return fromInternal(config.Default()) }

// LoadConfig reads a config file (empty path: defaults only) the way `switchboard serve` does:
// strictly (an unknown key is an error naming its line), then with the SWITCHBOARD_*
// environment overrides and the secrets its *_env keys name resolved from the environment,
// then validated.
func LoadConfig(path string, opts ...LoadOption) (Config, error) {
	o := loadOptions{lookup: os.LookupEnv}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := config.Load(path)
	if err != nil {
		return Config{}, err
	}
	if err := c.ApplyEnv(o.lookup); err != nil {
		return Config{}, err
	}
	return fromInternal(c), nil
}

// LoadOption changes how [LoadConfig] reads.
type LoadOption func(*loadOptions)

type loadOptions struct {
	lookup func(string) (string, bool)
}

// WithEnv makes [LoadConfig] read environment variables through lookup instead of
// os.LookupEnv: a map in tests, or a secret store.
func WithEnv(lookup func(name string) (string, bool)) LoadOption {
	return func(o *loadOptions) { o.lookup = lookup }
}

// Validate reports every problem with c at once.
func (c Config) Validate() error { return c.internal().Validate() }

// internal converts c to the wiring's own type. The struct conversions compile only while the
// two declare the same fields, which keeps them in step.
func (c Config) internal() config.Config {
	models := make(map[string]llm.ModelConfig, len(c.Models))
	for alias, m := range c.Models {
		models[alias] = llm.ModelConfig(m)
	}
	var faults map[string]config.Fault
	if c.CCS.Faults != nil {
		faults = make(map[string]config.Fault, len(c.CCS.Faults))
		for id, f := range c.CCS.Faults {
			faults[id] = config.Fault(f)
		}
	}
	return config.Config{
		Orchestrator: c.Orchestrator,
		Models:       models,
		CCS: config.CCS{URL: c.CCS.URL, CredentialEnv: c.CCS.CredentialEnv, SigningKeyEnv: c.CCS.SigningKeyEnv,
			Timeout: c.CCS.Timeout, Faults: faults, Credential: c.CCS.Credential, SigningKey: c.CCS.SigningKey},
		Auth:     config.Auth(c.Auth),
		Store:    config.Store(c.Store),
		Turns:    config.Turns(c.Turns),
		Instance: config.Instance(c.Instance),
		Prompts:  config.Prompts(c.Prompts),
		Flags:    maps.Clone(c.Flags),
		A2A:      config.A2A(c.A2A),
		Limits:   config.Limits(c.Limits),
		HTTP:     config.HTTP(c.HTTP),
		Breakers: breaker.Config(c.Breakers),
	}
}

// fromInternal is the inverse of [Config.internal].
func fromInternal(c config.Config) Config {
	models := make(map[string]ModelConfig, len(c.Models))
	for alias, m := range c.Models {
		models[alias] = ModelConfig(m)
	}
	var faults map[string]Fault
	if c.CCS.Faults != nil {
		faults = make(map[string]Fault, len(c.CCS.Faults))
		for id, f := range c.CCS.Faults {
			faults[id] = Fault(f)
		}
	}
	return Config{
		Orchestrator: c.Orchestrator,
		Models:       models,
		CCS: CCSConfig{URL: c.CCS.URL, CredentialEnv: c.CCS.CredentialEnv, SigningKeyEnv: c.CCS.SigningKeyEnv,
			Timeout: c.CCS.Timeout, Faults: faults, Credential: c.CCS.Credential, SigningKey: c.CCS.SigningKey},
		Auth:     AuthConfig(c.Auth),
		Store:    StoreConfig(c.Store),
		Turns:    TurnsConfig(c.Turns),
		Instance: InstanceConfig(c.Instance),
		Prompts:  PromptsConfig(c.Prompts),
		Flags:    c.Flags,
		A2A:      A2AConfig(c.A2A),
		Limits:   LimitsConfig(c.Limits),
		HTTP:     HTTPConfig(c.HTTP),
		Breakers: BreakersConfig(c.Breakers),
	}
}
