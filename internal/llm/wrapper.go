package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/tmc/langchaingo/llms"
)

// resilientModel decorates a provider's llms.Model with the behaviour every caller
// needs and no provider gets fully right: normalised responses, text-only streaming,
// cancellation that is reported as such, a per-call timeout, retries with backoff, and
// usage reporting. It holds no per-call state and is safe for concurrent use.
type resilientModel struct {
	alias    string
	model    llms.Model
	defaults []llms.CallOption // config defaults, applied before the caller's options
	timeout  time.Duration
	retries  int
	secret   string // the API key, only to redact it from error text
	hook     func(ctx context.Context, alias string, u Usage)
	sleep    func(ctx context.Context, d time.Duration) error
}

var _ llms.Model = (*resilientModel)(nil)

// Call implements llms.Model.
func (m *resilientModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// GenerateContent implements llms.Model. The response has exactly one choice (see
// [normalize]). A streaming callback receives reply text only. Errors: the caller's
// context error when ctx ends; [ErrUnavailable] when retries, the timeout or a broken
// stream exhaust the call; [ErrRejected] for a 4xx other than 429; the callback's own
// error when it returns one.
func (m *resilientModel) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	start := time.Now()
	var u Usage
	resp, err := m.generate(ctx, messages, options, &u)
	u.Duration = time.Since(start)
	if m.hook != nil {
		m.hook(ctx, m.alias, u)
	}
	return resp, err
}

func (m *resilientModel) generate(ctx context.Context, messages []llms.MessageContent, options []llms.CallOption, u *Usage) (*llms.ContentResponse, error) {
	callCtx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()

	var asked llms.CallOptions
	for _, o := range options {
		o(&asked)
	}
	opts := make([]llms.CallOption, 0, len(m.defaults)+len(options)+2)
	opts = append(opts, m.defaults...)
	opts = append(opts, options...)
	if tools, changed, err := mapParameters(asked.Tools); err != nil {
		return nil, fmt.Errorf("model %q: %w", m.alias, err)
	} else if changed {
		opts = append(opts, llms.WithTools(tools))
	}
	var filter *streamFilter
	if asked.StreamingFunc != nil {
		filter = &streamFilter{next: asked.StreamingFunc}
		opts = append(opts, llms.WithStreamingFunc(filter.write))
	}

	for {
		u.Attempts++
		a := &attempt{}
		resp, err := m.model.GenerateContent(withAttempt(callCtx, a), messages, opts...)
		// The caller's cancellation wins over whatever the provider returned: the openai
		// provider may return a partial response with a nil error, or a plain-string
		// "request cancelled" that does not match context.Canceled.
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("model %q: %w", m.alias, cerr)
		}
		if callCtx.Err() != nil {
			return nil, m.timedOut()
		}
		delivered := false
		if filter != nil {
			var cbErr error
			delivered, cbErr = filter.state()
			if cbErr != nil { // the caller stopped the stream, whatever the provider reported
				return nil, fmt.Errorf("model %q: streaming callback: %w", m.alias, cbErr)
			}
		}
		if err == nil {
			resp = normalize(resp)
			if resp != nil && len(resp.Choices) > 0 {
				t := ask.TokensOf(resp)
				*u = Usage{InputTokens: t.Input, OutputTokens: t.Output, TotalTokens: t.Total, Attempts: u.Attempts}
			}
			return resp, nil
		}

		cause := redact(err, m.secret)
		status, after, hasAfter, netErr := a.snapshot()
		switch classify(status, netErr) {
		case verdictReject:
			return nil, fmt.Errorf("%w: model %q: HTTP %d: %w", ErrRejected, m.alias, status, cause)
		case verdictFail:
			return nil, fmt.Errorf("model %q: %w", m.alias, cause)
		}
		if delivered { // retrying would replay text the caller already has
			return nil, fmt.Errorf("%w: model %q: stream broke after text was delivered: %w", ErrUnavailable, m.alias, cause)
		}
		if u.Attempts > m.retries {
			return nil, fmt.Errorf("%w: model %q: gave up after %d attempts: %w", ErrUnavailable, m.alias, u.Attempts, cause)
		}
		delay := backoff(u.Attempts)
		if hasAfter {
			if after > maxRetryAfter {
				return nil, fmt.Errorf("%w: model %q: provider asks to wait %s: %w", ErrUnavailable, m.alias, after, cause)
			}
			delay = after
		}
		if deadline, ok := callCtx.Deadline(); ok && time.Until(deadline) < delay {
			return nil, fmt.Errorf("%w: model %q: next retry (in %s) would pass the deadline: %w", ErrUnavailable, m.alias, delay, cause)
		}
		if err := m.sleep(callCtx, delay); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("model %q: %w", m.alias, cerr)
			}
			return nil, m.timedOut()
		}
	}
}

func (m *resilientModel) timedOut() error {
	return fmt.Errorf("%w: model %q: no answer within %s: %w", ErrUnavailable, m.alias, m.timeout, context.DeadlineExceeded)
}

// mapParameters returns tools whose Parameters are map[string]any, converting other
// JSON-marshalable values (json.RawMessage, structs), so that every provider sends the
// same schema whatever type the caller built it with.
func mapParameters(tools []llms.Tool) ([]llms.Tool, bool, error) {
	changed := false
	for _, t := range tools {
		if t.Function == nil || t.Function.Parameters == nil {
			continue
		}
		if _, ok := t.Function.Parameters.(map[string]any); !ok {
			changed = true
			break
		}
	}
	if !changed {
		return tools, false, nil
	}
	out := make([]llms.Tool, len(tools))
	for i, t := range tools {
		out[i] = t
		if t.Function == nil || t.Function.Parameters == nil {
			continue
		}
		if _, ok := t.Function.Parameters.(map[string]any); ok {
			continue
		}
		raw, err := json.Marshal(t.Function.Parameters)
		if err != nil {
			return nil, false, fmt.Errorf("tool %q parameters: %w", t.Function.Name, err)
		}
		var params map[string]any
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, false, fmt.Errorf("tool %q parameters must be a JSON object: %w", t.Function.Name, err)
		}
		fn := *t.Function // copy: never mutate the caller's definitions
		fn.Parameters = params
		out[i].Function = &fn
	}
	return out, true, nil
}
