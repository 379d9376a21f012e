package a2aserver

import (
	"encoding/json"
	"time"
)

// This file holds the A2A v0.3 wire shapes that /a2a speaks: the JSON-RPC 2.0 envelope, the
// Task, Message, Part and Artifact objects and the two streaming update events. They mirror
// the protocol's JSON names exactly; only the fields switchboard reads or writes are declared
// (decoding ignores the rest, as the protocol asks of receivers).

// A2A protocol constants.
const (
	protocolVersion = "0.3.0"
	transport       = "JSONRPC"
	textMode        = "text/plain"
	replyArtifactID = "reply" // the artifactId of a turn's composed reply
)

// rpcRequest is a decoded JSON-RPC 2.0 request. ID is the raw id (a string or a number), echoed
// back verbatim in the response.
type rpcRequest struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage // an object, or nil when absent
}

// rpcResponse is a JSON-RPC 2.0 response: exactly one of Result and Error is set. A
// response to a request whose id could not be read carries "id": null.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object. Message is the protocol's default text for the code
// ("Task not found"), which clients match on; Data says exactly what was wrong, in words written
// for the caller. Neither ever carries internal error text.
type rpcError struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *errorData `json:"data,omitempty"`
}

// errorData is the data member of switchboard's JSON-RPC errors: a detail in words, or the
// REST API's error code (e.g. rate_limited) with when to retry.
type errorData struct {
	Detail     string `json:"detail,omitempty"`
	Code       string `json:"code,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"` // seconds, also sent as Retry-After
}

// JSON-RPC 2.0 and A2A error codes.
const (
	codeParse             = -32700
	codeInvalidRequest    = -32600
	codeMethodNotFound    = -32601
	codeInvalidParams     = -32602
	codeInternal          = -32603
	codeTaskNotFound      = -32001
	codeTaskNotCancelable = -32002
	codePushNotSupported  = -32003
	codeUnsupported       = -32004
	codeContentType       = -32005
	codeNoExtendedCard    = -32007
	// codeRateLimited is switchboard's own server error (JSON-RPC reserves -32000 to -32099
	// for them; A2A uses -32001 to -32007): the caller is over a limit, data says which
	// and when to retry.
	codeRateLimited = -32029
)

// errorTexts are the default messages the A2A v0.3 specification gives each error code.
var errorTexts = map[int]string{
	codeParse:             "Invalid JSON payload",
	codeInvalidRequest:    "Request payload validation error",
	codeMethodNotFound:    "Method not found",
	codeInvalidParams:     "Invalid parameters",
	codeInternal:          "Internal error",
	codeTaskNotFound:      "Task not found",
	codeTaskNotCancelable: "Task cannot be canceled",
	codePushNotSupported:  "Push Notification is not supported",
	codeUnsupported:       "This operation is not supported",
	codeContentType:       "Incompatible content types",
	codeNoExtendedCard:    "Authenticated Extended Card is not configured",
}

// rpcErr is the error with code, its specification text as message and detail as data. A code
// the specification gives no text (switchboard's own server errors) carries detail as its
// message too.
func rpcErr(code int, detail string) *rpcError {
	msg, ok := errorTexts[code]
	if !ok {
		msg = detail
	}
	e := &rpcError{Code: code, Message: msg}
	if detail != "" {
		e.Data = &errorData{Detail: detail}
	}
	return e
}

// errInternal is the only thing a caller learns about a failure on our side.
var errInternal = rpcErr(codeInternal, "Something went wrong on our side. Please try again.")

var errTaskNotFound = rpcErr(codeTaskNotFound, "No task with this id belongs to you.")

// Task states of A2A v0.3 that switchboard reports (a turn is never submitted-but-idle, and
// never asks for more input).
const (
	stateWorking   = "working"
	stateCompleted = "completed"
	stateFailed    = "failed"
	stateCanceled  = "canceled"
)

// taskObject is the A2A Task object; its id is the turn id and its contextId the episode id.
type taskObject struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    taskStatus     `json:"status"`
	Artifacts []artifact     `json:"artifacts,omitempty"`
	History   []message      `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Kind      string         `json:"kind"` // "task"
}

// taskStatus is the A2A TaskStatus object.
type taskStatus struct {
	State     string     `json:"state"`
	Message   *message   `json:"message,omitempty"`
	Timestamp *time.Time `json:"timestamp,omitempty"`
}

// message is the A2A Message object.
type message struct {
	Kind      string         `json:"kind"` // "message"
	MessageID string         `json:"messageId"`
	Role      string         `json:"role"` // "user" or "agent"
	Parts     []part         `json:"parts"`
	ContextID string         `json:"contextId,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// part is one A2A Part. Only text parts are produced; others are recognised by their kind
// so that they can be refused by name.
type part struct {
	Kind string `json:"kind"` // "text", "file" or "data"
	Text string `json:"text"`
}

// artifact is the A2A Artifact object.
type artifact struct {
	ArtifactID string `json:"artifactId"`
	Name       string `json:"name,omitempty"`
	Parts      []part `json:"parts"`
}

// statusUpdate is the A2A TaskStatusUpdateEvent of message/stream.
type statusUpdate struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Status    taskStatus `json:"status"`
	Final     bool       `json:"final"`
	Kind      string     `json:"kind"` // "status-update"
}

// artifactUpdate is the A2A TaskArtifactUpdateEvent of message/stream.
type artifactUpdate struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  artifact `json:"artifact"`
	Append    bool     `json:"append,omitempty"`
	LastChunk bool     `json:"lastChunk,omitempty"`
	Kind      string   `json:"kind"` // "artifact-update"
}

// sendParams are the params of message/send and message/stream (MessageSendParams).
type sendParams struct {
	Message       *message       `json:"message"`
	Configuration *sendConfig    `json:"configuration"`
	Metadata      map[string]any `json:"metadata"`
}

// sendConfig is MessageSendConfiguration.
type sendConfig struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes"`
	Blocking            *bool    `json:"blocking"`
	HistoryLength       *int     `json:"historyLength"`
}

// taskIDParams are the params of tasks/get (TaskQueryParams), tasks/cancel and
// tasks/resubscribe (TaskIdParams).
type taskIDParams struct {
	ID            string         `json:"id"`
	HistoryLength *int           `json:"historyLength"`
	Metadata      map[string]any `json:"metadata"`
}

func agentText(id, text string) *message {
	return &message{Kind: "message", MessageID: id, Role: "agent", Parts: []part{{Kind: "text", Text: text}}}
}
