package evals

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

var testAgents = []AgentInfo{
	{ID: "shop", Name: "Shop", Description: "Finds deals, discounts and coupons on products, and compares prices.",
		Tools: []string{"Search current offers and sales."}, Enrichers: []string{"offers.search", "coupons.list"}},
	{ID: "rewards", Name: "Rewards", Description: "Loyalty points balance, membership tier and the rewards catalog.",
		Tools: []string{"Get the member's points balance."}, Enrichers: []string{"points.balance", "rewards.tier"}},
	{ID: "support", Name: "Support", Description: "Orders, deliveries, refunds and returns, and the account profile.",
		Tools: []string{"List recent orders with tracking."}, Enrichers: []string{"orders.recent"}},
	{ID: "travel", Name: "Travel", Description: "Upcoming trips, flight status and hotels in a city.",
		Tools: []string{"List upcoming trips."}, Enrichers: []string{"trips.upcoming", "flights.status"}},
}

func TestRoutingCorrect(t *testing.T) {
	tests := []struct {
		name            string
		expect, invoked []string
		cap             int
		want            bool
	}{
		{"single hit", []string{"shop"}, []string{"shop"}, 3, true},
		{"single miss", []string{"shop"}, []string{"rewards"}, 3, false},
		{"extra agent", []string{"shop"}, []string{"shop", "rewards"}, 3, false},
		{"missing agent", []string{"shop", "rewards"}, []string{"shop"}, 3, false},
		{"order does not matter", []string{"shop", "rewards"}, []string{"rewards", "shop"}, 3, true},
		{"none expected, none invoked", []string{}, nil, 3, true},
		{"none expected, one invoked", []string{}, []string{"travel"}, 3, false},
		{"over cap: cap of expected", []string{"shop", "rewards", "support", "travel"}, []string{"shop", "support", "travel"}, 3, true},
		{"over cap: fewer is still within the rule", []string{"shop", "rewards", "support", "travel"}, []string{"shop"}, 3, true},
		{"over cap: nothing invoked", []string{"shop", "rewards", "support", "travel"}, nil, 3, false},
		{"over cap: more than cap", []string{"shop", "rewards", "support", "travel"}, []string{"shop", "rewards", "support", "travel"}, 3, false},
		{"over cap: unexpected agent", []string{"shop", "rewards", "support"}, []string{"shop", "travel"}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := routingCorrect(tt.expect, tt.invoked, tt.cap); got != tt.want {
				t.Errorf("routingCorrect(%v, %v, %d) = %v, want %v", tt.expect, tt.invoked, tt.cap, got, tt.want)
			}
		})
	}
}

// runsOf builds finished case runs from (expect, invoked) pairs, one single-turn case each.
func runsOf(turns ...[2][]string) []*caseRun {
	ds := &Dataset{Name: "t", File: "t.yaml"}
	var runs []*caseRun
	for i, tv := range turns {
		c := Case{ID: string(rune('a' + i)), User: "alice", Turns: []Turn{{Message: "m", Expect: tv[0]}}}
		runs = append(runs, &caseRun{dataset: ds, c: c, turns: []turnRun{{out: TurnOutput{
			Decision: &orchestrator.Decision{Invoked: tv[1], Cap: 3}, Latency: time.Duration(i+1) * 10 * time.Millisecond,
		}}}})
	}
	return runs
}

