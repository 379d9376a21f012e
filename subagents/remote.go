package subagents

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/agent"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/principal"
)

// RemoteConfig holds what [NewRemote] needs.
type RemoteConfig struct {
	// Definition is a sub_agent whose a2a_url names the remote agent's JSON-RPC endpoint.
	Definition *definitions.Definition
	// HTTPClient sends the calls; nil uses a client of its own. Each call is bounded by its
	// context (the orchestrator applies the definition's timeout), not by the client.
	HTTPClient *http.Client
	// Credential returns the bearer token sent for p (a service credential, or a token minted
	// for p by token exchange); "" or a nil Credential sends no Authorization header.
	Credential func(ctx context.Context, p principal.Principal) (string, error)
	// MaxResponse bounds a response body in bytes; default 1 MiB.
	MaxResponse int64
	// PollInterval is how often tasks/get is polled when the remote agent returns a task that
	// is still working although the call asked to block; default 250ms.
	PollInterval time.Duration
}

// Remote answers for a sub-agent definition with a2a_url: a remote A2A v0.3 agent, reached
// with JSON-RPC message/send (blocking). It forwards the request text and the inherited
// context; the remote agent brings its own model and tools.
//
// The inherited principal travels with every call, as the message's metadata.principal and
// the X-Principal header, next to the credential; the remote agent is expected to act for that
// user only (switchboard's own /a2a refuses a principal other than the credential's subject).
type Remote struct {
	def    *definitions.Definition
	client *http.Client
	cfg    RemoteConfig
	opts   options
	ids    atomic.Uint64
}

// NewRemote returns the runtime for cfg.Definition, which must be a sub_agent with a2a_url.
// Of the options, WithTracerProvider applies.
func NewRemote(cfg RemoteConfig, opts ...Option) (*Remote, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.tracer == nil {
		o.tracer = otel.GetTracerProvider()
	}
	def := cfg.Definition
	switch {
	case def == nil || def.Kind != definitions.KindSubAgent:
		return nil, ErrNotSubAgent
	case !def.Remote():
		return nil, fmt.Errorf("%w: %s", ErrNotRemote, def.ID)
	}
	if cfg.MaxResponse <= 0 {
		cfg.MaxResponse = 1 << 20
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 250 * time.Millisecond
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{}
	}
	return &Remote{def: def, client: client, cfg: cfg, opts: o}, nil
}

