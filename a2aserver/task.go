package a2aserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// messageKeyPrefix keeps A2A messageIds apart from the Idempotency-Keys of POST /v1/turns: both
// become turn idempotency keys of the same principal.
const messageKeyPrefix = "a2a:"

// Messages that describe a task's end in its status.
const (
	msgFailed   = "Sorry, I couldn't answer that. Please try again."
	msgCanceled = "The task was canceled."
)

// sendMessage answers message/send: it starts a turn for p and, unless configuration.blocking is
// false, waits for it to finish and returns the finished task.
func (s *Handler) sendMessage(ctx context.Context, p principal.Principal, raw json.RawMessage) (any, *rpcError) {
	var sp sendParams
	if e := decodeParams(raw, &sp); e != nil {
		return nil, e
	}
	var historyLength *int
	if sp.Configuration != nil {
		historyLength = sp.Configuration.HistoryLength
	}
	if e := checkHistoryLength(historyLength); e != nil {
		return nil, e
	}
	rec, e := s.startTurn(ctx, p, sp)
	if e != nil {
		return nil, e
	}
	if sp.Configuration != nil && sp.Configuration.Blocking != nil && !*sp.Configuration.Blocking {
		return taskFromTurn(rec).withHistory(historyLength), nil
	}
	for _, err := range s.cfg.Hub.Follow(ctx, rec.ID, 0) {
		if err != nil {
			if ctx.Err() == nil {
				s.log.ErrorContext(ctx, "a2a: following a turn", "turn_id", rec.ID, "err", err)
			}
			return nil, errInternal
		}
	}
	return s.loadTask(ctx, p, rec.ID, historyLength)
}

// startTurn checks message/send (and message/stream) params and starts the turn they ask for.
// A messageId already used by p returns the turn it started, without a second dispatch.
func (s *Handler) startTurn(ctx context.Context, p principal.Principal, sp sendParams) (orchestrator.TurnRecord, *rpcError) {
	req, e := s.startRequest(ctx, p, sp)
	if e != nil {
		return orchestrator.TurnRecord{}, e
	}
	rec, _, err := s.cfg.Service.Start(ctx, req)
	reportDelegation(ctx, rec.ID)
	switch {
	case err == nil:
		return rec, nil
	case errors.Is(err, orchestrator.ErrConflict):
		return rec, rpcErr(codeInvalidParams, "This messageId was already used with a different message.")
	case errors.Is(err, orchestrator.ErrRateLimited):
		return rec, rpcLimited(err)
	case errors.Is(err, orchestrator.ErrInvalidText):
		return rec, rpcErr(codeInvalidParams, "Text and ids must be valid UTF-8 without NUL bytes.")
	case errors.As(err, new(*orchestrator.InputError)):
		// In A2A's words: the episode is the contextId.
		return rec, rpcErr(codeInvalidParams, "The "+strings.Replace(err.Error(), "episode_id", "contextId", 1))
	case ctx.Err() != nil:
		return rec, errInternal // nobody is listening any more
	}
	s.log.ErrorContext(ctx, "a2a: starting a turn", "err", err)
	return rec, errInternal
}

