package subagents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/definitions"
)

// Tool results the sub-agent's LLM sees. They are JSON so that a model can tell data from
// notes; none carries a code, status detail or partial[] content.
type toolResult struct {
	Status string `json:"status"`         // ok, partial or unavailable
	Note   string `json:"note,omitempty"` // plain words for the LLM to relay
	Data   any    `json:"data,omitempty"` // the typed payload, re-encoded from its Go type
	// Answer is the tool's answer template rendered over Data for this question and locale:
	// the facts as the agent's team wants them stated, beside the data they come from.
	Answer string `json:"answer,omitempty"`
}

const (
	notePartial     = "Some sources did not answer, so this may be incomplete."
	noteUnavailable = "This data is unavailable right now."
)

// callTool is the CCS tool wrapper: the one place where CCS data can enter an LLM context.
func (r *invocation) callTool(ctx context.Context, tc llms.ToolCall) string {
	a := r.a
	tool, ok := a.byName[tc.FunctionCall.Name]
	if !ok {
		r.missing++
		return encode(toolResult{Status: "unavailable", Note: "There is no tool by that name."})
	}
	r.tools = append(r.tools, tool.Name)
	// The arguments are decoded once, for the status event and for the enricher alike.
	var params map[string]any
	argsErr := json.Unmarshal([]byte(tc.FunctionCall.Arguments), &params)
	if argsErr != nil {
		params = nil // a model's malformed arguments: the enricher sees none rather than garbage
	}
	if tool.StatusEvent != "" && r.req.Emit != nil {
		r.req.Emit(tool.StatusEvent, paramsForStatus(params, argsErr == nil))
	}
	invoking := r.req.Inherited.Principal
	ctx, span := a.tracer.Start(ctx, "ccs "+tool.Enricher, trace.WithAttributes(
		attribute.String("switchboard.agent_id", a.def.ID),
		attribute.String("switchboard.turn_id", r.req.Inherited.TurnID),
		attribute.String("ccs.enricher_id", tool.Enricher),
		attribute.String("ccs.domain_type", tool.DomainType),
	))
	defer span.End()

	req := ccs.EnricherRequest{
		Principal:  string(invoking), // inherited, never derived
		EnricherID: tool.Enricher,
		Params:     params,
	}
	if sc := span.SpanContext(); sc.HasTraceID() {
		req.TraceID = sc.TraceID().String()
	}
	start := time.Now()
	resp, err := a.ccs.Enrich(ctx, req)
	r.busy += time.Since(start)
	if errors.Is(err, ccs.ErrEnvelopePrincipal) {
		// A principal that is not a string names nobody: a mismatch, suppressed like one.
		span.SetAttributes(attribute.String("ccs.verdict", string(ccs.ReasonPrincipalMismatch)), attribute.Bool("ccs.principal_verified", false))
		a.securityAlert(ctx, span, r.req.Inherited.TurnID, tool.Enricher, ccs.ReasonPrincipalMismatch)
		r.suppressed(ctx, tool.Enricher, ccs.ReasonPrincipalMismatch)
		r.missing++
		return encode(toolResult{Status: "unavailable", Note: noteUnavailable})
	}
	if err != nil {
		reason := a.transportFailure(ctx, r.req.Inherited.TurnID, tool.Enricher, err)
		span.SetAttributes(attribute.String("ccs.outcome", reason))
		span.SetStatus(codes.Error, reason)
		r.missing++
		return encode(toolResult{Status: "unavailable", Note: noteUnavailable})
	}
	// The enricher must answer for the enricher asked; anything else is treated like a
	// malformed envelope before the principal check even runs.
	verdict := ccs.Check(resp, invoking, a.check)
	if verdict.Usable() && resp.EnricherID != "" && resp.EnricherID != tool.Enricher {
		verdict = ccs.Verdict{Kind: ccs.Unavailable, Reason: ccs.ReasonMalformed}
	}
	// In one call: the span grows its attributes once, not once a call.
	span.SetAttributes(
		attribute.String("ccs.status", resp.Status),
		attribute.String("ccs.version", resp.Version),
		attribute.Bool("ccs.cache.cached", resp.CacheMeta.Cached),
		attribute.Bool("ccs.cache.cacheable", resp.CacheMeta.Cacheable),
		attribute.String("ccs.cache.ttl", resp.CacheMeta.TTL),
		attribute.String("ccs.verdict", string(verdict.Reason)),
		attribute.Bool("ccs.principal_verified", verdict.Reason != ccs.ReasonPrincipalMismatch && verdict.Reason != ccs.ReasonBadSignature),
	)
	switch verdict.Reason {
	case ccs.ReasonPrincipalMismatch, ccs.ReasonBadSignature:
		a.securityAlert(ctx, span, r.req.Inherited.TurnID, tool.Enricher, verdict.Reason)
		r.suppressed(ctx, tool.Enricher, verdict.Reason)
	case ccs.ReasonVersionMismatch:
		a.inst.versionMismatch.Add(context.Background(), 1)
		r.suppressed(ctx, tool.Enricher, verdict.Reason)
	case ccs.ReasonStatusError, ccs.ReasonUnknownStatus, ccs.ReasonMalformed:
		// An envelope came back but its data cannot be used: count it with the calls that
		// failed, by why, so an enricher answering "error" or "OK" shows on a dashboard.
		a.inst.ccsFailures.Add(context.Background(), 1, failureAttrs(tool.Enricher, string(verdict.Reason)))
	}
	if !verdict.Usable() {
		r.missing++
		return encode(toolResult{Status: "unavailable", Note: noteUnavailable})
	}

	typed, err := a.decode(resp, tool)
	if err != nil {
		a.opts.Logger.WarnContext(ctx, "ccs payload rejected", "agent", a.def.ID, "turn_id", r.req.Inherited.TurnID, "enricher", tool.Enricher, "reason", "decode", "error", rejection(err))
		a.inst.ccsFailures.Add(context.Background(), 1, failureAttrs(tool.Enricher, string(ccs.ReasonMalformed)))
		r.missing++
		return encode(toolResult{Status: "unavailable", Note: noteUnavailable})
	}
	if comp, err := json.Marshal(map[string]any{"type": resp.DomainType, "data": typed}); err == nil {
		r.components = append(r.components, comp)
	}
	answer := r.answer(ctx, tool, typed)
	if verdict.Kind == ccs.UseWithCaveat {
		r.caveats++
		return encode(toolResult{Status: "partial", Note: notePartial, Data: typed, Answer: answer})
	}
	r.used++
	return encode(toolResult{Status: "ok", Data: typed, Answer: answer})
}