func TestScoreVerticals(t *testing.T) {
	// Hand-computed over five turns (expect -> invoked):
	//   {shop} -> {shop}            shop tp, correct
	//   {shop} -> {rewards}         shop fn, rewards fp
	//   {rewards} -> {rewards}      rewards tp, correct
	//   {shop, rewards} -> {shop}   shop tp, rewards fn
	//   {} -> {shop}                shop fp
	// shop: tp 2, fp 1, fn 1, so accuracy 2/4. rewards: tp 1, fp 1, fn 1, so 1/3.
	runs := runsOf(
		[2][]string{{"shop"}, {"shop"}},
		[2][]string{{"shop"}, {"rewards"}},
		[2][]string{{"rewards"}, {"rewards"}},
		[2][]string{{"shop", "rewards"}, {"shop"}},
		[2][]string{{}, {"shop"}},
	)
	rep := newScorer(testAgents, 3).score(runs)
	want := map[string]VerticalScore{
		"shop":    {Turns: 4, Precision: 2.0 / 3, Recall: 2.0 / 3, Accuracy: 0.5, TP: 2, FP: 1, FN: 1},
		"rewards": {Turns: 3, Precision: 0.5, Recall: 0.5, Accuracy: 1.0 / 3, TP: 1, FP: 1, FN: 1},
		"support": {Turns: 0, Precision: 1, Recall: 1, Accuracy: 0},
		"travel":  {Turns: 0, Precision: 1, Recall: 1, Accuracy: 0},
	}
	if diff := cmp.Diff(want, rep.Verticals); diff != "" {
		t.Errorf("Verticals mismatch (-want +got):\n%s", diff)
	}
	if got, want := rep.Overall.RoutingAccuracy, 0.4; got != want {
		t.Errorf("RoutingAccuracy = %v, want %v", got, want)
	}
	wantConf := Confusion{
		Labels: []string{"shop", "rewards", "support", "travel", "none"},
		Matrix: [][]int{
			{1 + 1, 1, 0, 0, 0}, // shop: hit twice, once confused with rewards
			{0, 1, 0, 0, 1},     // rewards: hit once, missed once with nothing extra
			{0, 0, 0, 0, 0},
			{0, 0, 0, 0, 0},
			{1, 0, 0, 0, 0}, // nothing expected, shop invoked
		},
	}
	if diff := cmp.Diff(wantConf, rep.Confusion); diff != "" {
		t.Errorf("Confusion mismatch (-want +got):\n%s", diff)
	}
	if got := len(rep.Failures); got != 3 {
		t.Errorf("len(Failures) = %d, want 3 routing failures", got)
	}
	if rep.LatencyMS.P50 != 30 || rep.LatencyMS.P95 != 50 || rep.LatencyMS.Max != 50 {
		t.Errorf("LatencyMS = %+v, want p50 30, p95 50, max 50", rep.LatencyMS)
	}
}

func TestScoreIntentSwitchAndFollowUp(t *testing.T) {
	ds := &Dataset{Name: "s"}
	c := Case{ID: "c", User: "alice", Turns: []Turn{
		{Message: "a", Expect: []string{"shop"}},
		{Message: "b", Expect: []string{"rewards"}},        // a switch, routed right
		{Message: "c", Expect: []string{"rewards"}},        // a follow-up, routed right
		{Message: "d", Expect: []string{"travel"}},         // a switch, routed wrong
		{Message: "e", Expect: []string{"travel"}},         // a follow-up, routed wrong
		{Message: "f", Expect: []string{"travel", "shop"}}, // two intents: neither
		{Message: "g", Expect: []string{"shop"}},           // after two intents: neither
	}}
	out := func(inv ...string) turnRun {
		return turnRun{out: TurnOutput{Decision: &orchestrator.Decision{Invoked: inv, Cap: 3}}}
	}
	runs := []*caseRun{{dataset: ds, c: c, turns: []turnRun{
		out("shop"), out("rewards"), out("rewards"), out("support"), out("shop"), out("travel", "shop"), out("shop"),
	}}}
	rep := newScorer(testAgents, 3).score(runs)
	if rep.Overall.IntentSwitchTurns != 2 || rep.Overall.IntentSwitchAccuracy != 0.5 {
		t.Errorf("intent switch = %d turns at %v, want 2 at 0.5", rep.Overall.IntentSwitchTurns, rep.Overall.IntentSwitchAccuracy)
	}
	if rep.Overall.FollowUpTurns != 2 || rep.Overall.FollowUpAccuracy != 0.5 {
		t.Errorf("follow-ups = %d turns at %v, want 2 at 0.5", rep.Overall.FollowUpTurns, rep.Overall.FollowUpAccuracy)
	}
	var marked []int
	for _, tr := range rep.Cases[0].Turns {
		if tr.FollowUp {
			marked = append(marked, tr.Index)
		}
	}
	if want := []int{3, 5}; !slices.Equal(marked, want) {
		t.Errorf("turns marked follow_up = %v, want %v", marked, want)
	}
}

func TestFanOutCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(agent string, start, latency time.Duration) orchestrator.AgentOutcome {
		return orchestrator.AgentOutcome{Agent: agent, Started: t0.Add(start), Latency: latency}
	}
	decision := func(runs ...orchestrator.AgentOutcome) *orchestrator.Decision {
		return &orchestrator.Decision{Agents: runs}
	}
	ms := time.Millisecond
	parallel := decision(run("shop", 0, 2*time.Second), run("rewards", 5*ms, 1500*ms))
	// Real-model sub-agents run one after the other: the second starts after the first's
	// 2 s run ended.
	serial := decision(run("shop", 0, 2*time.Second), run("rewards", 2010*ms, 1500*ms))
	// Sub-millisecond agents started 200µs apart: timing cannot tell, so it passes.
	instant := decision(run("shop", 0, 100*time.Microsecond), run("rewards", 200*time.Microsecond, 100*time.Microsecond))
	// A loaded machine: fast sub-agents, the second goroutine scheduled 80 ms after the first
	// had finished. Scheduling noise, not sequential running (it failed the old 50 ms rule).
	loaded := decision(run("shop", 0, 3*ms), run("rewards", 80*ms, 2*ms))
	// Even 900 ms late, a sibling of a short run is not judged.
	veryLoaded := decision(run("shop", 0, 40*ms), run("rewards", 900*ms, 40*ms), run("travel", 2*ms, 30*ms))
	// Three sub-agents, two together, the third only after a 1.2 s sibling had finished.
	thirdWaited := decision(run("shop", 0, 1200*ms), run("rewards", 3*ms, 1100*ms), run("travel", 1250*ms, 900*ms))
	four := []string{"shop", "rewards", "support", "travel"}
	tests := []struct {
		name            string
		expect, invoked []string
		d               *orchestrator.Decision
		wantOK          bool
	}{
		{"all invoked, overlapping", []string{"shop", "rewards"}, []string{"rewards", "shop"}, parallel, true},
		{"all invoked, one after the other", []string{"shop", "rewards"}, []string{"shop", "rewards"}, serial, false},
		{"instant agents close together", []string{"shop", "rewards"}, []string{"shop", "rewards"}, instant, true},
		{"fast agents, late goroutine", []string{"shop", "rewards"}, []string{"shop", "rewards"}, loaded, true},
		{"fast agents, very late goroutine", []string{"shop", "rewards", "travel"}, []string{"shop", "rewards", "travel"}, veryLoaded, true},
		{"third started after a long sibling finished", []string{"shop", "rewards", "travel"}, []string{"shop", "rewards", "travel"}, thirdWaited, false},
		{"one missing", []string{"shop", "rewards"}, []string{"shop"}, parallel, false},
		{"no timings", []string{"shop", "rewards"}, []string{"shop", "rewards"}, &orchestrator.Decision{}, true},
		{"over cap, exactly cap", four, []string{"shop", "rewards", "travel"}, nil, true},
		{"over cap, fewer than cap", four, []string{"shop", "rewards"}, nil, false},
		{"over cap, beyond cap", four, four, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := fanOutCheck(tt.expect, tt.invoked, 3, tt.d)
			if (why == "") != tt.wantOK {
				t.Errorf("fanOutCheck() = %q, want ok=%v", why, tt.wantOK)
			}
		})
	}
}

