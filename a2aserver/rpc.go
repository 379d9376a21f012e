package a2aserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/principal"
	"go.opentelemetry.io/otel/trace"
)

// knownMethods are the JSON-RPC methods POST /a2a answers, for the method-not-found message.
const knownMethods = "message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe"

// serveRPC serves POST /a2a: one JSON-RPC 2.0 request per body. Unary methods answer with a JSON
// response (HTTP 200 even for JSON-RPC errors, as the transport asks); message/stream and
// tasks/resubscribe answer with an SSE stream of JSON-RPC responses.
func (s *Handler) serveRPC(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			s.rpcReply(w, r, nil, nil, rpcErr(codeInvalidRequest, httpkit.TooLargeMessage(mbe.Limit)))
		case httpkit.BodyTimedOut(err):
			httpkit.WriteError(w, http.StatusRequestTimeout, "request_timeout", "The request body did not arrive in time.")
		}
		return // otherwise the client went away mid-body: nobody to answer
	}
	req, rerr := decodeRPC(body)
	if rerr != nil {
		s.rpcReply(w, r, req.ID, nil, rerr)
		return
	}
	caller := principalOf(r)
	if r, rerr = s.actFor(r, req.Params); rerr != nil {
		s.rpcReply(w, r, req.ID, nil, rerr)
		return
	}
	ctx, p := r.Context(), principalOf(r)
	if p != caller {
		var traceID string
		if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
			traceID = sc.TraceID().String()
		}
		s.log.InfoContext(ctx, "a2a: trusted service acts for a user", "service", string(caller), "principal", string(p),
			"method", req.Method, "trace_id", traceID)
		if s.cfg.OnDelegated != nil {
			r = s.withDelegation(r, Delegation{Service: caller, Principal: p, Method: req.Method, TraceID: traceID}, req.Params)
			ctx = r.Context()
			if startsTask(req.Method) {
				defer reportDelegation(ctx, "") // when the message never got as far as its task
			} else {
				reportDelegation(ctx, "")
			}
		}
	}
	var result any
	switch req.Method {
	case "message/send":
		result, rerr = s.sendMessage(ctx, p, req.Params)
	case "message/stream":
		s.streamMessage(w, r, req)
		return
	case "tasks/resubscribe":
		s.resubscribe(w, r, req)
		return
	case "tasks/get":
		result, rerr = s.getTask(ctx, p, req.Params)
	case "tasks/cancel":
		result, rerr = s.cancelTask(ctx, p, req.Params)
	case "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
		"tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete":
		rerr = rpcErr(codePushNotSupported, "Push notifications are not supported: use message/stream or tasks/get.")
	case "agent/getAuthenticatedExtendedCard":
		rerr = rpcErr(codeNoExtendedCard, "There is no extended agent card: the public card is complete.")
	default:
		rerr = rpcErr(codeMethodNotFound, "Unknown method. This agent answers "+knownMethods+".")
	}
	if ctx.Err() != nil {
		return // the caller left while the turn ran; the turn itself carries on
	}
	s.rpcReply(w, r, req.ID, result, rerr)
}

// actFor settles whom a request acts for. A caller may say it in metadata.principal (of the
// params, or of the message): a trusted service then acts for that user, who becomes the
// request's principal; any other caller may only name itself.
func (s *Handler) actFor(r *http.Request, params json.RawMessage) (*http.Request, *rpcError) {
	claimed, e := claimedPrincipal(params)
	if e != nil || claimed == "" {
		return r, e
	}
	caller := principalOf(r)
	switch {
	case claimed == caller:
		return r, nil
	case !slices.Contains(s.cfg.TrustedServices, caller):
		return r, rpcErr(codeInvalidParams, "metadata.principal does not match the authenticated user, and this credential is not one the agent trusts to act for users (a2a.trusted_services).")
	}
	return r.WithContext(principal.NewContext(r.Context(), claimed)), nil
}

