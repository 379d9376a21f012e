package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// openAIDialect speaks the OpenAI chat-completions wire format.
type openAIDialect struct{}

func (openAIDialect) base() string    { return "/v1" }
func (openAIDialect) paths() []string { return []string{"/chat/completions", "/v1/chat/completions"} }

type oaRequest struct {
	Model         string      `json:"model"`
	Stream        bool        `json:"stream"`
	Messages      []oaMessage `json:"messages"`
	Tools         []oaTool    `json:"tools"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // string, null or an array of parts
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

func (openAIDialect) decode(body []byte, r *http.Request) (Request, error) {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	req := Request{
		Model:  in.Model,
		Stream: in.Stream,
		APIKey: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
	}
	for _, m := range in.Messages {
		text, err := oaText(m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("message %d content: %w", len(req.Messages), err)
		}
		msg := Message{Role: m.Role, Text: text}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		if m.Role == "tool" {
			msg.ToolResults = []ToolResult{{CallID: m.ToolCallID, Content: text}}
			msg.Text = ""
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return req, nil
}

// oaText reads message content given as a string, null, or an array of text parts.
func oaText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func (openAIDialect) writeError(w http.ResponseWriter, status int, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"llmtest_error","code":%q}}`, http.StatusText(status), strconv.Itoa(status))
}

func (d openAIDialect) writeReply(w http.ResponseWriter, _ *http.Request, req Request, st Step, n int, hold <-chan struct{}) {
	calls := make([]oaToolCall, len(st.ToolCalls))
	for i, tc := range st.ToolCalls {
		calls[i].ID = callID(tc, "call_", n, i)
		calls[i].Type = "function"
		calls[i].Function.Name = tc.Name
		calls[i].Function.Arguments = callArgs(tc)
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]int{
		"prompt_tokens":     st.Usage.InputTokens,
		"completion_tokens": st.Usage.OutputTokens,
		"total_tokens":      st.Usage.InputTokens + st.Usage.OutputTokens,
	}
	id := "chatcmpl-" + strconv.Itoa(n)
	if !req.Stream {
		var content any // null when the reply is tool calls only, as OpenAI sends it
		if st.Text != "" {
			content = st.Text
		}
		msg := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}

	var in oaRequest
	_ = json.Unmarshal(req.Body, &in) // decoded once already; only stream_options is needed
	out := newSSE(w)
	chunk := func(delta map[string]any, finishReason any) {
		out.send("", mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}},
		}))
	}
	// Like OpenAI: a role-only first delta with empty content, then the content deltas.
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for i, piece := range textChunks(st.Text) {
		chunk(map[string]any{"content": piece}, nil)
		if st.Stall && i == 0 {
			<-hold
			return
		}
	}
	for i, c := range calls {
		// Each call is streamed whole before the next, as OpenAI does: a header delta with
		// id, type and name, then argument fragments carrying only the index.
		head := oaToolCall{Index: &i, ID: c.ID, Type: c.Type}
		head.Function.Name = c.Function.Name
		chunk(map[string]any{"tool_calls": []oaToolCall{head}}, nil)
		for _, frag := range argChunks(c.Function.Arguments) {
			part := oaToolCall{Index: &i}
			part.Function.Arguments = frag
			chunk(map[string]any{"tool_calls": []oaToolCall{part}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if in.StreamOptions != nil && in.StreamOptions.IncludeUsage {
		out.send("", mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{}, "usage": usage,
		}))
	}
	out.send("", "[DONE]")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(mustJSON(v)))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal %T: %v", v, err)) // only our own literal values are marshalled
	}
	return string(b)
}