// answer renders the tool's answer template over its data, or "" when it has none or the
// template fails on this payload (logged: the data still goes to the model).
func (r *invocation) answer(ctx context.Context, tool definitions.Tool, data any) string {
	tmpl := r.a.answers[tool.Name]
	if tmpl == nil {
		return ""
	}
	text, err := tmpl.Render(data, definitions.AnswerInput{Question: r.req.Request, Locale: r.req.Inherited.Locale})
	if err != nil {
		r.a.opts.Logger.WarnContext(ctx, "answer template failed", "agent", r.a.def.ID, "turn_id", r.req.Inherited.TurnID, "tool", tool.Name, "error", err.Error())
		return ""
	}
	return text
}

// decode types the payload when its (domain type, enricher) pair is registered, and otherwise
// passes it on as the JSON the CCS sent: a vertical team's agent works against its CCS with a
// YAML file and no Go, and the models read JSON either way. An envelope for another enricher or
// domain type than the tool asked for, or a registered pair whose payload does not fit its
// type, is malformed.
func (a *Agent) decode(resp *ccs.RawResponse, tool definitions.Tool) (any, error) {
	if resp.EnricherID != tool.Enricher || (tool.DomainType != "" && resp.DomainType != tool.DomainType) {
		return nil, &envelopeMismatch{tool: tool.Name, domainType: resp.DomainType, enricher: resp.EnricherID, wantDomainType: tool.DomainType, wantEnricher: tool.Enricher}
	}
	typed, err := a.reg.Decode(resp)
	if !errors.Is(err, ccs.ErrUnregistered) {
		return typed, err
	}
	if !json.Valid(resp.Payload) {
		return nil, fmt.Errorf("%w: payload is not JSON", ccs.ErrMalformed)
	}
	return resp.Payload, nil
}

