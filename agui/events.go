package agui

import (
	"strings"

	"github.com/switchboard-ai/switchboard/stream"
)

// translator turns one turn's stream events into AG-UI events, keeping the sequence valid
// for @ag-ui/client's verifier: a step is started once and finished once, the reply is one
// text message opened before its first piece and closed before the run ends.
//
// Steps are the sub-agent invocations. The turn's event log does not mark when an invocation
// begins, so a step starts with the first status line that names its agent, and every open
// step finishes when the reply begins: the orchestrator composes only after all of its
// sub-agents have returned. A sub-agent that showed no status line appears as a step when the
// run ends, from the turn's routing record (see [translator.finish]).
type translator struct {
	threadID, runID string
	turnID          string
	open            []string        // steps started and not finished, in start order
	seen            map[string]bool // every step started in this run
	textOpen        bool
	sent            strings.Builder // reply text already sent
	lastError       string          // the newest user-facing notice, for a failed end
}

func newTranslator(threadID, runID, turnID string) *translator {
	return &translator{threadID: threadID, runID: runID, turnID: turnID, seen: map[string]bool{}}
}

// messageID is the id of the run's reply message: the turn id, so a client can find the turn.
func (t *translator) messageID() string { return t.turnID }

// statusID is the id of the run's status activity message (distinct from every text message).
func (t *translator) statusID() string { return t.turnID + ":status" }

func (t *translator) started() any {
	return runStartedEvent{Type: eventRunStarted, ThreadID: t.threadID, RunID: t.runID,
		Metadata: map[string]any{"turnId": t.turnID, "episodeId": t.threadID}}
}

// translate returns the AG-UI events for one record. turn.completed is left to finish, which
// needs the turn's routing record.
func (t *translator) translate(rec stream.Record) []any {
	switch ev := rec.Event.(type) {
	case stream.Status:
		var out []any
		line := statusLine{Text: ev.Text, Sources: []statusSource{}}
		for _, s := range ev.Sources {
			line.Sources = append(line.Sources, statusSource{AgentID: s.AgentID, Event: s.Event})
			if s.AgentID != "" && !t.seen[s.AgentID] && !t.textOpen {
				t.seen[s.AgentID] = true
				t.open = append(t.open, s.AgentID)
				out = append(out, stepEvent{Type: eventStepStarted, StepName: s.AgentID})
			}
		}
		return append(out, t.activity(line))
	case stream.Error:
		t.lastError = ev.Message
		if ev.IsFinal {
			return nil // the run ends in RUN_ERROR with these words
		}
		return []any{t.activity(statusLine{Text: ev.Message, Sources: []statusSource{}})}
	case stream.ReplyDelta:
		return t.text(ev.Text)
	case stream.ReplyCompleted:
		// The guard's deltas add up to the completed reply; a reply sent without deltas (or the
		// rest of one) is sent here.
		if rest, ok := strings.CutPrefix(ev.Text, t.sent.String()); ok {
			return t.text(rest)
		}
		return nil
	}
	return nil
}

func (t *translator) activity(line statusLine) activityEvent {
	return activityEvent{Type: eventActivitySnapshot, MessageID: t.statusID(),
		ActivityType: statusActivity, Content: line, Replace: true}
}

// text sends a piece of the reply, finishing the steps and opening the message first.
func (t *translator) text(delta string) []any {
	if delta == "" {
		return nil
	}
	out := t.finishSteps()
	if !t.textOpen {
		t.textOpen = true
		out = append(out, textStartEvent{Type: eventTextMessageStart, MessageID: t.messageID(), Role: "assistant"})
	}
	t.sent.WriteString(delta)
	return append(out, textContentEvent{Type: eventTextMessageContent, MessageID: t.messageID(), Delta: delta})
}

func (t *translator) finishSteps() []any {
	var out []any
	for _, id := range t.open {
		out = append(out, stepEvent{Type: eventStepFinished, StepName: id})
	}
	t.open = nil
	return out
}

// finish ends the run: it closes the reply and the open steps, shows the invoked sub-agents
// that never appeared as steps, and ends with RUN_FINISHED, or RUN_ERROR for a failed turn.
func (t *translator) finish(outcome stream.Outcome, invoked []string) []any {
	var out []any
	if t.textOpen {
		t.textOpen = false
		out = append(out, textEndEvent{Type: eventTextMessageEnd, MessageID: t.messageID()})
	}
	out = append(out, t.finishSteps()...)
	for _, id := range invoked {
		if !t.seen[id] {
			t.seen[id] = true
			out = append(out, stepEvent{Type: eventStepStarted, StepName: id}, stepEvent{Type: eventStepFinished, StepName: id})
		}
	}
	switch outcome {
	case stream.OutcomeFailed:
		msg := t.lastError
		if msg == "" {
			msg = msgFailed
		}
		return append(out, runErrorEvent{Type: eventRunError, Message: msg, Code: "turn_failed"})
	case stream.OutcomeCancelled:
		return append(out, runFinishedEvent{Type: eventRunFinished, ThreadID: t.threadID, RunID: t.runID,
			Outcome: runOutcome{Type: "cancelled"}, Result: map[string]any{"outcome": string(outcome), "turnId": t.turnID}})
	}
	return append(out, runFinishedEvent{Type: eventRunFinished, ThreadID: t.threadID, RunID: t.runID,
		Outcome: runOutcome{Type: "success"}, Result: map[string]any{"outcome": string(outcome), "turnId": t.turnID}})
}

// msgFailed is what a run that failed without a word of its own tells the user.
const msgFailed = "Sorry, I couldn't answer that. Please try again."
