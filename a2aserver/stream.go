package a2aserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// streamMessage answers message/stream: it starts the turn like message/send and streams it as
// Server-Sent Events, each data line one JSON-RPC response: first the task (working), then a
// status update per status line, artifact updates for the reply as it is composed, and a final
// status update (final: true) when the turn is over. Errors after the request was understood
// are sent as a JSON-RPC error in the stream, which streaming clients read.
func (s *Handler) streamMessage(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	out := newRPCStream(w, req.ID, s.cfg.StallTimeout)
	defer out.close()
	var sp sendParams
	if e := decodeParams(req.Params, &sp); e != nil {
		out.fail(e)
		return
	}
	var historyLength *int
	if sp.Configuration != nil {
		historyLength = sp.Configuration.HistoryLength
	}
	if e := checkHistoryLength(historyLength); e != nil {
		out.fail(e)
		return
	}
	// Refuse the stream before the turn starts, or the turn would run unseen.
	slot, e := s.openRPCStream(r, "")
	if e != nil {
		out.fail(e)
		return
	}
	defer slot.Close()
	rec, e := s.startTurn(r.Context(), principalOf(r), sp)
	if e != nil {
		out.fail(e)
		return
	}
	slot.ForTurn(rec.ID)
	if s.cfg.CancelOnDisconnect {
		defer s.cancelIfLeft(r, rec.ID)
	}
	rec.State, rec.Reply = orchestrator.TurnRunning, "" // the stream tells the rest
	if out.send(taskFromTurn(rec).withHistory(historyLength)) != nil {
		return
	}
	s.followTask(r, out, rec.ID, rec.EpisodeID)
}

// resubscribe answers tasks/resubscribe. For a running task: the task as it stands, then its
// events from the start, ending with the final status update. For a finished task: its final
// snapshot and its terminal status update only, so that a client applying events in order
// never sees a finished task go back to working.
func (s *Handler) resubscribe(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	out := newRPCStream(w, req.ID, s.cfg.StallTimeout)
	defer out.close()
	q, e := taskQuery(req.Params)
	if e != nil {
		out.fail(e)
		return
	}
	rec, err := s.cfg.Service.Turn(r.Context(), principalOf(r), q.ID)
	if err != nil {
		out.fail(s.taskErr(r.Context(), err))
		return
	}
	slot, e := s.openRPCStream(r, rec.ID)
	if e != nil {
		out.fail(e)
		return
	}
	defer slot.Close()
	task := taskFromTurn(rec).withHistory(q.HistoryLength)
	if out.send(task) != nil {
		return
	}
	if rec.State == orchestrator.TurnCompleted {
		tr := &taskTranslator{taskID: rec.ID, contextID: rec.EpisodeID}
		_ = out.send(tr.status(task.Status.State, task.Status.Message, true))
		return
	}
	s.followTask(r, out, rec.ID, rec.EpisodeID)
}

// followTask translates the turn's event log into A2A update events until turn.completed.
func (s *Handler) followTask(r *http.Request, out *rpcStream, taskID, contextID string) {
	ctx := r.Context()
	tr := &taskTranslator{taskID: taskID, contextID: contextID}
	for rec, err := range s.cfg.Hub.Follow(ctx, taskID, 0) {
		if err != nil {
			if ctx.Err() == nil {
				s.log.ErrorContext(ctx, "a2a: following a turn", "turn_id", taskID, "err", err)
				out.fail(errInternal)
			}
			return
		}
		for _, ev := range tr.translate(rec) {
			if out.send(ev) != nil {
				return
			}
		}
	}
}

// taskTranslator turns one turn's stream events into A2A update events. Reply deltas are held
// back by one, so that the last chunk can carry lastChunk: true; if the deltas do not add up
// to the completed reply (the stream guard scrubbed something), the completed reply replaces
// them.
type taskTranslator struct {
	taskID, contextID string
	sent              strings.Builder // reply text already sent as chunks
	pending           *string         // the newest delta, not yet sent
	chunks            int
	lastError         string // the newest user-facing error notice, for a failed end
}

