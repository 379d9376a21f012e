package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"gopkg.in/yaml.v3"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
)

func ptr[T any](v T) *T { return &v }

func TestModelConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		alias string
		cfg   ModelConfig
		want  []string // substrings of the error; nil means valid
	}{
		{name: "offline", alias: "default", cfg: ModelConfig{Provider: "offline"}},
		{name: "offline ignores other fields", alias: "default", cfg: ModelConfig{Provider: "offline", Model: "x", BaseURL: "::"}},
		{name: "openai with key", alias: "default", cfg: ModelConfig{Provider: "openai", Model: "gpt-4o-mini", APIKey: "k"}},
		{name: "openai local server needs no key", alias: "local", cfg: ModelConfig{Provider: "openai", Model: "m", BaseURL: "http://127.0.0.1:8000/v1"}},
		{name: "ollama needs no key", alias: "llama", cfg: ModelConfig{Provider: "ollama", Model: "llama3.1"}},
		{name: "anthropic with key", alias: "fast", cfg: ModelConfig{Provider: "anthropic", Model: "claude-haiku-4-5", APIKey: "k"}},
		{name: "googleai with key", alias: "gem", cfg: ModelConfig{Provider: "googleai", Model: "gemini-2.0-flash", APIKey: "k"}},
		{name: "missing provider", alias: "fast", cfg: ModelConfig{Model: "m"},
			want: []string{`model "fast"`, "provider is required"}},
		{name: "unknown provider", alias: "fast", cfg: ModelConfig{Provider: "bedrock"},
			want: []string{`model "fast"`, `unknown provider "bedrock"`}},
		{name: "missing model", alias: "fast", cfg: ModelConfig{Provider: "anthropic", APIKey: "k"},
			want: []string{`model "fast"`, "model is required"}},
		{name: "missing key names the env var", alias: "fast", cfg: ModelConfig{Provider: "anthropic", Model: "m", APIKeyEnv: "ANTHROPIC_API_KEY"},
			want: []string{`model "fast"`, "ANTHROPIC_API_KEY", "empty or unset"}},
		{name: "missing key without env var", alias: "default", cfg: ModelConfig{Provider: "openai", Model: "m"},
			want: []string{`model "default"`, "set api_key_env"}},
		{name: "googleai always needs a key", alias: "gem", cfg: ModelConfig{Provider: "googleai", Model: "m", BaseURL: "http://proxy"},
			want: []string{`model "gem"`, "no API key"}},
		{name: "relative base_url", alias: "x", cfg: ModelConfig{Provider: "ollama", Model: "m", BaseURL: "localhost:11434"},
			want: []string{`model "x"`, "base_url must be an absolute http(s) URL"}},
		{name: "temperature out of range", alias: "x", cfg: ModelConfig{Provider: "ollama", Model: "m", Temperature: ptr(2.5)},
			want: []string{"temperature 2.5 is outside [0, 2]"}},
		{name: "negative max_tokens and timeout reported together", alias: "x",
			cfg:  ModelConfig{Provider: "ollama", Model: "m", MaxTokens: -1, Timeout: -time.Second},
			want: []string{"max_tokens must not be negative", "timeout must not be negative"}},
		{name: "bad alias", alias: "has space", cfg: ModelConfig{Provider: "offline"},
			want: []string{`model "has space"`, "alias must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.alias)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate(%q) = %v, want nil", tt.alias, err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("Validate(%q) = %v, want ErrInvalidConfig", tt.alias, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate(%q) = %q, want it to contain %q", tt.alias, err, w)
				}
			}
		})
	}
}

