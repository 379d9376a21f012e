package orchestrator

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/stream"
)

// signalSink forwards events to a collector and closes sawWorking when the orchestrator's own
// progress line for a silent sub-agent goes out.
type signalSink struct {
	*collector
	sawWorking chan struct{}
}

func (s signalSink) Publish(ev stream.Event) {
	s.collector.Publish(ev)
	if st, ok := ev.(stream.Status); ok {
		for _, src := range st.Sources {
			if src.Event == workingEvent {
				close(s.sawWorking)
			}
		}
	}
}

// A sub-agent that emits nothing still gets a progress line soon after it starts.
// The sub-agent here returns only once the client has seen that line.
func TestSilentSubAgentGetsProgressLine(t *testing.T) {
	model := &scriptedModel{route: callTools("ask_shop"), compose: composeAll}
	sink := signalSink{collector: &collector{}, sawWorking: make(chan struct{})}
	quiet := ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
		select {
		case <-sink.sawWorking:
			return ask.Answer{Text: "done"}, nil
		case <-ctx.Done():
			return ask.Answer{}, ctx.Err()
		}
	})
	o := newTestOrchestrator(t, 3, model, map[string]ask.Agent{"shop": quiet, "rewards": answer("b"), "support": answer("c")},
		WithCadence(20*time.Millisecond))
	res, err := o.Run(t.Context(), Turn{ID: "t", Principal: "alice", Message: "deals"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != stream.OutcomeOK {
		t.Fatalf("Outcome = %v: the progress line never reached the client", res.Outcome)
	}
	var text string
	for _, ev := range sink.all() {
		if st, ok := ev.(stream.Status); ok {
			text = st.Text
			break
		}
	}
	if text != "Checking with Shop…" {
		t.Errorf("progress line = %q, want %q", text, "Checking with Shop…")
	}
}
