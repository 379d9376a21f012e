package agui

import "encoding/json"

// This file holds the AG-UI 1.0 wire shapes that POST /agui speaks, as @ag-ui/core 1.0.0
// defines them (its zod schemas in dist/schemas.mjs): the RunAgentInput body and the events
// written back, one JSON object per SSE data line, field names in camelCase, the event kind in
// "type". Only the fields switchboard reads or writes are declared; AG-UI objects are open, so
// decoding ignores the rest.

// runAgentInput is RunAgentInput, the body of POST /agui.
type runAgentInput struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ProtocolVersion string          `json:"protocolVersion"`
	ParentRunID     string          `json:"parentRunId"`
	State           json.RawMessage `json:"state"`
	Messages        []inputMessage  `json:"messages"`
	Tools           json.RawMessage `json:"tools"`
	Context         json.RawMessage `json:"context"`
	ForwardedProps  json.RawMessage `json:"forwardedProps"`
}

// inputMessage is one Message of RunAgentInput. Content is a string, or for user messages an
// array of content parts; only text parts are understood.
type inputMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentPart is one content part of a user message (type text, image, audio, video, document).
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// forwardedProps is what switchboard reads of RunAgentInput's forwardedProps: the turn's
// locale and location, as POST /v1/turns takes them.
type forwardedProps struct {
	Locale   string `json:"locale"`
	Location string `json:"location"`
}

// AG-UI event types written by POST /agui.
const (
	eventRunStarted         = "RUN_STARTED"
	eventRunFinished        = "RUN_FINISHED"
	eventRunError           = "RUN_ERROR"
	eventStepStarted        = "STEP_STARTED"
	eventStepFinished       = "STEP_FINISHED"
	eventTextMessageStart   = "TEXT_MESSAGE_START"
	eventTextMessageContent = "TEXT_MESSAGE_CONTENT"
	eventTextMessageEnd     = "TEXT_MESSAGE_END"
	eventActivitySnapshot   = "ACTIVITY_SNAPSHOT"
)

// statusActivity is the activityType of the status lines a run shows while it works.
const statusActivity = "status"

// runStartedEvent opens every run. Metadata carries the turn and episode ids, so a client
// can reach the turn through /v1/turns (to cancel it, or read its routing record).
type runStartedEvent struct {
	Type     string         `json:"type"`
	ThreadID string         `json:"threadId"`
	RunID    string         `json:"runId"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// runFinishedEvent ends a run that answered (outcome success, result.outcome "ok" or
// "degraded") or was cancelled (outcome cancelled).
type runFinishedEvent struct {
	Type     string         `json:"type"`
	ThreadID string         `json:"threadId"`
	RunID    string         `json:"runId"`
	Result   map[string]any `json:"result,omitempty"`
	Outcome  runOutcome     `json:"outcome"`
}

type runOutcome struct {
	Type string `json:"type"` // "success" or "cancelled"
}

// runErrorEvent ends a run that failed. Message is plain words for the user; code is a
// stable machine-readable reason.
type runErrorEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// stepEvent is STEP_STARTED or STEP_FINISHED: one sub-agent invocation, named by its id.
type stepEvent struct {
	Type     string `json:"type"`
	StepName string `json:"stepName"`
}

// textStartEvent opens the assistant's reply message.
type textStartEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
}

// textContentEvent is a piece of the reply; Delta is never empty.
type textContentEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// textEndEvent closes the reply message.
type textEndEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
}

// activityEvent is ACTIVITY_SNAPSHOT: the run's current status line, replacing the one
// before (one activity message per run).
type activityEvent struct {
	Type         string     `json:"type"`
	MessageID    string     `json:"messageId"`
	ActivityType string     `json:"activityType"`
	Content      statusLine `json:"content"`
	Replace      bool       `json:"replace"`
}

// statusLine is the content of a status activity: the rendered line and the sub-agents and
// typed events it stands for (as the status event of /v1/turns, in camelCase).
type statusLine struct {
	Text    string         `json:"text"`
	Sources []statusSource `json:"sources"`
}

type statusSource struct {
	AgentID string `json:"agentId"`
	Event   string `json:"event"`
}
