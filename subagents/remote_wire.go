package subagents

import (
	"encoding/json"
	"strings"
)

// The A2A v0.3 JSON-RPC shapes a [Remote] sends and reads: only the fields it uses. Decoding
// ignores the rest, so an agent that adds fields (history, extensions) is still understood.

type rpcCall struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type a2aSendParams struct {
	Message       a2aMessage    `json:"message"`
	Configuration a2aSendConfig `json:"configuration"`
}

type a2aSendConfig struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes"`
	Blocking            bool     `json:"blocking"`
}

type a2aMessage struct {
	Kind      string    `json:"kind"`
	MessageID string    `json:"messageId"`
	Role      string    `json:"role"`
	Parts     []a2aPart `json:"parts"`
	ContextID string    `json:"contextId,omitempty"`
	// Metadata carries the inherited context; on the message, where servers built on the
	// reference SDK hand it to their agent.
	Metadata map[string]any `json:"metadata,omitempty"`
}

type a2aPart struct {
	Kind string `json:"kind"`
	Text string `json:"text,omitempty"`
}

// a2aResult is a message/send or tasks/get result: a Task, or (message/send only) a Message.
type a2aResult struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Status struct {
		State   string      `json:"state"`
		Message *a2aMessage `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		Parts []a2aPart `json:"parts"`
	} `json:"artifacts"`
	Metadata map[string]any `json:"metadata"`
	Parts    []a2aPart      `json:"parts"` // when Kind is "message"
}

// text is the answer a result carries: a message's text parts, else the task's artifacts'
// text parts, else its status message's.
func (r *a2aResult) text() string {
	if r.Kind == "message" {
		return joinText(r.Parts)
	}
	var parts []a2aPart
	for _, a := range r.Artifacts {
		parts = append(parts, a.Parts...)
	}
	if t := joinText(parts); t != "" {
		return t
	}
	if r.Status.Message != nil {
		return joinText(r.Status.Message.Parts)
	}
	return ""
}

func joinText(parts []a2aPart) string {
	var texts []string
	for _, p := range parts {
		if p.Kind == "text" && strings.TrimSpace(p.Text) != "" {
			texts = append(texts, strings.TrimSpace(p.Text))
		}
	}
	return strings.Join(texts, "\n")
}
