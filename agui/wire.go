package agui

import "encoding/json"

// This file holds the AG-UI 1.0 wire shapes that POST /agui speaks, as @ag-ui/core 1.0.0
// defines them (its zod schemas in dist/schemas.mjs): the RunAgentInput body and the events
// written back, one JSON object per SSE data line, field names in camelCase, the event kind in
// "type". Only the fields switchboard reads or writes are declared; AG-UI objects are open, so
// decoding ignores the rest.

// aguiInput is RunAgentInput, the body of POST /agui.
type aguiInput struct {
	ThreadID        string          `json:"threadId"`
	RunID           string          `json:"runId"`
	ProtocolVersion string          `json:"protocolVersion"`
	ParentRunID     string          `json:"parentRunId"`
	State           json.RawMessage `json:"state"`
	Messages        []aguiMessage   `json:"messages"`
	Tools           json.RawMessage `json:"tools"`
	Context         json.RawMessage `json:"context"`
	ForwardedProps  json.RawMessage `json:"forwardedProps"`
}

// aguiMessage is one Message of RunAgentInput. Content is a string, or for user messages an
// array of content parts; only text parts are understood.
type aguiMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// aguiPart is one content part of a user message (type text, image, audio, video, document).
type aguiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// aguiForwarded are the forwardedProps switchboard reads: the turn's locale and location, as
// POST /v1/turns takes them.
type aguiForwarded struct {
	Locale   string `json:"locale"`
	Location string `json:"location"`
}

// AG-UI event types written by POST /agui.
const (
	aguiRunStarted         = "RUN_STARTED"
	aguiRunFinished        = "RUN_FINISHED"
	aguiRunError           = "RUN_ERROR"
	aguiStepStarted        = "STEP_STARTED"
	aguiStepFinished       = "STEP_FINISHED"
	aguiTextMessageStart   = "TEXT_MESSAGE_START"
	aguiTextMessageContent = "TEXT_MESSAGE_CONTENT"
	aguiTextMessageEnd     = "TEXT_MESSAGE_END"
	aguiActivitySnapshot   = "ACTIVITY_SNAPSHOT"
)

// aguiStatusActivity is the activityType of the status lines a run shows while it works.
const aguiStatusActivity = "status"

// aguiRunStartedEvent opens every run. Metadata carries the turn and episode ids, so a client
// can reach the turn through /v1/turns (to cancel it, or read its routing record).
type aguiRunStartedEvent struct {
	Type     string         `json:"type"`
	ThreadID string         `json:"threadId"`
	RunID    string         `json:"runId"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// aguiRunFinishedEvent ends a run that answered (outcome success, result.outcome "ok" or
// "degraded") or was cancelled (outcome cancelled).
type aguiRunFinishedEvent struct {
	Type     string         `json:"type"`
	ThreadID string         `json:"threadId"`
	RunID    string         `json:"runId"`
	Result   map[string]any `json:"result,omitempty"`
	Outcome  aguiOutcome    `json:"outcome"`
}

type aguiOutcome struct {
	Type string `json:"type"` // "success" or "cancelled"
}

// aguiRunErrorEvent ends a run that failed. Message is plain words for the user; code is a
// stable machine-readable reason.
type aguiRunErrorEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// aguiStepEvent is STEP_STARTED or STEP_FINISHED: one sub-agent invocation, named by its id.
type aguiStepEvent struct {
	Type     string `json:"type"`
	StepName string `json:"stepName"`
}

// aguiTextStartEvent opens the assistant's reply message.
type aguiTextStartEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
}

// aguiTextContentEvent is a piece of the reply; Delta is never empty.
type aguiTextContentEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// aguiTextEndEvent closes the reply message.
type aguiTextEndEvent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
}

// aguiActivityEvent is ACTIVITY_SNAPSHOT: the run's current status line, replacing the one
// before (one activity message per run).
type aguiActivityEvent struct {
	Type         string         `json:"type"`
	MessageID    string         `json:"messageId"`
	ActivityType string         `json:"activityType"`
	Content      aguiStatusLine `json:"content"`
	Replace      bool           `json:"replace"`
}

// aguiStatusLine is the content of a status activity: the rendered line and the sub-agents and
// typed events it stands for (as the status event of /v1/turns, in camelCase).
type aguiStatusLine struct {
	Text    string       `json:"text"`
	Sources []aguiSource `json:"sources"`
}

type aguiSource struct {
	AgentID string `json:"agentId"`
	Event   string `json:"event"`
}
