package orchestrator

import (
	"encoding/binary"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/stream"
)

// A turn starts nine spans or so. The SDK copies the attributes given at a span's start into
// a slice of their own, then again into the span, and grows the span's slice again for every
// later SetAttributes; so each span here gets all its attributes in one SetAttributes call,
// from slices built once (what depends only on the definitions) or once per turn (the ids),
// and only when the span records: an unsampled turn builds none of it.

// turnAttrs are the attributes of a turn's spans, laid out in one array: the orchestrator's
// LLM calls carry llm, the turn span carries turn, whose last element is the outcome, set when
// the turn ends, and its routing.decision event carries event. agents holds each sub-agent
// call's (see agentAttrs). The SDK copies whatever it is given, so under the SDK the array
// serves one turn after another: a recorded turn takes one from turnAttrsPool and gives it
// back once its spans have ended, rather than allocating 1.7 KB of attributes. Under another
// provider, which may keep what it is given, each turn has its own.
type turnAttrs struct {
	all    [5]attribute.KeyValue // gen_ai.operation.name, agent_id, turn_id, episode_id, outcome
	event  [6]attribute.KeyValue
	agents [agentAttrsLen * fanOutRoom]attribute.KeyValue
}

var turnAttrsPool = sync.Pool{New: func() any { return new(turnAttrs) }}

func (o *Orchestrator) newTurnAttrs(t Turn) *turnAttrs {
	var a *turnAttrs
	if o.poolAttrs {
		a = turnAttrsPool.Get().(*turnAttrs)
	} else {
		a = new(turnAttrs)
	}
	a.all = [5]attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("switchboard.agent_id", o.def.ID),
		attribute.String("switchboard.turn_id", t.ID),
		attribute.String("switchboard.episode_id", t.EpisodeID),
	}
	return a
}

// releaseAttrs gives a back for another turn when it came from the pool; nothing may use it
// afterwards. The strings it holds are cleared, so that a pooled array keeps no turn's ids
// alive.
func (o *Orchestrator) releaseAttrs(a *turnAttrs) {
	if o.poolAttrs {
		*a = turnAttrs{}
		turnAttrsPool.Put(a)
	}
}

func (a *turnAttrs) llm() []attribute.KeyValue { return a.all[0:4] }

// turn is the turn span's attributes ending with outcome o.
func (a *turnAttrs) turn(o stream.Outcome) []attribute.KeyValue {
	a.all[4] = outcomeAttr(turnOutcomeAttrs, o)[0]
	return a.all[1:5]
}

// agentAttrs are the attributes of each sub-agent call's span, laid out per call in one
// array built once per turn: agent_id, gen_ai.tool.name, turn_id, episode_id and the call's
// outcome, set when the call ends (each call writes only its own).
type agentAttrs []attribute.KeyValue

const agentAttrsLen = 5

// newAgentAttrs lays out the attributes of the kept calls, in the room ids has for them when
// there is enough.
func newAgentAttrs(kept []keptCall, ids *turnAttrs) agentAttrs {
	var a agentAttrs
	if n := agentAttrsLen * len(kept); n <= len(ids.agents) {
		a = ids.agents[:n:n]
	} else {
		a = make(agentAttrs, n)
	}
	for i, k := range kept {
		copy(a[agentAttrsLen*i:], k.b.spanAttrs)
		copy(a[agentAttrsLen*i+2:], ids.all[2:4])
	}
	return a
}

// call is call i's span attributes ending with outcome o.
func (a agentAttrs) call(i int, o ask.Outcome) []attribute.KeyValue {
	c := a[agentAttrsLen*i : agentAttrsLen*(i+1) : agentAttrsLen*(i+1)]
	c[agentAttrsLen-1] = outcomeAttr(agentOutcomeAttrs, o)[0]
	return c
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

// stringLists keeps the string-slice attribute values of the routing.decision event by their
// content. attribute.StringSliceValue copies its slice through reflection, three times a turn,
// and a deployment sees few distinct lists: sets of its agents, and of their outcomes.
type stringLists struct {
	mu sync.RWMutex
	m  map[string]attribute.Value
}

// maxStringLists bounds the lists kept: model-chosen tool names in the dropped list could
// otherwise grow it without end. Past it, values are built each time, as before.
const maxStringLists = 1024

func newStringLists() *stringLists { return &stringLists{m: map[string]attribute.Value{}} }

// value is the attribute value of list (an empty list, not a missing one, for nil).
func (c *stringLists) value(list []string) attribute.Value {
	var room [256]byte
	key := room[:0]
	for _, s := range list { // each string with its length first, so no two lists share a key
		key = binary.AppendUvarint(key, uint64(len(s)))
		key = append(key, s...)
	}
	c.mu.RLock()
	v, ok := c.m[string(key)]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = attribute.StringSliceValue(append([]string{}, list...)) // a copy: list may be the caller's stack
	c.mu.Lock()
	if len(c.m) < maxStringLists {
		c.m[string(key)] = v
	}
	c.mu.Unlock()
	return v
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
