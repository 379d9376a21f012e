package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// HTTPTarget runs turns against a running switchboard server as a client would: it posts each
// turn with Accept: text/event-stream, reads the SSE stream to turn.completed and then reads
// the stored routing record with GET /v1/turns/{id}. By default it gets a bearer token per
// user from the dev-mode endpoint POST /v1/dev/token, and injects faults through
// PUT/DELETE /v1/dev/ccs-faults, so the server must run in dev mode with the embedded CCS.
type HTTPTarget struct {
	base   *url.URL
	client *http.Client
	token  func(ctx context.Context, user string) (string, error)

	mu     sync.Mutex
	tokens map[string]string

	rateWaits atomic.Int64 // 429s waited out, for the progress line
}

var _ Target = (*HTTPTarget)(nil)

// HTTPOption tunes an [HTTPTarget].
type HTTPOption func(*HTTPTarget)

// WithTokenSource replaces dev-token minting: tokens for each user come from fn, for servers
// that verify real JWTs. fn is called once per user and its answer cached.
func WithTokenSource(fn func(ctx context.Context, user string) (string, error)) HTTPOption {
	return func(t *HTTPTarget) { t.token = fn }
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// NewHTTPTarget returns a target for the server at baseURL (such as http://127.0.0.1:8080).
// A nil client uses one without a timeout: streams last as long as their turns, and each
// call is bounded by its context instead.
func NewHTTPTarget(baseURL string, client *http.Client, opts ...HTTPOption) (*HTTPTarget, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: target %q is not an http(s) base URL", ErrConfig, baseURL)
	}
	if client == nil {
		client = &http.Client{}
	}
	t := &HTTPTarget{base: u, client: client, tokens: map[string]string{}}
	t.token = t.devToken
	for _, o := range opts {
		o(t)
	}
	return t, nil
}

// String names the target in reports.
func (t *HTTPTarget) String() string { return t.base.String() }

// Turn posts the message and follows the turn's event stream to its end.
func (t *HTTPTarget) Turn(ctx context.Context, in TurnInput) (TurnOutput, error) {
	tok, err := t.bearer(ctx, in.User)
	if err != nil {
		return TurnOutput{}, err
	}
	body, err := json.Marshal(struct {
		EpisodeID string `json:"episode_id,omitempty"`
		Message   string `json:"message"`
	}{in.EpisodeID, in.Message})
	if err != nil {
		return TurnOutput{}, fmt.Errorf("%w: %w", ErrTarget, err)
	}
	start, resp, err := t.postTurn(ctx, tok, body)
	if err != nil {
		return TurnOutput{}, err
	}
	defer resp.Body.Close()
	if err := expect(resp, http.StatusOK); err != nil {
		return TurnOutput{}, fmt.Errorf("post turn: %w", err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return TurnOutput{}, fmt.Errorf("%w: post turn: got %q, want an event stream", ErrTarget, resp.Header.Get("Content-Type"))
	}
	out, err := readTurnStream(resp.Body)
	out.Latency = time.Since(start)
	if err != nil {
		return out, err
	}
	rec, err := t.turnRecord(ctx, tok, out.TurnID)
	if err != nil {
		return out, err
	}
	out.Decision, out.Stored = rec.Routing, rec.Reply
	return out, nil
}

// maxRateRetries bounds how often one turn is retried after 429, and maxRateWait one wait.
const (
	maxRateRetries = 20
	maxRateWait    = 30 * time.Second
)

// postTurn posts a turn for its event stream. A server's per-principal limits answer 429 with
// Retry-After to a run faster than they allow: the turn is retried after that wait, as any
// well-behaved client does, and its latency counts from the attempt that was accepted.
func (t *HTTPTarget) postTurn(ctx context.Context, tok string, body []byte) (time.Time, *http.Response, error) {
	for attempt := 0; ; attempt++ {
		start := time.Now()
		req, err := t.request(ctx, http.MethodPost, "/v1/turns", tok, bytes.NewReader(body))
		if err != nil {
			return start, nil, err
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err := t.client.Do(req)
		if err != nil {
			return start, nil, fmt.Errorf("%w: post turn: %w", ErrTarget, err)
		}
		if resp.StatusCode != http.StatusTooManyRequests || attempt == maxRateRetries {
			return start, resp, nil
		}
		wait := retryAfter(resp.Header.Get("Retry-After"))
		t.rateWaits.Add(1)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return start, nil, ctx.Err()
		}
	}
}

// RateLimitWaits is how many times a turn waited out the server's per-user limits (429).
func (t *HTTPTarget) RateLimitWaits() int64 { return t.rateWaits.Load() }

// retryAfter reads a Retry-After of whole seconds, within 1 s and maxRateWait.
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 1 {
		n = 1
	}
	return min(time.Duration(n)*time.Second, maxRateWait)
}

