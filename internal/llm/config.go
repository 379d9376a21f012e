package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"time"
)

// Provider names accepted in [ModelConfig].Provider.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderOllama    = "ollama"
	ProviderGoogleAI  = "googleai"
	ProviderOffline   = "offline"
)

// Defaults applied when the config leaves a field at zero.
const (
	// DefaultTimeout bounds one GenerateContent call, retries included.
	DefaultTimeout = 60 * time.Second
	// DefaultRetries is how many times a failed call is retried when Retries is 0.
	DefaultRetries = 2
	// DefaultOllamaURL is where the ollama provider looks when base_url is empty.
	DefaultOllamaURL = "http://localhost:11434"
)

// DefaultAlias is the model alias used when a definition names none; when the config
// does not define it, it is the offline model.
const DefaultAlias = "default"

// ModelConfig configures one model alias (the values of the config's `models` map).
type ModelConfig struct {
	// Provider is one of openai, anthropic, ollama, googleai, offline.
	Provider string `yaml:"provider" json:"provider"`
	// Model is the provider's model name (required except for offline).
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// BaseURL points openai at any OpenAI-compatible server, ollama at its host (the
	// "/v1" suffix is added), anthropic at a proxy, and googleai at the root of the
	// Gemini API or of a proxy in front of it ("/v1beta/openai" is added unless the URL
	// already ends in "/openai").
	BaseURL string `yaml:"base_url,omitempty" json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable that holds the key; cmd reads it.
	APIKeyEnv string `yaml:"api_key_env,omitempty" json:"api_key_env,omitempty"`
	// APIKey is the resolved key. It is set by cmd from APIKeyEnv, never read from or
	// written to files, and never printed (see [ModelConfig.String]).
	APIKey string `yaml:"-" json:"-"`
	// Temperature, when set, is sent with every call unless the call overrides it.
	Temperature *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	// MaxTokens, when positive, caps the reply length unless the call overrides it.
	MaxTokens int `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	// Timeout bounds one GenerateContent call including its retries; 0 means
	// [DefaultTimeout]. The caller's context deadline applies as well.
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Retries is how many times a retryable failure (429, 5xx, connection error) is
	// retried; 0 means [DefaultRetries], a negative value disables retries.
	Retries int `yaml:"retries,omitempty" json:"retries,omitempty"`
	// Fallback lists other aliases to try, in order, when this one fails after its retries
	// or its circuit breaker is open, unless text has already streamed to the caller. A
	// fallback's own fallbacks follow it, depth first, and each alias is tried once. See
	// [CheckFallbacks].
	Fallback []string `yaml:"fallback,omitempty" json:"fallback,omitempty"`
}

var aliasPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Validate reports every problem with cfg for the given alias at once; each error wraps
// [ErrInvalidConfig] and names the alias. The offline provider ignores the other fields.
func (c ModelConfig) Validate(alias string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: model %q: %s", ErrInvalidConfig, alias, fmt.Sprintf(format, args...))
	}
	if !aliasPattern.MatchString(alias) {
		return bad("alias must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
	}
	var errs []error
	switch c.Provider {
	case ProviderOffline:
		return nil
	case ProviderOpenAI, ProviderAnthropic, ProviderOllama, ProviderGoogleAI:
	case "":
		return bad("provider is required (openai, anthropic, ollama, googleai or offline)")
	default:
		return bad("unknown provider %q (want openai, anthropic, ollama, googleai or offline)", c.Provider)
	}
	if c.Model == "" {
		errs = append(errs, bad("model is required for provider %s", c.Provider))
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, bad("base_url must be an absolute http(s) URL"))
		}
	}
	if c.APIKey == "" && c.needsKey() {
		if c.APIKeyEnv != "" {
			errs = append(errs, bad("no API key: environment variable %s (api_key_env) is empty or unset", c.APIKeyEnv))
		} else {
			errs = append(errs, bad("no API key: set api_key_env to the environment variable holding the %s key", c.Provider))
		}
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		errs = append(errs, bad("temperature %g is outside [0, 2]", *c.Temperature))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, bad("max_tokens must not be negative"))
	}
	if c.Timeout < 0 {
		errs = append(errs, bad("timeout must not be negative"))
	}
	return errors.Join(errs...)
}

// needsKey reports whether the provider cannot work without a key. Local servers behind
// base_url (vLLM, llama.cpp, proxies) usually take none, so openai and anthropic only
// demand one for their public endpoints; googleai always does, ollama never.
func (c ModelConfig) needsKey() bool {
	switch c.Provider {
	case ProviderOpenAI, ProviderAnthropic:
		return c.BaseURL == ""
	case ProviderGoogleAI:
		return true
	}
	return false
}

func (c ModelConfig) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c ModelConfig) retries() int {
	switch {
	case c.Retries == 0:
		return DefaultRetries
	case c.Retries < 0:
		return 0
	}
	return c.Retries
}

// String describes the config without the key, so that printing a config with %v or
// %+v cannot leak it.
func (c ModelConfig) String() string {
	return fmt.Sprintf("{provider:%s model:%s base_url:%s api_key_env:%s api_key:%s}",
		c.Provider, c.Model, safeURL(c.BaseURL), c.APIKeyEnv, redactedMark(c.APIKey))
}

// GoString keeps %#v from printing the key.
func (c ModelConfig) GoString() string { return "llm.ModelConfig" + c.String() }

// LogValue keeps slog from printing the key.
func (c ModelConfig) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("provider", c.Provider),
		slog.String("model", c.Model),
		slog.String("base_url", safeURL(c.BaseURL)),
		slog.String("api_key_env", c.APIKeyEnv),
		slog.String("api_key", redactedMark(c.APIKey)),
	)
}

func redactedMark(key string) string {
	if key == "" {
		return "unset"
	}
	return "set"
}

// safeURL drops the parts of a URL that can carry credentials (user info, query).
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