// Ask sends req to the remote agent and returns its answer. A task that ends failed, canceled
// or rejected (or wants input that a sub-agent call cannot give) is an error, as is any
// transport or protocol failure: an Axis 1 failure for the orchestrator to acknowledge. A
// completed task whose metadata.outcome is "degraded" is a partial answer.
func (r *Remote) Ask(ctx context.Context, req agent.Question) (agent.Answer, error) {
	p := req.Inherited.Principal
	if p == "" {
		return agent.Answer{}, ErrNoPrincipal
	}
	ctx, span := r.opts.tracer.Tracer(tracerName).Start(ctx, "a2a "+r.def.ID, trace.WithAttributes(
		attribute.String("switchboard.agent_id", r.def.ID),
		attribute.String("switchboard.turn_id", req.Inherited.TurnID),
	), trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	start := time.Now()
	reply, err := r.ask(ctx, req)
	reply.Busy = time.Since(start)
	if err != nil {
		span.SetStatus(codes.Error, "remote agent failed")
	}
	return reply, err
}

func (r *Remote) ask(ctx context.Context, req agent.Question) (agent.Answer, error) {
	in := req.Inherited
	meta := map[string]any{"principal": string(in.Principal)}
	for k, v := range map[string]string{"locale": in.Locale, "location": in.Location, "prior_context": in.PriorContext} {
		if v != "" {
			meta[k] = v
		}
	}
	params := a2aSendParams{
		Message: a2aMessage{
			Kind: "message", MessageID: messageID(in, r.def.ID, req.Request), Role: "user",
			Parts: []a2aPart{{Kind: "text", Text: req.Request}}, ContextID: in.EpisodeID, Metadata: meta,
		},
		Configuration: a2aSendConfig{AcceptedOutputModes: []string{"text/plain"}, Blocking: true},
	}
	res, err := r.call(ctx, in.Principal, "message/send", params)
	for err == nil && res.Kind == "task" && !terminal(res.Status.State) {
		if err = sleep(ctx, r.cfg.PollInterval); err == nil {
			res, err = r.call(ctx, in.Principal, "tasks/get", map[string]string{"id": res.ID})
		}
	}
	if err != nil {
		return agent.Answer{}, err
	}
	return replyOf(res)
}

// replyOf reads the answer out of a finished task or a message.
func replyOf(res a2aResult) (agent.Answer, error) {
	switch res.Kind {
	case "message":
	case "task":
		if s := res.Status.State; s != "completed" {
			return agent.Answer{}, fmt.Errorf("%w: task ended %s", ErrRemoteTask, s)
		}
	default:
		return agent.Answer{}, fmt.Errorf("%w: result of kind %q", ErrRemote, res.Kind)
	}
	text := res.text()
	if text == "" {
		return agent.Answer{}, fmt.Errorf("%w: completed without an answer", ErrRemoteTask)
	}
	outcome := agent.OutcomeOK
	if o, _ := res.Metadata["outcome"].(string); o == "degraded" {
		outcome = agent.OutcomePartial
	}
	return agent.Answer{Text: text, Outcome: outcome}, nil
}

// terminal reports whether a task state ends polling: every state but submitted and working
// (input-required and auth-required end it too: nobody can answer them here).
func terminal(state string) bool { return state != "submitted" && state != "working" }

// call sends one JSON-RPC request and decodes its result.
func (r *Remote) call(ctx context.Context, p principal.Principal, method string, params any) (a2aResult, error) {
	var res a2aResult
	id := strconv.FormatUint(r.ids.Add(1), 10)
	body, err := json.Marshal(rpcCall{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return res, fmt.Errorf("%w: encode %s: %w", ErrRemote, method, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.def.A2AURL, bytes.NewReader(body))
	if err != nil {
		return res, fmt.Errorf("%w: %w", ErrRemote, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("X-Principal", string(p))
	if r.cfg.Credential != nil {
		tok, err := r.cfg.Credential(ctx, p)
		if err != nil {
			return res, fmt.Errorf("%w: credential: %w", ErrRemote, err)
		}
		if tok != "" {
			hreq.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(hreq.Header))

	resp, err := r.client.Do(hreq)
	if err != nil {
		return res, fmt.Errorf("%w: %s: %w", ErrRemote, method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("%w: %s: HTTP %d", ErrRemote, method, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxResponse+1))
	if err != nil {
		return res, fmt.Errorf("%w: %s: read: %w", ErrRemote, method, err)
	}
	if int64(len(data)) > r.cfg.MaxResponse {
		return res, fmt.Errorf("%w: %s: response larger than %d bytes", ErrRemote, method, r.cfg.MaxResponse)
	}
	return decodeAnswer(data, id, method)
}

// decodeAnswer checks a JSON-RPC response to the request with the given id and decodes its
// result. It is the parser of what a remote agent sends back.
func decodeAnswer(data []byte, id, method string) (a2aResult, error) {
	var res a2aResult
	var ans rpcAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return res, fmt.Errorf("%w: %s: malformed response: %w", ErrRemote, method, err)
	}
	var gotID string
	if json.Unmarshal(ans.ID, &gotID) != nil {
		gotID = string(ans.ID) // a number, echoed as sent
	}
	switch {
	case ans.Error != nil:
		return res, fmt.Errorf("%w: %s: JSON-RPC error %d: %.200s", ErrRemote, method, ans.Error.Code, ans.Error.Message)
	case gotID != id:
		return res, fmt.Errorf("%w: %s: response to another request", ErrRemote, method)
	case len(ans.Result) == 0 || string(ans.Result) == "null":
		return res, fmt.Errorf("%w: %s: response without result", ErrRemote, method)
	}
	if err := json.Unmarshal(ans.Result, &res); err != nil {
		return res, fmt.Errorf("%w: %s: malformed result: %w", ErrRemote, method, err)
	}
	return res, nil
}

// messageID is the A2A messageId of one dispatch, which the remote agent uses as its
// idempotency key: the same turn asking the same agent the same thing again (a retry) gets the
// same task instead of a second one. Outside a turn it is random.
func messageID(in agent.Inherited, agentID, request string) string {
	if in.TurnID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		return "sb-" + hex.EncodeToString(b[:])
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s", in.TurnID, agentID, request))
	return "sb-" + hex.EncodeToString(h[:16])
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrRemote, context.Cause(ctx))
	case <-t.C:
		return nil
	}
}
