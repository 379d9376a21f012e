package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// CheckFallbacks reports, all at once, every fallback that names an alias cfgs does not
// configure ([DefaultAlias] always exists) and every cycle of fallbacks, naming the aliases.
// Each error wraps [ErrInvalidConfig].
func CheckFallbacks(cfgs map[string]ModelConfig) error {
	known := func(alias string) bool {
		_, ok := cfgs[alias]
		return ok || alias == DefaultAlias
	}
	aliases := sortedAliases(cfgs)
	var errs []error
	for _, alias := range aliases {
		for _, fb := range cfgs[alias].Fallback {
			if !known(fb) {
				errs = append(errs, fmt.Errorf("%w: model %q: fallback %q is not a configured model alias", ErrInvalidConfig, alias, fb))
			}
		}
	}
	// A depth-first walk finds each cycle once, from the first alias (in sorted order) on it.
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var walk func(alias string)
	walk = func(alias string) {
		state[alias] = onPath
		path = append(path, alias)
		for _, fb := range cfgs[alias].Fallback {
			switch state[fb] {
			case onPath:
				cycle := append(slices.Clone(path[slices.Index(path, fb):]), fb)
				errs = append(errs, fmt.Errorf("%w: model %q: fallbacks form a cycle: %s", ErrInvalidConfig, fb, strings.Join(cycle, " -> ")))
			case unseen:
				if known(fb) {
					walk(fb)
				}
			}
		}
		path = path[:len(path)-1]
		state[alias] = done
	}
	for _, alias := range aliases {
		if state[alias] == unseen {
			walk(alias)
		}
	}
	return errors.Join(errs...)
}

// fallbackOrder lists what is tried for alias: the alias, then each of its fallbacks followed
// by that fallback's own, depth first, each alias once. cfgs must have passed
// [CheckFallbacks].
func fallbackOrder(cfgs map[string]ModelConfig, alias string) []string {
	var order []string
	var add func(a string)
	add = func(a string) {
		if slices.Contains(order, a) {
			return
		}
		order = append(order, a)
		for _, fb := range cfgs[a].Fallback {
			add(fb)
		}
	}
	add(alias)
	return order
}

func sortedAliases(cfgs map[string]ModelConfig) []string {
	aliases := make([]string, 0, len(cfgs))
	for alias := range cfgs {
		aliases = append(aliases, alias)
	}
	slices.Sort(aliases)
	return aliases
}

// fallbackStep is one alias of a fallback order, with its model (behind its breaker).
type fallbackStep struct {
	alias string
	model llms.Model
}

// fallbackModel answers for an alias with fallbacks: it asks each model of the order in turn
// while the one before failed with [ErrUnavailable] (after its retries, or at once when its
// breaker is open) or [ErrRejected]. It never moves on once text has been streamed to the
// caller, who would see two answers run together, nor when the caller's context has ended.
type fallbackModel struct {
	alias    string
	steps    []fallbackStep
	switches metric.Int64Counter
}

var (
	_ llms.Model = (*fallbackModel)(nil)
	_ Preparer   = (*fallbackModel)(nil)
)

// Prepare passes the agents' texts on to every model of the order that can use them (the
// offline model), so that a fallback answers its first turn as quickly as the others.
func (m *fallbackModel) Prepare(system string, tools []llms.Tool) {
	for _, step := range m.steps {
		if p, ok := step.model.(Preparer); ok {
			p.Prepare(system, tools)
		}
	}
}

// Call implements llms.Model.
func (m *fallbackModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// GenerateContent implements llms.Model. A switch to a fallback is recorded on the span in ctx
// (the caller's LLM span): an llm.fallback event per switch, and switchboard.model_fallback
// (the alias that answered) with switchboard.model_fallback_from (this alias) when one did.
// When every model fails, the error wraps the first model's error and the last one's.
func (m *fallbackModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var asked llms.CallOptions
	for _, o := range options {
		o(&asked)
	}
	var streamed atomic.Bool
	if next := asked.StreamingFunc; next != nil {
		options = append(slices.Clip(options), llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			if len(chunk) > 0 {
				streamed.Store(true)
			}
			return next(ctx, chunk)
		}))
	}
	span := trace.SpanFromContext(ctx)
	var first error
	for i, step := range m.steps {
		if i > 0 {
			prev := m.steps[i-1].alias
			span.AddEvent("llm.fallback", trace.WithAttributes(
				attribute.String("switchboard.model_alias", prev),
				attribute.String("switchboard.model_fallback", step.alias),
			))
			m.switches.Add(context.Background(), 1, metric.WithAttributes(attribute.String("alias", m.alias), attribute.String("to", step.alias)))
		}
		resp, err := step.model.GenerateContent(ctx, messages, options...)
		if err == nil {
			if i > 0 {
				span.SetAttributes(attribute.String("switchboard.model_fallback", step.alias), attribute.String("switchboard.model_fallback_from", m.alias))
			}
			return resp, nil
		}
		canMove := errors.Is(err, ErrUnavailable) || errors.Is(err, ErrRejected)
		if first == nil {
			first = err
		} else {
			err = fmt.Errorf("%w; fallback %q failed too: %w", first, step.alias, err)
		}
		if ctx.Err() != nil || streamed.Load() || !canMove || i == len(m.steps)-1 {
			return nil, err
		}
	}
	return nil, first // not reached: the loop returns at its last step
}
