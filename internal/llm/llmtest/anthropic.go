package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// anthropicDialect speaks the Anthropic messages wire format.
type anthropicDialect struct{}

func (anthropicDialect) base() string    { return "/v1" }
func (anthropicDialect) paths() []string { return []string{"/v1/messages", "/messages"} }

type anRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or an array of blocks
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result: a string or text blocks
}

func (anthropicDialect) decode(body []byte, r *http.Request) (Request, error) {
	var in anRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Request{}, err
	}
	system, err := anText(in.System)
	if err != nil {
		return Request{}, fmt.Errorf("system: %w", err)
	}
	req := Request{Model: in.Model, Stream: in.Stream, System: system, APIKey: r.Header.Get("X-Api-Key")}
	for i, m := range in.Messages {
		msg := Message{Role: m.Role}
		blocks, err := anBlocks(m.Content)
		if err != nil {
			return Request{}, fmt.Errorf("message %d: %w", i, err)
		}
		var text strings.Builder
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
			case "tool_result":
				content, err := anText(b.Content)
				if err != nil {
					return Request{}, fmt.Errorf("message %d tool_result: %w", i, err)
				}
				msg.ToolResults = append(msg.ToolResults, ToolResult{CallID: b.ToolUseID, Content: content})
			default:
				return Request{}, fmt.Errorf("message %d: unsupported block type %q", i, b.Type)
			}
		}
		msg.Text = text.String()
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return req, nil
}

// anBlocks reads content given as a plain string or as an array of blocks.
func anBlocks(raw json.RawMessage) ([]anBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []anBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

func anText(raw json.RawMessage) (string, error) {
	blocks, err := anBlocks(raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String(), nil
}

func (anthropicDialect) writeError(w http.ResponseWriter, status int, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":"llmtest_error","message":%q}}`, http.StatusText(status))
}

func (anthropicDialect) writeReply(w http.ResponseWriter, _ *http.Request, req Request, st Step, n int, hold <-chan struct{}) {
	id := "msg_" + strconv.Itoa(n)
	stop := "end_turn"
	if len(st.ToolCalls) > 0 {
		stop = "tool_use"
	}
	if !req.Stream {
		var content []any
		if st.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": st.Text})
		}
		for i, tc := range st.ToolCalls {
			content = append(content, map[string]any{
				"type": "tool_use", "id": callID(tc, "toolu_", n, i), "name": tc.Name,
				"input": json.RawMessage(callArgs(tc)),
			})
		}
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": st.Usage.InputTokens, "output_tokens": st.Usage.OutputTokens},
		})
		return
	}

	out := newSSE(w)
	event := func(v map[string]any) { out.send(v["type"].(string), mustJSON(v)) }
	event(map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": st.Usage.InputTokens, "output_tokens": 1},
	}})
	index := 0
	if st.Text != "" {
		event(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event(map[string]any{"type": "ping"})
		for i, piece := range textChunks(st.Text) {
			event(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": piece}})
			if st.Stall && i == 0 {
				<-hold
				return
			}
		}
		event(map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for i, tc := range st.ToolCalls {
		event(map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{
			"type": "tool_use", "id": callID(tc, "toolu_", n, i), "name": tc.Name, "input": map[string]any{},
		}})
		for _, frag := range argChunks(callArgs(tc)) {
			event(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": frag}})
		}
		event(map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	event(map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": st.Usage.OutputTokens}})
	event(map[string]any{"type": "message_stop"})
}
