package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiDialect speaks the Gemini (generativelanguage v1beta) REST wire format, as the
// generative-ai-go client that langchaingo's googleai provider wraps uses it:
//
//   - POST /v1beta/models/{model}:generateContent answers one JSON object;
//   - POST /v1beta/models/{model}:streamGenerateContent answers a JSON array of response
//     objects, streamed element by element (the client asks with "$alt=json;enum-encoding=int"
//     and reads the array incrementally), or Server-Sent Events when asked with alt=sse;
//   - the key travels in the x-goog-api-key header or the key query parameter.
//
// The client sends enums as numbers and asked for numeric enums back, so the fake answers
// with numbers when the request asks for enum-encoding=int and with names otherwise.
type geminiDialect struct{}

func (geminiDialect) base() string { return "" }

func (geminiDialect) paths() []string { return []string{"/v1beta/models/", "/v1/models/"} }

// The two methods the fake serves, as they appear after the model in the path.
const (
	methodGenerate = "generateContent"
	methodStream   = "streamGenerateContent"
)

type gmRequest struct {
	Contents          []gmContent `json:"contents"`
	SystemInstruction *gmContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type gmContent struct {
	Role  string   `json:"role"`
	Parts []gmPart `json:"parts"`
}

// gmPart is one part; exactly one field is set. Parts of other kinds (inline data, file
// data, code) are not supported by the fake and fail the request.
type gmPart struct {
	Text         *string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args,omitempty"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// geminiTarget splits ".../models/{model}:{method}" into model and method.
func geminiTarget(path string) (model, method string, err error) {
	_, rest, ok := strings.Cut(path, "/models/")
	if !ok {
		return "", "", fmt.Errorf("path %q has no /models/", path)
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return "", "", fmt.Errorf("path %q has no {model}:{method}", path)
	}
	model, method = rest[:i], rest[i+1:]
	if method != methodGenerate && method != methodStream {
		return "", "", fmt.Errorf("path %q: unsupported method %q", path, method)
	}
	return model, method, nil
}

func (geminiDialect) decode(body []byte, r *http.Request) (Request, error) {
	model, method, err := geminiTarget(r.URL.Path)
	if err != nil {
		return Request{}, err
	}
	var in gmRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	key := r.Header.Get("X-Goog-Api-Key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	req := Request{Model: model, Stream: method == methodStream, APIKey: key}
	if in.SystemInstruction != nil {
		sys, err := gmMessage(*in.SystemInstruction)
		if err != nil {
			return Request{}, fmt.Errorf("systemInstruction: %w", err)
		}
		req.System = sys.Text
	}
	for i, c := range in.Contents {
		msg, err := gmMessage(c)
		if err != nil {
			return Request{}, fmt.Errorf("content %d: %w", i, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range in.Tools {
		for _, fd := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, Tool{Name: fd.Name, Description: fd.Description, Parameters: gmSchema(fd.Parameters)})
		}
	}
	return req, nil
}

func gmMessage(c gmContent) (Message, error) {
	msg := Message{Role: c.Role}
	var text strings.Builder
	for j, p := range c.Parts {
		switch {
		case p.Text != nil:
			text.WriteString(*p.Text)
		case p.FunctionCall != nil:
			args, err := compactJSON(p.FunctionCall.Args)
			if err != nil {
				return Message{}, fmt.Errorf("part %d functionCall args: %w", j, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{Name: p.FunctionCall.Name, Arguments: args})
		case p.FunctionResponse != nil:
			content, err := gmResult(p.FunctionResponse.Response)
			if err != nil {
				return Message{}, fmt.Errorf("part %d functionResponse: %w", j, err)
			}
			msg.ToolResults = append(msg.ToolResults, ToolResult{Name: p.FunctionResponse.Name, Content: content})
		default:
			return Message{}, fmt.Errorf("part %d: unsupported part kind", j)
		}
	}
	msg.Text = text.String()
	return msg, nil
}

// gmResult reads a functionResponse.response object. langchaingo wraps a tool result's
// text as {"response": text}; that text is the result's Content. Any other object is kept
// as compact JSON.
func gmResult(raw json.RawMessage) (string, error) {
	var wrapped map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapped); err != nil {
		return "", err
	}
	if len(wrapped) == 1 {
		var s string
		if err := json.Unmarshal(wrapped["response"], &s); err == nil {
			return s, nil
		}
	}
	return compactJSON(raw)
}

func compactJSON(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	return mustJSON(v), nil
}

// geminiTypes are the names of the Schema.Type enum by number.
var geminiTypes = []string{"type_unspecified", "string", "number", "integer", "boolean", "array", "object"}

// gmSchema returns a Gemini Schema as a JSON-Schema-like map: the "type" enum, sent as a
// number or an upper-case name, becomes the lower-case JSON Schema name, recursively.
// Everything else is kept as sent.
func gmSchema(s map[string]any) map[string]any {
	if s == nil {
		return nil
	}
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch k {
		case "type":
			switch t := v.(type) {
			case float64:
				if i := int(t); i >= 0 && i < len(geminiTypes) && float64(i) == t {
					v = geminiTypes[i]
				}
			case string:
				v = strings.ToLower(t)
			}
		case "items":
			if m, ok := v.(map[string]any); ok {
				v = gmSchema(m)
			}
		case "properties":
			if props, ok := v.(map[string]any); ok {
				conv := make(map[string]any, len(props))
				for name, p := range props {
					if m, ok := p.(map[string]any); ok {
						conv[name] = gmSchema(m)
					} else {
						conv[name] = p
					}
				}
				v = conv
			}
		}
		out[k] = v
	}
	return out
}

// geminiStatus is the google.rpc status name Google sends with each HTTP error code.
var geminiStatus = map[int]string{
	http.StatusBadRequest:          "INVALID_ARGUMENT",
	http.StatusUnauthorized:        "UNAUTHENTICATED",
	http.StatusForbidden:           "PERMISSION_DENIED",
	http.StatusNotFound:            "NOT_FOUND",
	http.StatusTooManyRequests:     "RESOURCE_EXHAUSTED",
	http.StatusInternalServerError: "INTERNAL",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
	http.StatusGatewayTimeout:      "DEADLINE_EXCEEDED",
}

func (geminiDialect) writeError(w http.ResponseWriter, status int, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	name := geminiStatus[status]
	if name == "" {
		name = "UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q}}`, status, "llmtest: "+http.StatusText(status), name)
}

// Enum values of Candidate.FinishReason: STOP ends every scripted reply, tool calls
// included (Gemini has no separate "tool calls" reason).
const geminiFinishStop = 1

func (geminiDialect) writeReply(w http.ResponseWriter, r *http.Request, req Request, st Step, _ int, hold <-chan struct{}) {
	numeric := strings.Contains(r.URL.Query().Get("$alt"), "enum-encoding=int")
	var finish any = "STOP"
	if numeric {
		finish = geminiFinishStop
	}
	calls := []any{}
	for _, tc := range st.ToolCalls {
		// No id: this API version has none; clients correlate results by name.
		calls = append(calls, map[string]any{"functionCall": map[string]any{
			"name": tc.Name, "args": json.RawMessage(callArgs(tc)),
		}})
	}
	usage := map[string]int{
		"promptTokenCount":     st.Usage.InputTokens,
		"candidatesTokenCount": st.Usage.OutputTokens,
		"totalTokenCount":      st.Usage.InputTokens + st.Usage.OutputTokens,
	}
	response := func(parts []any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		u := usage
		if last {
			cand["finishReason"] = finish
		} else {
			// Like Gemini: chunks before the last report the prompt only.
			u = map[string]int{"promptTokenCount": st.Usage.InputTokens, "totalTokenCount": st.Usage.InputTokens}
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": u, "modelVersion": req.Model}
	}

	if !req.Stream {
		var parts []any
		if st.Text != "" {
			parts = append(parts, map[string]any{"text": st.Text})
		}
		writeJSON(w, response(append(parts, calls...), true))
		return
	}

	// One chunk per word of text, then the calls, all in the last chunk, as Gemini sends
	// parallel calls. A reply with no calls ends with its last word.
	var chunks [][]any
	for _, piece := range textChunks(st.Text) {
		chunks = append(chunks, []any{map[string]any{"text": piece}})
	}
	if len(calls) > 0 || len(chunks) == 0 {
		chunks = append(chunks, calls)
	}
	out := newGeminiStream(w, r.URL.Query().Get("alt") == "sse")
	for i, parts := range chunks {
		out.send(mustJSON(response(parts, i == len(chunks)-1)))
		if st.Stall && i == 0 {
			<-hold
			return
		}
	}
	out.end()
}

// geminiStream writes a stream of response objects either as one JSON array (the
// default, which the Go client reads element by element) or as Server-Sent Events.
type geminiStream struct {
	sse   bool
	w     http.ResponseWriter
	f     http.Flusher
	count int
}

func newGeminiStream(w http.ResponseWriter, sse bool) *geminiStream {
	ct := "application/json; charset=UTF-8"
	if sse {
		ct = "text/event-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &geminiStream{sse: sse, w: w, f: f}
}

func (s *geminiStream) send(obj string) {
	switch {
	case s.sse:
		fmt.Fprintf(s.w, "data: %s\r\n\r\n", obj)
	case s.count == 0:
		fmt.Fprintf(s.w, "[%s", obj)
	default:
		fmt.Fprintf(s.w, "\n,\r\n%s", obj) // the separator Google's servers use
	}
	s.count++
	s.flush()
}

func (s *geminiStream) end() {
	if s.sse {
		return
	}
	if s.count == 0 {
		fmt.Fprint(s.w, "[")
	}
	fmt.Fprint(s.w, "]")
	s.flush()
}

func (s *geminiStream) flush() {
	if s.f != nil {
		s.f.Flush()
	}
}