// startRequest turns MessageSendParams into the turn to start, saying exactly what is wrong
// with them. Only text parts are understood; the principal is always the authenticated one.
func (s *Handler) startRequest(ctx context.Context, p principal.Principal, sp sendParams) (orchestrator.StartRequest, *rpcError) {
	var req orchestrator.StartRequest
	bad := func(msg string) (orchestrator.StartRequest, *rpcError) {
		return req, rpcErr(codeInvalidParams, msg)
	}
	m := sp.Message
	switch {
	case m == nil:
		return bad("params.message is required.")
	case m.MessageID == "":
		return bad("message.messageId is required.")
	case len(m.MessageID) > 180:
		return bad("message.messageId is longer than 180 characters.")
	case m.Role == "":
		return bad(`message.role is required: "user".`)
	case m.Role != "user":
		return bad(`message.role must be "user".`)
	case len(m.ContextID) > 128 || len(m.TaskID) > 128:
		return bad("message.contextId or message.taskId is too long.")
	}
	if cfg := sp.Configuration; cfg != nil && len(cfg.AcceptedOutputModes) > 0 && !acceptsText(cfg.AcceptedOutputModes) {
		return req, rpcErr(codeContentType, "This agent answers in text/plain only.")
	}
	var texts []string
	for _, part := range m.Parts {
		switch part.Kind {
		case "text":
			texts = append(texts, part.Text)
		case "file", "data":
			return req, rpcErr(codeContentType, "Only text parts are supported.")
		default:
			return bad(`Each message part needs a kind: "text".`)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	if err := orchestrator.CheckMessage(text); err != nil {
		return bad("The " + err.Error())
	}
	meta := func(key string) string { return metaString(key, sp.Metadata, m.Metadata) }
	// A caller may say whom it acts for (a hub forwarding its user); it must be the
	// authenticated principal, which is the only one a turn ever runs as.
	for _, md := range []map[string]any{sp.Metadata, m.Metadata} {
		if claimed, ok := md["principal"]; ok && claimed != string(p) {
			return bad("metadata.principal does not match the authenticated user.")
		}
	}
	req = orchestrator.StartRequest{
		Principal: p, EpisodeID: m.ContextID, Message: text,
		Locale: meta("locale"), Location: meta("location"),
		IdempotencyKey: messageKeyPrefix + m.MessageID,
	}
	if len(req.Locale) > 35 || len(req.Location) > 200 {
		return bad("metadata.locale or metadata.location is too long.")
	}
	if m.TaskID != "" {
		// A follow-up to an earlier task continues that task's conversation in a new task.
		prev, err := s.cfg.Service.Turn(ctx, p, m.TaskID)
		switch {
		case errors.Is(err, orchestrator.ErrNotFound):
			return req, errTaskNotFound
		case err != nil:
			s.log.ErrorContext(ctx, "a2a: reading a task", "err", err)
			return req, errInternal
		case m.ContextID != "" && m.ContextID != prev.EpisodeID:
			return bad("message.taskId belongs to another contextId.")
		}
		req.EpisodeID = prev.EpisodeID
	}
	return req, nil
}

// metaString reads a string value from the first metadata map that has it.
func metaString(key string, maps ...map[string]any) string {
	for _, m := range maps {
		if v, ok := m[key].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func acceptsText(modes []string) bool {
	for _, m := range modes {
		switch strings.ToLower(strings.TrimSpace(m)) {
		case "text/plain", "text/*", "*/*", "text":
			return true
		}
	}
	return false
}

// getTask answers tasks/get. Another principal's task is not found, like an unknown one.
func (s *Handler) getTask(ctx context.Context, p principal.Principal, raw json.RawMessage) (any, *rpcError) {
	q, e := taskQuery(raw)
	if e != nil {
		return nil, e
	}
	return s.loadTask(ctx, p, q.ID, q.HistoryLength)
}

// loadTask returns p's task id with at most historyLength messages of history; nil means all.
func (s *Handler) loadTask(ctx context.Context, p principal.Principal, id string, historyLength *int) (any, *rpcError) {
	rec, err := s.cfg.Service.Turn(ctx, p, id)
	if err != nil {
		return nil, s.taskErr(ctx, err)
	}
	return taskFromTurn(rec).withHistory(historyLength), nil
}

// cancelTask answers tasks/cancel: it cancels p's running turn, waits for it to stop and
// returns the canceled task. A task that already finished is not cancelable.
func (s *Handler) cancelTask(ctx context.Context, p principal.Principal, raw json.RawMessage) (any, *rpcError) {
	q, e := taskQuery(raw)
	if e != nil {
		return nil, e
	}
	id := q.ID
	rec, err := s.cfg.Service.Turn(ctx, p, id)
	if err != nil {
		return nil, s.taskErr(ctx, err)
	}
	if rec.State == orchestrator.TurnCompleted {
		return nil, rpcErr(codeTaskNotCancelable, "The task has already finished and cannot be canceled.")
	}
	if err := s.cfg.Service.Cancel(ctx, p, id); errors.Is(err, orchestrator.ErrTurnFinished) {
		return nil, rpcErr(codeTaskNotCancelable, "The task has already finished and cannot be canceled.")
	} else if err != nil {
		return nil, s.taskErr(ctx, err)
	}
	if rec, err = s.cfg.Service.Turn(ctx, p, id); err != nil {
		return nil, s.taskErr(ctx, err)
	}
	switch {
	case rec.State != orchestrator.TurnCompleted:
		// Running on another replica: Cancel reaches only this process's turns.
		return nil, rpcErr(codeTaskNotCancelable, "The task cannot be canceled right now. Please try again.")
	case rec.Outcome != stream.OutcomeCancelled:
		return nil, rpcErr(codeTaskNotCancelable, "The task has already finished and cannot be canceled.")
	}
	return taskFromTurn(rec), nil
}

func (s *Handler) taskErr(ctx context.Context, err error) *rpcError {
	if errors.Is(err, orchestrator.ErrNotFound) {
		return errTaskNotFound
	}
	if ctx.Err() == nil {
		s.log.ErrorContext(ctx, "a2a: reading a task", "err", err)
	}
	return errInternal
}

// taskFromTurn is the A2A view of a stored turn. The reply is the task's one artifact; the
// turn's outcome (ok, degraded, failed, cancelled) rides along in metadata.outcome, so a caller
// can tell a degraded answer from a clean one. The history is the task's messages: the user's,
// and the reply once there is one.
func taskFromTurn(rec orchestrator.TurnRecord) taskObject {
	t := taskObject{ID: rec.ID, ContextID: rec.EpisodeID, Kind: "task"}
	userID, ok := strings.CutPrefix(rec.IdempotencyKey, messageKeyPrefix)
	if !ok {
		userID = rec.ID + "-user" // started by another API: no A2A messageId
	}
	t.History = []message{{Kind: "message", MessageID: userID, Role: "user", Parts: []part{{Kind: "text", Text: rec.Message}},
		ContextID: rec.EpisodeID, TaskID: rec.ID}}
	if rec.State == orchestrator.TurnCompleted && rec.Reply != "" {
		t.History = append(t.History, message{Kind: "message", MessageID: rec.ID + "-reply", Role: "agent",
			Parts: []part{{Kind: "text", Text: rec.Reply}}, ContextID: rec.EpisodeID, TaskID: rec.ID})
	}
	ts := rec.Created
	if !rec.Completed.IsZero() {
		ts = rec.Completed
	}
	t.Status = taskStatus{State: stateWorking, Timestamp: &ts}
	if rec.State == orchestrator.TurnCompleted {
		t.Status.State, t.Status.Message = endState(rec.ID, rec.Outcome, rec.Reply)
		t.Metadata = map[string]any{"outcome": string(rec.Outcome)}
	}
	if rec.Reply != "" {
		t.Artifacts = []artifact{{ArtifactID: replyArtifactID, Name: "reply", Parts: []part{{Kind: "text", Text: rec.Reply}}}}
	}
	return t
}

// withHistory keeps the n most recent messages of the task's history; nil keeps them all and
// 0 none.
func (t taskObject) withHistory(n *int) taskObject {
	if n != nil && *n < len(t.History) {
		t.History = t.History[len(t.History)-max(*n, 0):]
	}
	return t
}

// endState maps a turn's outcome to the task's final state and the status message that
// explains a failed or canceled one. failure is what the user was already told, if anything.
func endState(taskID string, outcome stream.Outcome, failure string) (string, *message) {
	switch outcome {
	case stream.OutcomeFailed:
		if failure == "" {
			failure = msgFailed
		}
		return stateFailed, agentText(taskID+"-status", failure)
	case stream.OutcomeCancelled:
		return stateCanceled, agentText(taskID+"-status", msgCanceled)
	}
	return stateCompleted, nil
}
