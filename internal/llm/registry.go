package llm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"
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
	// Fallback is what is tried after this alias, in order (its fallbacks' own included).
	Fallback []string `json:"fallback,omitempty"`
}

// SuppliedProvider is the provider [Registry.Describe] gives an alias served by a model of the
// embedding program's own (see [WithModels]).
const SuppliedProvider = "supplied by the embedding program"

// NewRegistry validates every alias and builds its model. All configuration problems
// are reported at once (joined, each wrapping [ErrInvalidConfig]), fallbacks included (see
// [CheckFallbacks]). When cfgs has no [DefaultAlias], it is added as the offline model.
// With [WithBreakers] each provider alias gets a breaker; an alias with fallbacks answers
// through them (see [ModelConfig].Fallback).
func NewRegistry(ctx context.Context, cfgs map[string]ModelConfig, opts ...Option) (*Registry, error) {
	o := newOptions(opts)
	all := make(map[string]ModelConfig, len(cfgs)+1)
	for alias, cfg := range cfgs {
		all[alias] = cfg
	}
	if _, ok := all[DefaultAlias]; !ok {
		all[DefaultAlias] = ModelConfig{Provider: ProviderOffline}
	}
	aliases := sortedAliases(all) // deterministic error order and Describe order

	r := &Registry{models: make(map[string]llms.Model, len(all))}
	errs := []error{CheckFallbacks(all)}
	for _, alias := range aliases {
		cfg := all[alias]
		if m, ok := o.supplied[alias]; ok {
			r.models[alias] = m
			r.infos = append(r.infos, ProviderInfo{Alias: alias, Provider: SuppliedProvider})
			continue
		}
		m, err := build(ctx, alias, cfg, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if o.breakers != nil && cfg.Provider != ProviderOffline {
			m = &guardedModel{alias: alias, next: m, set: o.breakers}
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
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := r.addFallbacks(all, o); err != nil {
		return nil, err
	}
	return r, nil
}

// addFallbacks puts each alias that has fallbacks in front of them. The models tried are the
// plain ones (each behind its own breaker), so that an order is followed exactly once.
func (r *Registry) addFallbacks(cfgs map[string]ModelConfig, o options) error {
	switches, err := o.meters.Meter("github.com/switchboard-ai/switchboard/internal/llm").Int64Counter(
		"switchboard_model_fallbacks_total",
		metric.WithDescription("LLM calls moved on to a fallback model alias, by the alias asked for and the one tried next."))
	if err != nil {
		return err
	}
	plain := maps.Clone(r.models)
	for i, info := range r.infos {
		if _, ok := o.supplied[info.Alias]; ok {
			continue
		}
		order := fallbackOrder(cfgs, info.Alias)
		if len(order) < 2 {
			continue
		}
		steps := make([]fallbackStep, len(order))
		for j, alias := range order {
			steps[j] = fallbackStep{alias: alias, model: plain[alias]}
		}
		r.models[info.Alias] = &fallbackModel{alias: info.Alias, steps: steps, switches: switches}
		r.infos[i].Fallback = order[1:]
	}
	return nil
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
