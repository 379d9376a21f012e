package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/openai"
	"google.golang.org/api/option"
)

// Endpoints used when base_url is empty. They are always passed explicitly so that the
// providers never fall back to their OPENAI_BASE_URL-style environment variables: only
// cmd reads the environment.
const (
	openAIURL    = "https://api.openai.com/v1"
	anthropicURL = "https://api.anthropic.com/v1"
	// noKey is sent to servers that take no key; the openai and anthropic clients refuse
	// to start with an empty one.
	noKey = "unused"
)

// New builds the model for one alias. Real providers come wrapped (see doc.go:
// normalised responses, text-only streaming, timeout, retries, usage hook); offline is
// returned as its constructor made it. Configuration errors wrap [ErrInvalidConfig] and
// name the alias. New makes no network calls.
func New(ctx context.Context, name string, cfg ModelConfig, opts ...Option) (llms.Model, error) {
	o := newOptions(opts)
	return build(ctx, name, cfg, o)
}

func build(ctx context.Context, name string, cfg ModelConfig, o options) (llms.Model, error) {
	if err := cfg.Validate(name); err != nil {
		return nil, err
	}
	if cfg.Provider == ProviderOffline {
		return o.newOffline(), nil
	}

	transport := &recordingTransport{base: o.transport, now: time.Now}
	// No Client.Timeout: it would cut long streams; the wrapper's context bounds calls.
	client := &http.Client{Transport: transport}
	var defaults []llms.CallOption
	if cfg.Temperature != nil {
		defaults = append(defaults, llms.WithTemperature(*cfg.Temperature))
	}
	if cfg.MaxTokens > 0 {
		defaults = append(defaults, llms.WithMaxTokens(cfg.MaxTokens))
	}

	var (
		provider llms.Model
		err      error
	)
	switch cfg.Provider {
	case ProviderOpenAI:
		// Parallel tool calls need nothing extra: the chat-completions API allows several
		// calls per response whenever tools are sent (parallel_tool_calls defaults to
		// true) and langchaingo never sends the field, so no body rewrite is needed. One
		// limit stays: the client's stream merger appends argument fragments to the last
		// call whatever their index, which is right for OpenAI (calls are streamed one
		// after another) but would garble a server that interleaves parallel calls.
		provider, err = openai.New(
			openai.WithToken(keyOr(cfg.APIKey, noKey)),
			openai.WithModel(cfg.Model),
			openai.WithBaseURL(urlOr(cfg.BaseURL, openAIURL)),
			openai.WithHTTPClient(client),
			openai.WithOrganization(""), // never OPENAI_ORGANIZATION from the environment
		)
	case ProviderOllama:
		// Ollama's native provider ignores tools; its OpenAI-compatible /v1 has them.
		provider, err = openai.New(
			openai.WithToken(keyOr(cfg.APIKey, noKey)),
			openai.WithModel(cfg.Model),
			openai.WithBaseURL(ollamaURL(cfg.BaseURL)),
			openai.WithHTTPClient(client),
			openai.WithOrganization(""),
		)
		// Older Ollama releases only understand max_tokens, not max_completion_tokens.
		defaults = append(defaults, openai.WithLegacyMaxTokensField())
	case ProviderAnthropic:
		provider, err = anthropic.New(
			anthropic.WithToken(keyOr(cfg.APIKey, noKey)),
			anthropic.WithModel(cfg.Model),
			anthropic.WithBaseURL(urlOr(cfg.BaseURL, anthropicURL)),
			anthropic.WithHTTPClient(client),
		)
	case ProviderGoogleAI:
		// With a custom HTTP client the Google REST client drops the API key option, so
		// the transport sends the key header itself.
		transport.header = http.Header{"X-Goog-Api-Key": {cfg.APIKey}}
		// Its generateContent call also retries 503 on its own, until the deadline; our
		// retry policy must be the only one (see recordingTransport.hide503).
		transport.hide503 = true
		gopts := []googleai.Option{
			googleai.WithAPIKey(cfg.APIKey),
			googleai.WithDefaultModel(cfg.Model),
			googleai.WithHTTPClient(client),
		}
		if cfg.MaxTokens > 0 {
			gopts = append(gopts, googleai.WithDefaultMaxTokens(cfg.MaxTokens))
		}
		if cfg.Temperature != nil {
			gopts = append(gopts, googleai.WithDefaultTemperature(*cfg.Temperature))
		}
		if cfg.BaseURL != "" {
			// The client appends "/v1beta/models/..." to the endpoint's path as is, so a
			// trailing slash would post to "//v1beta/...".
			endpoint := strings.TrimSuffix(cfg.BaseURL, "/")
			gopts = append(gopts, func(g *googleai.Options) {
				g.ClientOptions = append(g.ClientOptions, option.WithEndpoint(endpoint))
			})
		}
		provider, err = googleai.New(ctx, gopts...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: model %q: %s client: %w", ErrInvalidConfig, name, cfg.Provider, redact(err, cfg.APIKey))
	}
	return &resilientModel{
		alias:    name,
		model:    provider,
		defaults: defaults,
		timeout:  cfg.timeout(),
		retries:  cfg.retries(),
		secret:   cfg.APIKey,
		hook:     o.usageHook,
		sleep:    o.sleep,
	}, nil
}

func keyOr(key, fallback string) string {
	if key == "" {
		return fallback
	}
	return key
}

func urlOr(u, fallback string) string {
	if u == "" {
		return fallback
	}
	return u
}

// ollamaURL returns the OpenAI-compatible endpoint of an Ollama host.
func ollamaURL(base string) string {
	base = strings.TrimSuffix(urlOr(base, DefaultOllamaURL), "/")
	if strings.HasSuffix(base, "/v1") {
		return base
	}
	return base + "/v1"
}
