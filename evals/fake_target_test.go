package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// fakeTarget routes by keywords and records how it was driven. Func fields override its
// behaviour; it is safe for concurrent use.
type fakeTarget struct {
	// TurnFunc, when set, replaces the keyword router.
	TurnFunc func(ctx context.Context, in TurnInput) (TurnOutput, error)

	mu         sync.Mutex
	next       int
	faults     []AgentFault // currently injected
	injected   [][]AgentFault
	clears     int
	faultUsers []string // the user of each InjectFaults and ClearFaults call
	active     int
	maxActive  int
	// overlapWithFaults counts turns of fault-free cases that ran while faults were injected.
	overlapWithFaults int
	episodes          map[string][]string // episode id -> messages, in arrival order
	users             map[string]string   // episode id -> user
}

var _ Target = (*fakeTarget)(nil)

var fakeKeywords = map[string]string{"deal": "shop", "points": "rewards", "order": "support", "flight": "travel"}

func (f *fakeTarget) Turn(ctx context.Context, in TurnInput) (TurnOutput, error) {
	f.mu.Lock()
	f.active++
	f.maxActive = max(f.maxActive, f.active)
	if len(f.faults) > 0 && !strings.Contains(in.Message, "[faulty]") {
		f.overlapWithFaults++
	}
	if f.episodes == nil {
		f.episodes, f.users = map[string][]string{}, map[string]string{}
	}
	ep := in.EpisodeID
	if ep == "" {
		f.next++
		ep = fmt.Sprintf("ep_%d", f.next)
	}
	f.episodes[ep] = append(f.episodes[ep], in.Message)
	f.users[ep] = in.User
	f.next++
	turnID := fmt.Sprintf("turn_%d", f.next)
	failing := map[string]bool{}
	for _, x := range f.faults {
		failing[x.Agent] = true
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	if f.TurnFunc != nil {
		return f.TurnFunc(ctx, in)
	}
	var invoked []string
	var reply []string
	for _, w := range []string{"deal", "points", "order", "flight"} {
		if strings.Contains(in.Message, w) {
			a := fakeKeywords[w]
			invoked = append(invoked, a)
			if failing[a] {
				reply = append(reply, "Sorry, I couldn't get your "+w+" right now.")
			} else {
				reply = append(reply, "Here is your "+w+" info.")
			}
		}
	}
	if len(invoked) == 0 {
		reply = append(reply, "Hi! I can help with deals, points, orders and trips.")
	}
	text := strings.Join(reply, " ")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &orchestrator.Decision{Invoked: invoked, IntentCount: len(invoked), Cap: 3}
	for _, a := range invoked {
		d.Agents = append(d.Agents, orchestrator.AgentOutcome{Agent: a, Outcome: ask.OutcomeOK, Started: start, Latency: time.Millisecond})
	}
	out := TurnOutput{TurnID: turnID, EpisodeID: ep, Decision: d, Latency: 5 * time.Millisecond}
	for _, e := range []Event{
		{ID: 1, Name: "turn.started", Data: mustJSON(map[string]string{"turn_id": turnID, "episode_id": ep})},
		{ID: 2, Name: "reply.completed", Data: mustJSON(map[string]string{"text": text})},
		{ID: 3, Name: "turn.completed", Data: mustJSON(map[string]string{"turn_id": turnID, "outcome": "ok"})},
	} {
		if _, err := out.absorb(e); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (f *fakeTarget) InjectFaults(_ context.Context, user string, faults []AgentFault) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faultUsers = append(f.faultUsers, user)
	f.faults = faults
	f.injected = append(f.injected, faults)
	return nil
}

func (f *fakeTarget) ClearFaults(_ context.Context, user string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faultUsers = append(f.faultUsers, user)
	f.faults = nil
	f.clears++
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
