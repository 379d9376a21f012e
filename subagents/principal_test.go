package subagents_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/subagents"
)

// sampleArgs are arguments a model would plausibly send to each demo tool; tools absent here
// take "{}".
var sampleArgs = map[string]string{
	"search_offers": `{"query":"headphones"}`,
	"lookup_price":  `{"product":"airpods pro"}`,
	"search_hotels": `{"city":"Tokyo"}`,
}

func argsOf(tool string) string {
	if a, ok := sampleArgs[tool]; ok {
		return a
	}
	return "{}"
}

// subAgentDefs returns the demo sub-agent definitions.
func subAgentDefs(t *testing.T) []*definitions.Definition {
	t.Helper()
	set, err := definitions.Load("../demo")
	if err != nil {
		t.Fatalf("definitions.Load(../agents) = %v", err)
	}
	var out []*definitions.Definition
	for _, d := range set.All() {
		if d.Kind == definitions.KindSubAgent {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatal("no sub-agent definitions in ../agents")
	}
	return out
}

// TestWrongPrincipalIsSuppressed holds for every demo tool: the CCS answers alice's call with
// bob's data. The payload must reach no LLM message and no log line; the mismatch is counted,
// alerted with agent, enricher and trace id, and not retried.
func TestWrongPrincipalIsSuppressed(t *testing.T) {
	leaky := 0 // tools where bob's data has strings alice's lacks: the leak check has teeth
	for _, def := range subAgentDefs(t) {
		for _, tool := range def.Tools {
			args := map[string]any{}
			if err := json.Unmarshal([]byte(argsOf(tool.Name)), &args); err != nil {
				t.Fatal(err)
			}
			foreign := exclusiveStrings(t, tool.Enricher, args, ccsdemo.Bob, ccsdemo.Alice)
			if len(foreign) > 0 {
				leaky++
			}
			t.Run(def.ID+"/"+tool.Name, func(t *testing.T) {
				t.Parallel()
				h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
				h.demo.Inject(tool.Enricher, ccsdemo.Fault{WrongPrincipal: true})
				m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", tool.Name, argsOf(tool.Name))}}

				reply, err := h.agent(def.ID, m, ccs.CheckOptions{}).Ask(t.Context(), ask.Question{
					Request:   "what do you have for me?",
					Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "turn-6"},
				})
				if err != nil {
					t.Fatalf("Ask() error = %v", err)
				}
				if diff := cmp.Diff([]string{unavailableResult}, m.toolResults("")); diff != "" {
					t.Errorf("tool results (-want +got):\n%s", diff)
				}
				if reply.Outcome != ask.OutcomeUnavailable || len(reply.Components) != 0 {
					t.Errorf("Ask() = outcome %q, %d components; want unavailable, none", reply.Outcome, len(reply.Components))
				}
				transcript, logs := m.transcript(), h.logs.String()
				for _, s := range foreign {
					if strings.Contains(transcript, s) {
						t.Errorf("LLM messages contain bob's %q", s)
					}
					if strings.Contains(logs, s) {
						t.Errorf("logs contain bob's %q", s)
					}
				}

				if diff := cmp.Diff(map[string]int64{"consumer=switchboard": 1}, h.counter(mismatchMetric)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", mismatchMetric, diff)
				}
				alerts := h.alerts()
				if len(alerts) != 1 {
					t.Fatalf("security alerts = %v, want one", alerts)
				}
				al := alerts[0]
				traceID := h.spanTraceID("ccs " + tool.Enricher)
				if traceID == "" || strings.Trim(traceID, "0") == "" {
					t.Fatalf("span %q has no trace id (%q)", "ccs "+tool.Enricher, traceID)
				}
				want := map[string]any{
					"level": "ERROR", "agent": def.ID, "turn_id": "turn-6", "enricher": tool.Enricher,
					"trace_id": traceID, "reason": string(ccs.ReasonPrincipalMismatch),
				}
				got := map[string]any{}
				for k := range want {
					got[k] = al[k]
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("alert fields (-want +got):\n%s", diff)
				}
				for _, k := range []string{"payload", "data", "principal"} {
					if _, ok := al[k]; ok {
						t.Errorf("alert carries %q: %v", k, al)
					}
				}

				calls := h.demo.Calls()
				if len(calls) != 1 {
					t.Fatalf("CCS calls = %d, want exactly 1 (no retry): %+v", len(calls), calls)
				}
				if calls[0].Principal != ccsdemo.Alice || calls[0].HeaderPrincipal != ccsdemo.Alice {
					t.Errorf("CCS call principal = %q / header %q, want alice", calls[0].Principal, calls[0].HeaderPrincipal)
				}
			})
		}
	}
	if leaky < 5 {
		t.Errorf("only %d tools have bob-only data strings; the leak checks are too weak", leaky)
	}
}