// envelopeMismatch is an envelope for another (domain type, enricher) pair than its tool's. It
// is malformed; its message names both pairs, which is what a team must fix (the tool's
// domain_type, or its CCS or fixture).
type envelopeMismatch struct {
	tool                         string
	domainType, enricher         string // the envelope's
	wantDomainType, wantEnricher string // the tool's
}

func (e *envelopeMismatch) Error() string {
	return fmt.Sprintf("%v: the envelope has domain_type %q from enricher %q; tool %s expects domain_type %q from enricher %q",
		ccs.ErrMalformed, e.domainType, e.enricher, e.tool, e.wantDomainType, e.wantEnricher)
}

func (e *envelopeMismatch) Unwrap() error { return ccs.ErrMalformed }

// rejection says, for the log, why a payload was rejected, without quoting it: the decoder's
// own messages can (a number that does not fit, a date that does not parse), and a payload
// is the user's data. What it keeps are names: domain types and enricher ids, JSON kinds,
// field paths and Go types.
func rejection(err error) string {
	var mismatch *envelopeMismatch
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &mismatch):
		return mismatch.Error()
	case errors.As(err, &typeErr):
		kind, _, _ := strings.Cut(typeErr.Value, " ") // "number 12.5": the number is data
		field := typeErr.Field
		if field == "" {
			field = "(the payload itself)"
		}
		return fmt.Sprintf("%v: payload field %s: a JSON %s does not fit Go type %v", ccs.ErrMalformed, field, kind, typeErr.Type)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("%v: payload is not valid JSON (at byte %d)", ccs.ErrMalformed, syntaxErr.Offset)
	default:
		return fmt.Sprintf("%v: payload does not fit the Go type registered for its domain type (the decoder's message is not logged: it may quote the payload)", ccs.ErrMalformed)
	}
}

// securityAlert handles a principal mismatch or a bad signature: the payload is already
// suppressed; count it, alert, and never retry.
func (a *Agent) securityAlert(ctx context.Context, span trace.Span, turnID, enricher string, reason ccs.Reason) {
	a.inst.principalMismatch.Add(context.Background(), 1, consumerAttr)
	span.SetStatus(codes.Error, "envelope principal check failed")
	a.opts.Logger.LogAttrs(ctx, slog.LevelError, "security alert: ccs envelope failed principal verification",
		slog.String("alert", "ps6_envelope_principal_mismatch"),
		slog.String("reason", string(reason)),
		slog.String("agent", a.def.ID),
		slog.String("turn_id", turnID),
		slog.String("enricher", enricher),
		slog.String("trace_id", span.SpanContext().TraceID().String()),
	)
}

// transportFailure classifies a failed CCS call for metrics and spans.
func (a *Agent) transportFailure(ctx context.Context, turnID, enricher string, err error) string {
	reason := "unavailable"
	switch {
	case errors.Is(err, ccs.ErrMissingPrincipal):
		reason = "missing_principal"
	case errors.Is(err, ccs.ErrPrincipalRejected):
		reason = "principal_rejected"
	case errors.Is(err, ccs.ErrMalformed):
		reason = "malformed"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		reason = "timeout"
	case ctx.Err() != nil:
		reason = "cancelled" // the user (or shutdown) cancelled the turn: not the CCS's fault
	}
	a.inst.ccsFailures.Add(context.Background(), 1, failureAttrs(enricher, reason))
	level := slog.LevelWarn
	if reason == "principal_rejected" || reason == "missing_principal" {
		// The CCS refused the principal we sent: this is expected to be zero in production.
		level = slog.LevelError
	}
	a.opts.Logger.Log(ctx, level, "ccs call failed", "agent", a.def.ID, "turn_id", turnID, "enricher", enricher, "reason", reason)
	return reason
}

// paramsForStatus offers the call's string arguments, decoded (valid reports whether they
// were JSON), to transform templates; the renderer sanitises them before any reach the user.
func paramsForStatus(raw map[string]any, valid bool) map[string]string {
	if !valid {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

func encode(v toolResult) string {
	b, err := json.Marshal(v)
	if err != nil {
		return `{"status":"unavailable","note":"` + noteUnavailable + `"}`
	}
	return string(b)
}
