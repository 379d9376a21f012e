package llmtest

import "strings"

// Request is a chat request as the fake server decoded it, in a provider-neutral shape.
type Request struct {
	Path  string // URL path the client posted to
	Model string // the model the client asked for
	// Stream is whether the client asked for a streamed reply.
	Stream bool
	// System is Anthropic's top-level system prompt; OpenAI and Gemini system messages
	// stay in Messages.
	System   string
	Messages []Message // in wire order
	Tools    []Tool    // tool definitions sent with the request
	// APIKey is the credential the client presented: bearer token or x-api-key.
	APIKey string
	Body   []byte // the raw request body
}

// Message is one decoded chat message. Role is the wire role ("system", "user",
// "assistant", "tool" for OpenAI and Gemini; "user", "assistant" for Anthropic, where
// tool results travel in user messages).
type Message struct {
	Role        string
	Text        string // text parts joined without separator
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// ToolCall is a tool invocation, either requested by a [Step] or found in a request's
// assistant message. Arguments is JSON text. Gemini's replies carry no call ids, and its
// requests' calls are recorded with an empty ID (Gemini's model never sees one).
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// ToolResult is a tool result sent back by the client. OpenAI and Anthropic identify
// the call by CallID and send no Name. Gemini identifies it by the function's Name: its
// OpenAI layer looks the name up from the tool_call_id among the request's calls, and the
// fake records that Name with an empty CallID.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
}

// Tool is a tool definition sent by the client.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// LastUserText returns the text of the last user message that carries text (tool-result
// messages do not count), or "".
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "user" && m.Text != "" {
			return m.Text
		}
	}
	return ""
}

// Matcher decides whether a [Step] answers a request.
type Matcher func(Request) bool

// Any matches every request.
func Any() Matcher { return func(Request) bool { return true } }

// HasTool matches requests that offer a tool with this name.
func HasTool(name string) Matcher {
	return func(r Request) bool {
		for _, t := range r.Tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
}

// LastUserContains matches requests whose last user text contains sub (case-insensitive).
func LastUserContains(sub string) Matcher {
	sub = strings.ToLower(sub)
	return func(r Request) bool { return strings.Contains(strings.ToLower(r.LastUserText()), sub) }
}

// HasToolResult matches requests that carry a result for the tool call with this id.
func HasToolResult(callID string) Matcher {
	return func(r Request) bool {
		for _, m := range r.Messages {
			for _, tr := range m.ToolResults {
				if tr.CallID == callID {
					return true
				}
			}
		}
		return false
	}
}

// HasToolResultNamed matches requests that carry a result for a call of the function
// name, for protocols that correlate results by name (Gemini).
func HasToolResultNamed(name string) Matcher {
	return func(r Request) bool {
		for _, m := range r.Messages {
			for _, tr := range m.ToolResults {
				if tr.Name == name {
					return true
				}
			}
		}
		return false
	}
}

// Streaming matches requests that ask for a streamed reply.
func Streaming() Matcher { return func(r Request) bool { return r.Stream } }

// And matches requests that every matcher accepts.
func And(ms ...Matcher) Matcher {
	return func(r Request) bool {
		for _, m := range ms {
			if m != nil && !m(r) {
				return false
			}
		}
		return true
	}
}

// Not matches requests that m rejects.
func Not(m Matcher) Matcher { return func(r Request) bool { return !m(r) } }