// TestPrincipalOnEveryCall checks that each of several principals invokes every demo sub-agent,
// all at once, and every CCS call carries the invoking principal in body and header.
func TestPrincipalOnEveryCall(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	defs := subAgentDefs(t)
	principals := []principal.Principal{ccsdemo.Alice, ccsdemo.Bob, "carol"}

	type run struct {
		p     principal.Principal
		def   *definitions.Definition
		model *scriptedModel
		reply ask.Answer
		err   error
	}
	var runs []*run
	var wantEnrichers []string
	agents := map[string]*subagents.Agent{}
	for _, def := range defs {
		// One model and one agent per definition, shared by the principals' parallel turns.
		m := &scriptedModel{}
		for i, tool := range def.Tools {
			m.toolCalls = append(m.toolCalls, call(fmt.Sprintf("c%d", i), tool.Name, argsOf(tool.Name)))
			wantEnrichers = append(wantEnrichers, tool.Enricher)
		}
		agents[def.ID] = h.agent(def.ID, m, ccs.CheckOptions{})
		for _, p := range principals {
			runs = append(runs, &run{p: p, def: def, model: m})
		}
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			r.reply, r.err = agents[r.def.ID].Ask(t.Context(), ask.Question{
				Request:   requestFor(r.p, r.def.ID),
				Inherited: ask.Inherited{Principal: r.p, TurnID: "turn-" + string(r.p)},
			})
		})
	}
	wg.Wait()

	byPrincipal := map[string][]string{}
	for _, c := range h.demo.Calls() {
		if c.Principal != c.HeaderPrincipal {
			t.Errorf("CCS call to %s: body principal %q, header %q", c.EnricherID, c.Principal, c.HeaderPrincipal)
		}
		byPrincipal[c.Principal] = append(byPrincipal[c.Principal], c.EnricherID)
	}
	slices.Sort(wantEnrichers)
	want := map[string][]string{}
	for _, p := range principals {
		want[string(p)] = wantEnrichers
		slices.Sort(byPrincipal[string(p)])
	}
	if diff := cmp.Diff(want, byPrincipal); diff != "" {
		t.Errorf("CCS calls by principal (-want +got):\n%s", diff)
	}

	for _, r := range runs {
		if r.err != nil {
			t.Errorf("Ask(%s, %s) error = %v", r.p, r.def.ID, r.err)
			continue
		}
		if r.reply.Outcome != ask.OutcomeOK {
			t.Errorf("Ask(%s, %s).Outcome = %q, want ok", r.p, r.def.ID, r.reply.Outcome)
		}
		results := r.model.toolResults(requestFor(r.p, r.def.ID))
		if len(results) != len(r.def.Tools) {
			t.Errorf("Ask(%s, %s): %d tool results, want %d", r.p, r.def.ID, len(results), len(r.def.Tools))
		}
		for _, res := range results {
			if got := parseResult(t, res).Status; got != "ok" {
				t.Errorf("Ask(%s, %s): tool result %s, want status ok", r.p, r.def.ID, res)
			}
		}
	}
	// The support agent's profile tool shows each user their own name and nobody else's.
	names := map[principal.Principal]string{ccsdemo.Alice: "Alice Johnson", ccsdemo.Bob: "Bob Martinez"}
	for _, r := range runs {
		if r.def.ID != "support" {
			continue
		}
		got := strings.Join(r.model.toolResults(requestFor(r.p, r.def.ID)), "\n")
		for p, name := range names {
			if strings.Contains(got, name) != (p == r.p) {
				t.Errorf("support results for %s: contains %q = %v", r.p, name, !(p == r.p))
			}
		}
	}
}

func requestFor(p principal.Principal, agentID string) string {
	return fmt.Sprintf("%s asks %s for everything", p, agentID)
}

// TestMissingPrincipal: without an inherited principal nothing is fetched and no model runs.
func TestMissingPrincipal(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	_, err := h.agent("rewards", m, ccs.CheckOptions{}).Ask(t.Context(), ask.Question{
		Request:   "how many points do i have",
		Inherited: ask.Inherited{EpisodeID: "ep-1"},
	})
	if !errors.Is(err, subagents.ErrNoPrincipal) {
		t.Errorf("Ask() error = %v, want %v", err, subagents.ErrNoPrincipal)
	}
	if n := len(h.demo.Calls()); n != 0 {
		t.Errorf("CCS calls = %d, want 0", n)
	}
	if n := len(m.recorded()); n != 0 {
		t.Errorf("model calls = %d, want 0", n)
	}
}
