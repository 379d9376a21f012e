package llmtest

import (
	"fmt"
	"net/http"
	"strconv"
)

// geminiDialect speaks Gemini's OpenAI-compatible chat-completions endpoint
// (POST /v1beta/openai/chat/completions, the key as a bearer token), with the ways it
// differs from OpenAI's own:
//
//   - tool calls come without an id and, when streamed, whole (name and arguments
//     together, no index), all of them in one chunk;
//   - the finish reason is "stop" for tool calls too;
//   - usage travels in the last chunk of a stream, whether or not stream_options asked;
//   - errors are a JSON array holding one Google error object.
//
// Gemini itself correlates calls and results by function name: its OpenAI layer uses a
// tool message's tool_call_id only to find, among the assistant tool calls of the same
// request, the name of the function the result answers. The fake does the same and
// rejects a result whose id names no such call (Gemini answers 400 "function_response.name:
// Name cannot be empty"). It records what Gemini's model is given: calls and results by
// name, without ids.
type geminiDialect struct{}

// geminiPath is where Gemini serves the OpenAI API. The fake's URL is the server root, as
// a googleai base_url names the root of the Gemini API or of a proxy in front of it.
const geminiPath = "/v1beta/openai/chat/completions"

func (geminiDialect) base() string    { return "" }
func (geminiDialect) paths() []string { return []string{geminiPath} }

func (geminiDialect) decode(body []byte, r *http.Request) (Request, error) {
	req, err := openAIDialect{}.decode(body, r)
	if err != nil {
		return Request{}, err
	}
	names := map[string]string{} // call id -> function name, from the assistant messages
	for i, m := range req.Messages {
		for j, tc := range m.ToolCalls {
			if tc.ID != "" {
				names[tc.ID] = tc.Name
			}
			req.Messages[i].ToolCalls[j].ID = ""
		}
		for j, tr := range m.ToolResults {
			name, ok := names[tr.CallID]
			if !ok {
				return Request{}, fmt.Errorf("message %d: tool_call_id %q names no earlier tool call: function_response.name: Name cannot be empty", i, tr.CallID)
			}
			req.Messages[i].ToolResults[j] = ToolResult{Name: name, Content: tr.Content}
		}
	}
	return req, nil
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
	fmt.Fprintf(w, `[{"error":{"code":%d,"message":%q,"status":%q}}]`, status, "llmtest: "+http.StatusText(status), name)
}

func (geminiDialect) writeReply(w http.ResponseWriter, _ *http.Request, req Request, st Step, n int, hold <-chan struct{}) {
	calls := make([]oaToolCall, len(st.ToolCalls))
	for i, tc := range st.ToolCalls {
		// No id, whatever the script says: Gemini sends none.
		calls[i].Type = "function"
		calls[i].Function.Name = tc.Name
		calls[i].Function.Arguments = callArgs(tc)
	}
	usage := map[string]int{
		"prompt_tokens":     st.Usage.InputTokens,
		"completion_tokens": st.Usage.OutputTokens,
		"total_tokens":      st.Usage.InputTokens + st.Usage.OutputTokens,
	}
	id := "gemini-" + strconv.Itoa(n)
	if !req.Stream {
		var content any
		if st.Text != "" {
			content = st.Text
		}
		msg := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
			"usage":   usage,
		})
		return
	}

	// One chunk per word of text, then one chunk with every call; the last chunk carries
	// the finish reason and the usage.
	var deltas []map[string]any
	for _, piece := range textChunks(st.Text) {
		deltas = append(deltas, map[string]any{"role": "assistant", "content": piece})
	}
	if len(calls) > 0 || len(deltas) == 0 {
		d := map[string]any{"role": "assistant"}
		if len(calls) > 0 {
			d["tool_calls"] = calls
		}
		deltas = append(deltas, d)
	}
	out := newSSE(w)
	for i, d := range deltas {
		choice := map[string]any{"index": 0, "delta": d}
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model}
		if i == len(deltas)-1 {
			choice["finish_reason"] = "stop"
			chunk["usage"] = usage
		}
		chunk["choices"] = []any{choice}
		out.send("", mustJSON(chunk))
		if st.Stall && i == 0 {
			<-hold
			return
		}
	}
	out.send("", "[DONE]")
}