func (t *taskTranslator) translate(rec stream.Record) []any {
	switch ev := rec.Event.(type) {
	case stream.TurnStarted:
		return []any{t.status(stateWorking, nil, false)}
	case stream.Status:
		return []any{t.status(stateWorking, agentText(fmt.Sprintf("%s-%d", t.taskID, rec.ID), ev.Text), false)}
	case stream.ReplyDelta:
		var out []any
		if t.pending != nil {
			out = append(out, t.chunk(*t.pending, false))
		}
		text := ev.Text
		t.pending = &text
		return out
	case stream.ReplyCompleted:
		if t.pending != nil && t.sent.String()+*t.pending == ev.Text {
			return []any{t.chunk(t.flush(), true)}
		}
		t.pending = nil
		if ev.Text == "" {
			return nil
		}
		t.sent.Reset()
		t.chunks = 0 // a first chunk replaces whatever was sent before
		return []any{t.chunk(ev.Text, true)}
	case stream.Error:
		t.lastError = ev.Message
		return []any{t.status(stateWorking, agentText(fmt.Sprintf("%s-%d", t.taskID, rec.ID), ev.Message), false)}
	case stream.TurnCompleted:
		var out []any
		if t.pending != nil {
			out = append(out, t.chunk(t.flush(), true))
		}
		state, msg := endState(t.taskID, ev.Outcome, t.lastError)
		return append(out, t.status(state, msg, true))
	}
	return nil
}

func (t *taskTranslator) flush() string {
	text := *t.pending
	t.pending = nil
	return text
}

func (t *taskTranslator) chunk(text string, last bool) artifactUpdate {
	u := artifactUpdate{
		TaskID: t.taskID, ContextID: t.contextID, Kind: "artifact-update",
		Artifact:  artifact{ArtifactID: replyArtifactID, Name: "reply", Parts: []part{{Kind: "text", Text: text}}},
		Append:    t.chunks > 0,
		LastChunk: last,
	}
	t.chunks++
	t.sent.WriteString(text)
	return u
}

func (t *taskTranslator) status(state string, msg *message, final bool) statusUpdate {
	if msg != nil {
		msg.TaskID, msg.ContextID = t.taskID, t.contextID
	}
	return statusUpdate{
		TaskID: t.taskID, ContextID: t.contextID, Kind: "status-update", Final: final,
		Status: taskStatus{State: state, Message: msg},
	}
}

// rpcStream writes JSON-RPC responses as SSE data lines. Headers go out with the first one.
type rpcStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stall   time.Duration
	id      json.RawMessage
	started bool
}

func newRPCStream(w http.ResponseWriter, id json.RawMessage, stall time.Duration) *rpcStream {
	return &rpcStream{w: w, rc: http.NewResponseController(w), stall: stall, id: id}
}

func (o *rpcStream) send(result any) error {
	return o.write(rpcResponse{JSONRPC: "2.0", ID: o.id, Result: result})
}

func (o *rpcStream) fail(e *rpcError) {
	if !o.started {
		setRetryAfter(o.w, e)
	}
	_ = o.write(rpcResponse{JSONRPC: "2.0", ID: o.id, Error: e})
}

func (o *rpcStream) write(resp rpcResponse) error {
	data, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	w := o.w
	if !o.started {
		o.started = true
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // keep proxies from buffering the stream
		w.WriteHeader(http.StatusOK)
	}
	// Each write may take the stall timeout, however long the turn: a turn may outlive a
	// server-wide WriteTimeout, and a client that stops reading must not hold the handler (and
	// its stream slot) for good. Writers that cannot set deadlines write without one.
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.stall))
	// Compact JSON holds no raw newline, so one data line carries the whole response.
	if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
		return err
	}
	return o.rc.Flush()
}

// close lifts the write deadline, so that it cannot cut a later response on the connection.
func (o *rpcStream) close() {
	if o.started {
		_ = o.rc.SetWriteDeadline(time.Time{})
	}
}
