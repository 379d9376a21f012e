package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/tmc/langchaingo/llms"
)

// Registry holds the models built from the config's `models` map, by alias. It is
// immutable after [NewRegistry] and safe for concurrent use.
type Registry struct {
	models map[string]llms.Model
	infos  []ProviderInfo
}

// ProviderInfo describes one configured alias for /readyz. It never carries a key.
type ProviderInfo struct {
	Alias       string `json:"alias"`
	Provider    string `json:"provider"`
	Model       string `json:"model,omitempty"`
	BaseURLHost string `json:"base_url_host,omitempty"` // host[:port] only: no path, query or user info
	Offline     bool   `json:"offline"`
}

// NewRegistry validates every alias and builds its model. All configuration problems
// are reported at once (joined, each wrapping [ErrInvalidConfig]). When cfgs has no
// [DefaultAlias], it is added as the offline model.
func NewRegistry(ctx context.Context, cfgs map[string]ModelConfig, opts ...Option) (*Registry, error) {
	o := newOptions(opts)
	all := make(map[string]ModelConfig, len(cfgs)+1)
	for alias, cfg := range cfgs {
		all[alias] = cfg
	}
	if _, ok := all[DefaultAlias]; !ok {
		all[DefaultAlias] = ModelConfig{Provider: ProviderOffline}
	}
	aliases := make([]string, 0, len(all))
	for alias := range all {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases) // deterministic error order and Describe order

	r := &Registry{models: make(map[string]llms.Model, len(all))}
	var errs []error
	for _, alias := range aliases {
		cfg := all[alias]
		m, err := build(ctx, alias, cfg, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.models[alias] = m
		r.infos = append(r.infos, ProviderInfo{
			Alias:       alias,
			Provider:    cfg.Provider,
			Model:       cfg.Model,
			BaseURLHost: hostOf(cfg),
			Offline:     cfg.Provider == ProviderOffline,
		})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

// Model returns the model for alias, or an error wrapping [ErrUnknownModel].
func (r *Registry) Model(alias string) (llms.Model, error) {
	m, ok := r.models[alias]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownModel, alias)
	}
	return m, nil
}

// Describe lists the configured aliases sorted by alias, for /readyz.
func (r *Registry) Describe() []ProviderInfo { return slices.Clone(r.infos) }

// hostOf returns the host the alias talks to, without anything that could carry a
// secret (user info, query).
func hostOf(cfg ModelConfig) string {
	var base string
	switch cfg.Provider {
	case ProviderOffline:
		return ""
	case ProviderOllama:
		base = ollamaURL(cfg.BaseURL)
	case ProviderOpenAI:
		base = urlOr(cfg.BaseURL, openAIURL)
	case ProviderAnthropic:
		base = urlOr(cfg.BaseURL, anthropicURL)
	case ProviderGoogleAI:
		base = geminiEndpoint(cfg.BaseURL)
	}
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Host
}