// readTurnStream reads SSE events up to and including turn.completed.
func readTurnStream(r io.Reader) (TurnOutput, error) {
	var out TurnOutput
	for we, err := range stream.ReadEvents(r) {
		if err != nil {
			return out, fmt.Errorf("%w: read event stream: %w", ErrTarget, err)
		}
		done, err := out.absorb(Event{ID: we.ID, Name: we.Name, Data: we.Data})
		if err != nil {
			return out, err
		}
		if done {
			return out, nil
		}
	}
	return out, fmt.Errorf("%w: event stream ended without turn.completed", ErrTarget)
}

type turnRecordJSON struct {
	Outcome string                 `json:"outcome"`
	Reply   string                 `json:"reply"`
	Routing *orchestrator.Decision `json:"routing"`
}

func (t *HTTPTarget) turnRecord(ctx context.Context, tok, turnID string) (turnRecordJSON, error) {
	var rec turnRecordJSON
	if turnID == "" {
		return rec, fmt.Errorf("%w: the stream named no turn id", ErrTarget)
	}
	req, err := t.request(ctx, http.MethodGet, "/v1/turns/"+url.PathEscape(turnID), tok, nil)
	if err != nil {
		return rec, err
	}
	if err := t.doJSON(req, http.StatusOK, &rec); err != nil {
		return rec, fmt.Errorf("get turn %s: %w", turnID, err)
	}
	return rec, nil
}

// InjectFaults replaces user's faults at the server's demo CCS with faults, mapped to enricher
// ids. The server applies them to user's calls only.
func (t *HTTPTarget) InjectFaults(ctx context.Context, user string, faults []AgentFault) error {
	m, err := DemoFaults(faults)
	if err != nil {
		return err
	}
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTarget, err)
	}
	return t.faultCall(ctx, user, http.MethodPut, bytes.NewReader(body))
}

// ClearFaults removes user's faults from the server's demo CCS.
func (t *HTTPTarget) ClearFaults(ctx context.Context, user string) error {
	return t.faultCall(ctx, user, http.MethodDelete, nil)
}

// faultCall calls the dev fault endpoint as user: the server scopes faults to the caller.
func (t *HTTPTarget) faultCall(ctx context.Context, user, method string, body io.Reader) error {
	tok, err := t.bearer(ctx, user)
	if err != nil {
		return err
	}
	req, err := t.request(ctx, method, "/v1/dev/ccs-faults", tok, body)
	if err != nil {
		return err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s ccs faults: %w", ErrTarget, method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return fmt.Errorf("%w: the server has no dev fault endpoint (run it in dev mode with the embedded CCS)", ErrNoFaultInjection)
	}
	if err := expect(resp, http.StatusNoContent, http.StatusOK); err != nil {
		return fmt.Errorf("%s ccs faults: %w", method, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return nil
}

// bearer returns user's token, minting it on first use.
func (t *HTTPTarget) bearer(ctx context.Context, user string) (string, error) {
	t.mu.Lock()
	tok, ok := t.tokens[user]
	t.mu.Unlock()
	if ok {
		return tok, nil
	}
	tok, err := t.token(ctx, user)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	t.tokens[user] = tok
	t.mu.Unlock()
	return tok, nil
}

func (t *HTTPTarget) devToken(ctx context.Context, user string) (string, error) {
	body, err := json.Marshal(map[string]string{"sub": user})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTarget, err)
	}
	req, err := t.request(ctx, http.MethodPost, "/v1/dev/token", "", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := t.doJSON(req, http.StatusOK, &out); err != nil {
		return "", fmt.Errorf("dev token for %s (is the server in dev mode?): %w", user, err)
	}
	if out.Token == "" {
		return "", fmt.Errorf("%w: dev token for %s: empty token", ErrTarget, user)
	}
	return out.Token, nil
}

func (t *HTTPTarget) request(ctx context.Context, method, path, tok string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, t.base.String()+path, body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTarget, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return req, nil
}

func (t *HTTPTarget) doJSON(req *http.Request, want int, out any) error {
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTarget, err)
	}
	defer resp.Body.Close()
	if err := expect(resp, want); err != nil {
		return err
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(out); err != nil {
		return fmt.Errorf("%w: decode response: %w", ErrTarget, err)
	}
	return nil
}

// expect returns an error naming the status and the API error, unless resp has a wanted status.
func expect(resp *http.Response, want ...int) error {
	for _, w := range want {
		if resp.StatusCode == w {
			return nil
		}
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var apiErr struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	detail := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &apiErr) == nil && apiErr.Error.Code != "" {
		detail = apiErr.Error.Code + ": " + apiErr.Error.Message
	}
	if len(detail) > 300 {
		detail = detail[:300] + "…"
	}
	return fmt.Errorf("%w: HTTP %d: %s", ErrTarget, resp.StatusCode, detail)
}