// claimedPrincipal reads metadata.principal from a request's params and from its message's
// metadata; both may be given, but must agree.
func claimedPrincipal(params json.RawMessage) (principal.Principal, *rpcError) {
	if params == nil {
		return "", nil
	}
	var md struct {
		Metadata map[string]any `json:"metadata"`
		Message  *struct {
			Metadata map[string]any `json:"metadata"`
		} `json:"message"`
	}
	if json.Unmarshal(params, &md) != nil {
		return "", nil // the method's own decoding says what is wrong
	}
	maps := []map[string]any{md.Metadata}
	if md.Message != nil {
		maps = append(maps, md.Message.Metadata)
	}
	var claimed string
	for _, m := range maps {
		v, ok := m["principal"]
		if !ok {
			continue
		}
		p, isString := v.(string)
		switch {
		case !isString || strings.TrimSpace(p) == "":
			return "", rpcErr(codeInvalidParams, "metadata.principal must be a non-empty string.")
		case claimed != "" && p != claimed:
			return "", rpcErr(codeInvalidParams, "metadata.principal differs between the params and the message.")
		}
		claimed = p
	}
	if claimed == "" {
		return "", nil
	}
	// A trusted service's word is taken for whom it acts, but the name must be one a token
	// could carry: it travels to the CCS in a header and into logs and the store.
	pr, err := principal.Parse(claimed)
	if err != nil {
		return "", rpcErr(codeInvalidParams, "metadata.principal must be at most 256 bytes of text without control characters.")
	}
	return pr, nil
}

func (s *Handler) rpcReply(w http.ResponseWriter, _ *http.Request, id json.RawMessage, result any, rerr *rpcError) {
	setRetryAfter(w, rerr)
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Result: result, Error: rerr}
	if rerr != nil {
		resp.Result = nil
	}
	writeJSON(w, resp)
}

// decodeRPC reads one JSON-RPC 2.0 request object. On failure it returns the error to answer
// with, and the request's id when it could be read (the response then carries it; otherwise
// the id is null). Params, when present, must be an object: A2A names its parameters.
func decodeRPC(body []byte) (rpcRequest, *rpcError) {
	var req rpcRequest
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		return req, rpcErr(codeParse, "The request is not valid JSON.")
	}
	switch body[0] {
	case '{':
	case '[':
		return req, rpcErr(codeInvalidRequest, "Batch requests are not supported: send one request per call.")
	default:
		return req, rpcErr(codeInvalidRequest, "The request must be a JSON-RPC 2.0 object.")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return req, rpcErr(codeParse, "The request is not valid JSON.")
	}
	id, hasID := fields["id"]
	switch {
	case !hasID:
		return req, rpcErr(codeInvalidRequest, `The request needs an "id": every A2A method answers.`)
	case !validID(id):
		return req, rpcErr(codeInvalidRequest, `"id" must be a string or a number.`)
	}
	req.ID = id
	if !httpkit.HoldableText(body) {
		return req, rpcErr(codeInvalidParams, httpkit.InvalidTextMessage)
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return req, rpcErr(codeInvalidRequest, `"jsonrpc" must be "2.0".`)
	}
	if json.Unmarshal(fields["method"], &req.Method) != nil || req.Method == "" {
		return req, rpcErr(codeInvalidRequest, `"method" must be a non-empty string.`)
	}
	if p := fields["params"]; len(p) > 0 && string(p) != "null" {
		if p[0] != '{' {
			return req, rpcErr(codeInvalidParams, `"params" must be an object.`)
		}
		req.Params = p
	}
	return req, nil
}

// validID accepts the id forms JSON-RPC recommends: a string or a number (not null).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	return id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')
}

// decodeParams decodes a method's params object into v, saying which field is wrong.
func decodeParams(raw json.RawMessage, v any) *rpcError {
	if raw == nil {
		return rpcErr(codeInvalidParams, `"params" are required for this method.`)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return rpcErr(codeInvalidParams, "params."+typ.Field+" has the wrong type.")
		}
		return rpcErr(codeInvalidParams, "The params do not match this method.")
	}
	return nil
}

// taskQuery reads the params of tasks/get, tasks/cancel and tasks/resubscribe (TaskQueryParams
// and TaskIdParams): the task id, and the history length when one is asked for.
func taskQuery(raw json.RawMessage) (taskIDParams, *rpcError) {
	var tp taskIDParams
	if e := decodeParams(raw, &tp); e != nil {
		return tp, e
	}
	tp.ID = strings.TrimSpace(tp.ID)
	if tp.ID == "" {
		return tp, rpcErr(codeInvalidParams, "params.id (the task id) is required.")
	}
	if e := checkHistoryLength(tp.HistoryLength); e != nil {
		return tp, e
	}
	return tp, nil
}

// checkHistoryLength refuses a negative historyLength: it counts messages.
func checkHistoryLength(n *int) *rpcError {
	if n != nil && *n < 0 {
		return rpcErr(codeInvalidParams, "historyLength must be 0 or more.")
	}
	return nil
}