func TestLeakCheck(t *testing.T) {
	lc := newLeakChecker(testAgents)
	tests := []struct {
		name      string
		event     Event
		wantKinds []string
	}{
		{"clean reply", ev("reply.completed", `{"text":"I found 3 deals on shoes. Your balance is 1,200 points."}`), nil},
		{"clean status with ids in structural keys", ev("status", `{"text":"Searching offers…","sources":[{"agent_id":"shop","event":"searching_offers"}]}`), nil},
		{"plain failure acknowledgment", ev("reply.completed", `{"text":"Sorry, I couldn't get your points balance right now (HTTP is fine, 500 points)."}`), nil},
		{"error code", ev("reply.completed", `{"text":"failed: principal_mismatch"}`), []string{LeakErrorCode}},
		{"status error", ev("error", `{"message":"status: error from ccs","is_final":true}`), []string{LeakErrorCode}},
		{"enricher id", ev("reply.delta", `{"text":"calling points.balance now"}`), []string{LeakEnricherID}},
		{"enricher id in parentheses", ev("status", `{"text":"Loading (orders.recent)","sources":[]}`), []string{LeakEnricherID}},
		{"stack trace", ev("error", `{"message":"goroutine 7 [running]: main.go:42","is_final":true}`), []string{LeakStackTrace}},
		{"go panic", ev("reply.completed", `{"text":"panic: runtime error: index out of range"}`), []string{LeakStackTrace}},
		{"partial reason", ev("reply.completed", `{"text":"Some offers: upstream 503 from offers-enrichment (retry budget exhausted)"}`), []string{LeakUpstream}},
		{"ip and port", ev("reply.completed", `{"text":"dial 10.20.3.17:7443 failed"}`), []string{LeakUpstream}},
		{"http status phrase", ev("reply.completed", `{"text":"got 503 Service Unavailable"}`), []string{LeakHTTPStatus}},
		{"json in text", ev("reply.completed", `{"text":"result: {\"status\": \"ok\", \"points\": 3}"}`), []string{LeakJSON}},
		{"not json at all", ev("reply.delta", `oops principal_mismatch`), []string{LeakErrorCode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, h := range lc.check([]Event{tt.event}) {
				got = append(got, h.kind)
			}
			if diff := cmp.Diff(tt.wantKinds, got); diff != "" {
				t.Errorf("check(%s) kinds mismatch (-want +got):\n%s", tt.event.Data, diff)
			}
		})
	}
}

func TestLeakCheckAcrossDeltas(t *testing.T) {
	lc := newLeakChecker(testAgents)
	hits := lc.check([]Event{ev("reply.delta", `{"text":"see points."}`), ev("reply.delta", `{"text":"balance for details"}`)})
	if len(hits) != 1 || hits[0].kind != LeakEnricherID || hits[0].event != "reply.delta (joined)" {
		t.Errorf("check(split id) = %+v, want one enricher_id hit on the joined deltas", hits)
	}
}

func ev(name, data string) Event { return Event{ID: 1, Name: name, Data: []byte(data)} }

func TestAcknowledger(t *testing.T) {
	ack := newAcknowledger(testAgents)
	tests := []struct {
		name    string
		reply   string
		failing []string
		want    []string
	}{
		{"names the data and apologises", "Here are 3 deals on shoes. Sorry, I couldn't get your points balance right now.", []string{"rewards"}, nil},
		{"agent name and unavailability", "Rewards is unavailable at the moment, but here are your deals.", []string{"rewards"}, nil},
		{"plural and typo-free stem", "I wasn't able to load your recent order details.", []string{"support"}, nil},
		{"no apology", "Your points balance is 1,200.", []string{"rewards"}, []string{"rewards"}},
		{"apology about another vertical", "Sorry, I couldn't get your trips right now. Your balance is 1,200 points.", []string{"shop"}, []string{"shop"}},
		{"two failing, one acknowledged", "Sorry, flight status is unavailable right now.", []string{"shop", "travel"}, []string{"shop"}},
		{"partial caveat", "These deals may be incomplete: some stores did not answer.", []string{"shop"}, nil},
		{"nothing failing", "Hello!", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ack.missing(tt.reply, tt.failing)); diff != "" {
				t.Errorf("missing(%q) mismatch (-want +got):\n%s", tt.reply, diff)
			}
		})
	}
}

func TestCoverageNamesMissingPairs(t *testing.T) {
	ds := &Dataset{Name: "d", Cases: []Case{
		{ID: "a", Turns: []Turn{{Expect: []string{"shop"}}, {Expect: []string{"rewards"}}, {Expect: []string{"shop"}}}},
		{ID: "b", Turns: []Turn{{Expect: []string{"shop", "rewards"}}, {Expect: []string{"support"}}}},            // not single-intent
		{ID: "c", Turns: []Turn{{Expect: []string{"support"}}, {Expect: []string{}}, {Expect: []string{"shop"}}}}, // not consecutive
	}}
	cov := coverage([]*Dataset{ds}, []string{"shop", "rewards", "support"})
	want := Coverage{
		PairsRequired: 6, PairsCovered: 2,
		Missing: []string{"rewards->support", "shop->support", "support->rewards", "support->shop"},
		Counts:  map[string]int{"shop->rewards": 1, "rewards->shop": 1},
	}
	if diff := cmp.Diff(want, cov); diff != "" {
		t.Errorf("coverage() mismatch (-want +got):\n%s", diff)
	}
	rep := &Report{Overall: Overall{Turns: 1, RoutingAccuracy: 1}, Coverage: cov, Verticals: map[string]VerticalScore{}}
	gates := evaluateGates(rep, []string{"shop", "rewards", "support"}, 0.95, true)
	var cg GateResult
	for _, g := range gates {
		if g.Name == GatePairCoverage {
			cg = g
		}
	}
	if cg.Passed || cg.Detail != "2 of 6 ordered pairs covered; missing rewards->support, shop->support, support->rewards, support->shop (a dataset meant for some verticals only: pass --no-coverage-gate)" {
		t.Errorf("coverage gate = %+v, want a failure naming the missing pairs", cg)
	}
	rep.GateResults = gates
	if err := rep.GateError(); !errors.Is(err, ErrGates) {
		t.Errorf("GateError() = nil, want the coverage failure")
	}
	gates = evaluateGates(rep, []string{"shop", "rewards", "support"}, 0.95, false)
	for _, g := range gates {
		if g.Name == GatePairCoverage && (!g.Passed || !g.Skipped) {
			t.Errorf("disabled coverage gate = %+v, want passed and skipped", g)
		}
	}
}

