package orchestrator

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/stream"
)

// A turn starts nine spans or so. Their attributes are built as few times as possible: what
// depends only on the definitions once per orchestrator ([spanOptions]), the turn's ids once
// per turn, and the outcome attributes once per process. Passed with ..., a slice built once
// costs nothing per span, where attribute.String inside trace.WithAttributes allocates the
// slice and boxes the option every time.

// spanOptions are an orchestrator's span start options that never change.
type spanOptions struct {
	turn trace.SpanStartOption // switchboard.agent_id of the orchestrator
	llm  trace.SpanStartOption // gen_ai.operation.name and the orchestrator's agent id
}

func newSpanOptions(orchestratorID string) spanOptions {
	return spanOptions{
		turn: trace.WithAttributes(attribute.String("switchboard.agent_id", orchestratorID)),
		llm: trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("switchboard.agent_id", orchestratorID)),
	}
}

// turnIDs is the span start option every span of turn t carries: its turn and episode ids.
func turnIDs(t Turn) trace.SpanStartOption {
	return trace.WithAttributes(attribute.String("switchboard.turn_id", t.ID), attribute.String("switchboard.episode_id", t.EpisodeID))
}

var (
	turnOutcomeAttrs  = outcomeAttrs(stream.OutcomeOK, stream.OutcomeDegraded, stream.OutcomeFailed, stream.OutcomeCancelled)
	agentOutcomeAttrs = outcomeAttrs(ask.OutcomeOK, ask.OutcomePartial, ask.OutcomeUnavailable, ask.OutcomeFailed, ask.OutcomeTimeout, ask.OutcomeCancelled)
)

func outcomeAttrs[O ~string](outcomes ...O) map[O][]attribute.KeyValue {
	m := make(map[O][]attribute.KeyValue, len(outcomes))
	for _, o := range outcomes {
		m[o] = []attribute.KeyValue{attribute.String("switchboard.outcome", string(o))}
	}
	return m
}

// outcomeAttr is the switchboard.outcome attribute of o, built once for every known outcome.
func outcomeAttr[O ~string](m map[O][]attribute.KeyValue, o O) []attribute.KeyValue {
	if a, ok := m[o]; ok {
		return a
	}
	return []attribute.KeyValue{attribute.String("switchboard.outcome", string(o))}
}

// outcomeLabels are the "agent=outcome" strings of the routing.decision event, by agent id,
// built once per orchestrator.
type outcomeLabels map[string]map[ask.Outcome]string

func newOutcomeLabels(bindings []*binding) outcomeLabels {
	l := make(outcomeLabels, len(bindings))
	for _, b := range bindings {
		byOutcome := make(map[ask.Outcome]string, len(agentOutcomeAttrs))
		for o := range agentOutcomeAttrs {
			byOutcome[o] = b.def.ID + "=" + string(o)
		}
		l[b.def.ID] = byOutcome
	}
	return l
}

func (l outcomeLabels) label(agent string, o ask.Outcome) string {
	if s, ok := l[agent][o]; ok {
		return s
	}
	return agent + "=" + string(o)
}
