package subagents

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
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
// with JSON-RPC message/stream (or message/send and tasks/get polling, for an agent that does
// not stream). It forwards the request text and the inherited context; the remote agent brings
// its own model and tools. When the call's context ends first (the turn was cancelled, or the
// sub-agent's timeout passed), the remote task is cancelled with tasks/cancel.
//
// The inherited principal travels with every call, as metadata.principal (of the message, and
// of tasks/get and tasks/cancel) and the X-Principal header, next to the credential; the remote
// agent is expected to act for that user only. switchboard's own /a2a does so when the
// credential is the user's own, or a service credential it trusts (a2a.trusted_services).
type Remote struct {
	def    *definitions.Definition
	client *http.Client
	cfg    RemoteConfig
	opts   options
	ids    atomic.Uint64
}

// NewRemote returns the runtime for cfg.Definition, which must be a sub_agent with a2a_url.
// Of the options, WithTelemetry's tracers apply.
func NewRemote(cfg RemoteConfig, opts ...Option) (*Remote, error) {
	o := collect(options{}, opts)
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
// transport or protocol failure: a failure of the sub-agent itself, for the orchestrator to
// acknowledge. A completed task whose metadata.outcome is "degraded" is a partial answer.
func (r *Remote) Ask(ctx context.Context, req ask.Question) (ask.Answer, error) {
	p := req.Inherited.Principal
	if p == "" {
		return ask.Answer{}, ErrNoPrincipal
	}
	ctx, span := r.opts.Tracers.Tracer(tracerName).Start(ctx, "a2a "+r.def.ID, trace.WithAttributes(
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

func (r *Remote) ask(ctx context.Context, req ask.Question) (ask.Answer, error) {
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
	// message/stream names the task at once, so that a cancelled turn can cancel it; an agent
	// without streaming is asked with message/send and polled.
	res, taskID, err := r.streamSend(ctx, in.Principal, params)
	if errors.Is(err, errNoStreaming) {
		res, err = r.call(ctx, in.Principal, "message/send", params)
		if err == nil && res.Kind == "task" {
			taskID = res.ID
		}
	}
	for err == nil && res.Kind == "task" && !terminal(res.Status.State) {
		if err = sleep(ctx, r.cfg.PollInterval); err == nil {
			res, err = r.call(ctx, in.Principal, "tasks/get", taskQuery(res.ID, in.Principal))
		}
	}
	if err != nil {
		if ctx.Err() != nil && taskID != "" {
			r.cancelRemote(ctx, in.Principal, taskID)
		}
		return ask.Answer{}, err
	}
	return replyOf(res)
}

// taskQuery is the params of tasks/get and tasks/cancel: the task, and the user it was started
// for, whom a remote that trusts this service's credential acts for.
func taskQuery(id string, p principal.Principal) map[string]any {
	return map[string]any{"id": id, "metadata": map[string]any{"principal": string(p)}}
}

// cancelRemote asks the remote agent to cancel a task whose turn was cancelled (or timed out),
// so that it stops working for nobody. It waits briefly for the answer, which changes nothing
// here: the turn is over either way.
func (r *Remote) cancelRemote(ctx context.Context, p principal.Principal, taskID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	_, err := r.call(ctx, p, "tasks/cancel", taskQuery(taskID, p))
	span := trace.SpanFromContext(ctx)
	span.AddEvent("a2a.cancel", trace.WithAttributes(attribute.String("a2a.task_id", taskID), attribute.Bool("a2a.cancel_ok", err == nil)))
}

// cancelTimeout bounds the tasks/cancel sent for a cancelled turn.
const cancelTimeout = 3 * time.Second

// replyOf reads the answer out of a finished task or a message.
func replyOf(res a2aResult) (ask.Answer, error) {
	switch res.Kind {
	case "message":
	case "task":
		if s := res.Status.State; s != "completed" {
			return ask.Answer{}, fmt.Errorf("%w: task ended %s", ErrRemoteTask, s)
		}
	default:
		return ask.Answer{}, fmt.Errorf("%w: result of kind %q", ErrRemote, res.Kind)
	}
	text := res.text()
	if text == "" {
		return ask.Answer{}, fmt.Errorf("%w: completed without an answer", ErrRemoteTask)
	}
	outcome := ask.OutcomeOK
	if o, _ := res.Metadata["outcome"].(string); o == "degraded" {
		outcome = ask.OutcomePartial
	}
	return ask.Answer{Text: text, Outcome: outcome}, nil
}

// terminal reports whether a task state ends polling: every state but submitted and working
// (input-required and auth-required end it too: nobody can answer them here).
func terminal(state string) bool { return state != "submitted" && state != "working" }

// call sends one JSON-RPC request and decodes its result.
func (r *Remote) call(ctx context.Context, p principal.Principal, method string, params any) (a2aResult, error) {
	id := strconv.FormatUint(r.ids.Add(1), 10)
	resp, err := r.post(ctx, p, id, method, params, "application/json")
	if err != nil {
		return a2aResult{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxResponse+1))
	if err != nil {
		return a2aResult{}, fmt.Errorf("%w: %s: read: %w", ErrRemote, method, err)
	}
	if int64(len(data)) > r.cfg.MaxResponse {
		return a2aResult{}, fmt.Errorf("%w: %s: response larger than %d bytes", ErrRemote, method, r.cfg.MaxResponse)
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
func messageID(in ask.Inherited, agentID, request string) string {
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