func TestGatesAccuracy(t *testing.T) {
	rep := &Report{
		Overall: Overall{Turns: 20, RoutingAccuracy: 0.95},
		Verticals: map[string]VerticalScore{
			"shop": {Turns: 10, Accuracy: 0.9}, "rewards": {Turns: 10, Accuracy: 1}, "support": {},
		},
	}
	var failed []string
	for _, g := range evaluateGates(rep, []string{"shop", "rewards", "support"}, 0.95, false) {
		if !g.Passed {
			failed = append(failed, g.Name)
		}
	}
	if diff := cmp.Diff([]string{"vertical_accuracy:shop"}, failed); diff != "" {
		t.Errorf("failed gates mismatch (-want +got):\n%s", diff)
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"SCORE: 4\nClear and brief.", 4, true},
		{"**Score**: 5 - great", 5, true},
		{"I'd give it a 3.", 3, true},
		{"score 9", 0, false},
		{"no idea", 0, false},
	}
	for _, tt := range tests {
		got, err := parseScore(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("parseScore(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSummarizeLatency(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarizeLatency(ds)
	want := Latency{P50: 50, P95: 95, Max: 100, Mean: 50.5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summarizeLatency() mismatch (-want +got):\n%s", diff)
	}
	if got := summarizeLatency(nil); got != (Latency{}) {
		t.Errorf("summarizeLatency(nil) = %+v, want zero", got)
	}
}

// The stored reply is read later by GET /v1/turns/{id}, episodes and A2A: the leak gate reads
// it as well as the stream.
func TestLeakCheckReadsTheStoredReply(t *testing.T) {
	lc := newLeakChecker(testAgents)
	events := []Event{ev("reply.completed", `{"text":"Your points are unavailable right now."}`)}
	if hits := lc.check(append(events, storedEvent("Your points are unavailable right now."))); len(hits) != 0 {
		t.Errorf("clean stored reply: %+v", hits)
	}
	hits := lc.check(append(events, storedEvent("Your points are unavailable (principal_mismatch at ccs/client.go:88).")))
	if len(hits) == 0 || hits[0].event != "stored turn" {
		t.Errorf("stored reply with internals: %+v, want hits on the stored turn", hits)
	}
}

// No-route figures: of the turns that reached nobody, how many expected nobody (precision),
// and of the turns that expected nobody, how many reached nobody (recall).
func TestScoreNoRoute(t *testing.T) {
	runs := runsOf(
		[2][]string{{}, {}},          // small talk left alone
		[2][]string{{}, {"shop"}},    // small talk routed anyway
		[2][]string{{"rewards"}, {}}, // a request answered without its agent
		[2][]string{{"shop"}, {"shop"}},
	)
	o := newScorer(testAgents, 3).score(runs).Overall
	if o.NoRoutePrecision != 0.5 || o.NoRouteRecall != 0.5 || o.NoRouteAnswered != 2 || o.NoRouteTurns != 2 {
		t.Errorf("no-route precision %v of %d, recall %v of %d; want 0.5 of 2 and 0.5 of 2",
			o.NoRoutePrecision, o.NoRouteAnswered, o.NoRouteRecall, o.NoRouteTurns)
	}
}
