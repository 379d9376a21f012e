package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"
)

// Endpoints used when base_url is empty. They are always passed explicitly so that the
// providers never fall back to their OPENAI_BASE_URL-style environment variables: only
// cmd reads the environment.
const (
	openAIURL    = "https://api.openai.com/v1"
	anthropicURL = "https://api.anthropic.com/v1"
	// geminiURL is Gemini's OpenAI-compatible endpoint.
	geminiURL = "https://generativelanguage.googleapis.com/v1beta/openai"
	// geminiDefaultTemperature is the temperature Gemini's current models use when a
	// request sets none.
	geminiDefaultTemperature = 1.0
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
		// Gemini also serves the OpenAI chat-completions API, which the openai client
		// speaks. Going through it instead of langchaingo's googleai provider keeps the
		// Vertex AI, Google Cloud and gRPC client libraries out of the binary (about 135
		// packages and 16 MB). Tools, streaming and usage work the same way; Gemini sends
		// tool calls without ids, which the wrapper fills in.
		provider, err = openai.New(
			openai.WithToken(cfg.APIKey),
			openai.WithModel(cfg.Model),
			openai.WithBaseURL(geminiEndpoint(cfg.BaseURL)),
			openai.WithHTTPClient(client),
			openai.WithOrganization(""),
		)
		// max_tokens is the field every OpenAI-compatible server understands.
		defaults = append(defaults, openai.WithLegacyMaxTokensField())
		if cfg.Temperature == nil {
			// The openai client always sends a temperature, 0 when none is set; a
			// googleai model without one has always sampled at Gemini's default.
			defaults = append(defaults, llms.WithTemperature(geminiDefaultTemperature))
		}
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

// geminiEndpoint returns Gemini's OpenAI-compatible endpoint under base, the root of the
// Gemini API or of a proxy in front of it (as base_url has always been configured), or base
// itself when it already names that endpoint (ends in "/openai").
func geminiEndpoint(base string) string {
	if base == "" {
		return geminiURL
	}
	base = strings.TrimSuffix(base, "/")
	if strings.HasSuffix(base, "/openai") {
		return base
	}
	return base + "/v1beta/openai"
}

// ollamaURL returns the OpenAI-compatible endpoint of an Ollama host.
func ollamaURL(base string) string {
	base = strings.TrimSuffix(urlOr(base, DefaultOllamaURL), "/")
	if strings.HasSuffix(base, "/v1") {
		return base
	}
	return base + "/v1"
}
