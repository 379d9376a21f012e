package evals

import (
	"fmt"
	"strings"

	"github.com/switchboard-ai/switchboard/stream"
)

// absorb records one stream event into o and reports whether it ends the turn. Events that do
// not decode are kept (the leak scorer reads them) and reported as an error.
func (o *TurnOutput) absorb(ev Event) (done bool, err error) {
	o.Events = append(o.Events, ev)
	decoded, err := stream.Decode(ev.Name, ev.Data)
	if err != nil {
		return false, fmt.Errorf("%w: event %d: %w", ErrTarget, ev.ID, err)
	}
	switch e := decoded.(type) {
	case stream.TurnStarted:
		if o.TurnID == "" {
			o.TurnID = e.TurnID
		}
		if o.EpisodeID == "" {
			o.EpisodeID = e.EpisodeID
		}
	case stream.ReplyCompleted:
		o.Reply = e.Text
	case stream.Error:
		o.Errors = append(o.Errors, e.Message)
	case stream.TurnCompleted:
		o.Outcome = string(e.Outcome)
		if o.Reply == "" {
			o.Reply = o.deltas()
		}
		return true, nil
	}
	return false, nil
}

// deltas joins the reply.delta texts, for a stream that never sent reply.completed.
func (o *TurnOutput) deltas() string {
	var b strings.Builder
	for _, ev := range o.Events {
		if ev.Name != "reply.delta" {
			continue
		}
		if d, err := stream.Decode(ev.Name, ev.Data); err == nil {
			b.WriteString(d.(stream.ReplyDelta).Text)
		}
	}
	return b.String()
}