func TestModelConfigYAML(t *testing.T) {
	src := `
models:
  default: {provider: openai, model: gpt-4o-mini, base_url: "http://127.0.0.1:8000/v1", api_key_env: OPENAI_API_KEY, timeout: 30s, temperature: 0.2, max_tokens: 512, retries: 3}
  fast: {provider: anthropic, model: claude-haiku-4-5, api_key_env: ANTHROPIC_API_KEY}
`
	var doc struct {
		Models map[string]ModelConfig `yaml:"models"`
	}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("yaml.Unmarshal() error = %v", err)
	}
	want := map[string]ModelConfig{
		"default": {Provider: "openai", Model: "gpt-4o-mini", BaseURL: "http://127.0.0.1:8000/v1", APIKeyEnv: "OPENAI_API_KEY",
			Timeout: 30 * time.Second, Temperature: ptr(0.2), MaxTokens: 512, Retries: 3},
		"fast": {Provider: "anthropic", Model: "claude-haiku-4-5", APIKeyEnv: "ANTHROPIC_API_KEY"},
	}
	if diff := cmp.Diff(want, doc.Models); diff != "" {
		t.Errorf("decoded models mismatch (-want +got):\n%s", diff)
	}
	// api_key is never read from a file.
	var leaked ModelConfig
	if err := yaml.Unmarshal([]byte("{provider: openai, api_key: sk-in-file, APIKey: sk-in-file}"), &leaked); err != nil {
		t.Fatalf("yaml.Unmarshal() error = %v", err)
	}
	if leaked.APIKey != "" {
		t.Errorf("APIKey = %q after decoding YAML, want empty", leaked.APIKey)
	}
}

// TestModelConfigNeverPrintsKey covers every way a config gets printed or serialised.
func TestModelConfigNeverPrintsKey(t *testing.T) {
	cfg := ModelConfig{Provider: "openai", Model: "m", APIKeyEnv: "OPENAI_API_KEY", APIKey: testKey,
		BaseURL: "http://u:" + testKey + "@host:8000/v1?key=" + testKey}
	var logged strings.Builder // slog's text handler would print the struct fields without LogValue
	slog.New(slog.NewTextHandler(&logged, nil)).Info("model", "cfg", cfg)
	// Serialised configs round-trip base_url as written; only the key must stay out.
	bare := cfg
	bare.BaseURL = ""
	js, _ := json.Marshal(bare)
	ym, _ := yaml.Marshal(bare)
	outputs := map[string]string{
		"%v":   fmt.Sprintf("%v", cfg),
		"%+v":  fmt.Sprintf("%+v", cfg),
		"%#v":  fmt.Sprintf("%#v", cfg),
		"%s":   cfg.String(),
		"slog": logged.String(),
		"json": string(js),
		"yaml": string(ym),
	}
	for how, out := range outputs {
		if strings.Contains(out, testKey) {
			t.Errorf("%s output %q contains the key", how, out)
		}
	}
	if !strings.Contains(outputs["%v"], "OPENAI_API_KEY") {
		t.Errorf("%%v output %q lacks api_key_env, want it for debugging", outputs["%v"])
	}
}

func TestNewRegistry(t *testing.T) {
	offline := func() llms.Model { return fakeOffline{} }
	cfgs := map[string]ModelConfig{
		"fast":  {Provider: "anthropic", Model: "claude-haiku-4-5", APIKeyEnv: "ANTHROPIC_API_KEY", APIKey: testKey},
		"local": {Provider: "openai", Model: "qwen", BaseURL: "http://user:" + testKey + "@vllm.internal:8000/v1?key=" + testKey, APIKey: testKey},
		"llama": {Provider: "ollama", Model: "llama3.1"},
		"gem":   {Provider: "googleai", Model: "gemini-2.0-flash", APIKey: testKey},
	}
	r, err := NewRegistry(t.Context(), cfgs, WithOffline(offline))
	if err != nil {
		t.Fatalf("NewRegistry() error = %v", err)
	}
	want := []ProviderInfo{
		{Alias: "default", Provider: "offline", Offline: true},
		{Alias: "fast", Provider: "anthropic", Model: "claude-haiku-4-5", BaseURLHost: "api.anthropic.com"},
		{Alias: "gem", Provider: "googleai", Model: "gemini-2.0-flash", BaseURLHost: "generativelanguage.googleapis.com"},
		{Alias: "llama", Provider: "ollama", Model: "llama3.1", BaseURLHost: "localhost:11434"},
		{Alias: "local", Provider: "openai", Model: "qwen", BaseURLHost: "vllm.internal:8000"},
	}
	got := r.Describe()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe() mismatch (-want +got):\n%s", diff)
	}
	js, _ := json.Marshal(got)
	if strings.Contains(string(js), testKey) || strings.Contains(fmt.Sprintf("%+v", got), testKey) {
		t.Errorf("Describe() = %s, contains the key", js)
	}

	if m, err := r.Model("default"); err != nil || m != (fakeOffline{}) {
		t.Errorf("Model(%q) = %v, %v; want the offline model", "default", m, err)
	}
	for alias := range cfgs {
		if m, err := r.Model(alias); err != nil || m == nil {
			t.Errorf("Model(%q) = %v, %v; want a model", alias, m, err)
		}
	}
	if _, err := r.Model("nope"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("Model(%q) error = %v, want ErrUnknownModel", "nope", err)
	}
}

func TestNewRegistryServesSuppliedModels(t *testing.T) {
	built := false
	offline := func() llms.Model { built = true; return fakeOffline{} }
	own := &fakeOffline{} // a pointer: two fakeOffline values would compare equal
	r, err := NewRegistry(t.Context(), map[string]ModelConfig{
		"fast": {Provider: ProviderOffline, Fallback: []string{"default"}},
	}, WithOffline(offline), WithModels(map[string]llms.Model{"default": own}))
	if err != nil {
		t.Fatalf("NewRegistry() error = %v", err)
	}
	if m, err := r.Model("default"); err != nil || m != llms.Model(own) {
		t.Errorf("Model(%q) = %v, %v; want the supplied model", "default", m, err)
	}
	want := []ProviderInfo{
		{Alias: "default", Provider: SuppliedProvider},
		{Alias: "fast", Provider: ProviderOffline, Offline: true, Fallback: []string{"default"}},
	}
	if diff := cmp.Diff(want, r.Describe()); diff != "" {
		t.Errorf("Describe() mismatch (-want +got):\n%s", diff)
	}
	// "fast" is configured as offline, so the offline model is built once, for it alone.
	if !built {
		t.Error("the offline model for \"fast\" was not built")
	}
	built = false
	if _, err := NewRegistry(t.Context(), nil, WithOffline(offline), WithModels(map[string]llms.Model{"default": own})); err != nil {
		t.Fatalf("NewRegistry() error = %v", err)
	}
	if built {
		t.Error("the offline model was built for an alias the program supplied")
	}
}

func TestNewRegistryReportsAllProblems(t *testing.T) {
	cfgs := map[string]ModelConfig{
		"default": {Provider: "openai", Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY"},
		"fast":    {Provider: "claude"},
		"ok":      {Provider: "ollama", Model: "llama3.1"},
	}
	_, err := NewRegistry(t.Context(), cfgs)
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("NewRegistry() error = %v, want ErrInvalidConfig", err)
	}
	for _, want := range []string{`model "default"`, "OPENAI_API_KEY", `model "fast"`, `unknown provider "claude"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("NewRegistry() error = %q, want it to contain %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `model "ok"`) {
		t.Errorf("NewRegistry() error = %q, mentions the valid alias", err)
	}
}

func TestNewOfflineDefault(t *testing.T) {
	m, err := New(t.Context(), "default", ModelConfig{Provider: ProviderOffline})
	if err != nil {
		t.Fatalf("New(offline) error = %v", err)
	}
	if _, ok := m.(*offline.Model); !ok {
		t.Errorf("New(offline) = %T, want *offline.Model", m)
	}
	r, err := NewRegistry(t.Context(), nil)
	if err != nil {
		t.Fatalf("NewRegistry(nil) error = %v", err)
	}
	if m, err := r.Model(DefaultAlias); err != nil {
		t.Errorf("Model(%q) error = %v", DefaultAlias, err)
	} else if _, ok := m.(*offline.Model); !ok {
		t.Errorf("Model(%q) = %T, want *offline.Model", DefaultAlias, m)
	}
}

// fakeOffline stands in for the offline model in registry tests.
type fakeOffline struct{}

func (fakeOffline) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "offline"}}}, nil
}

func (f fakeOffline) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, f, p, o...)
}
