package evals

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// scorer turns case runs into a [Report]. It holds only immutable lookup tables.
type scorer struct {
	agents []AgentInfo
	ids    []string
	cap    int // used when a turn has no routing record
	leaks  *leakChecker
	ack    *acknowledger
}

func newScorer(agents []AgentInfo, cap int) *scorer {
	return &scorer{agents: agents, ids: agentIDs(agents), cap: cap, leaks: newLeakChecker(agents), ack: newAcknowledger(agents)}
}

// score computes every number of the report except coverage, gates and the judge summary.
func (s *scorer) score(runs []*caseRun) *Report {
	p := s.newPass()
	for _, cr := range runs {
		p.addCase(cr)
	}
	return p.finish()
}

// hits counts the turns a ratio of the report is over, and those of them that went right.
type hits struct{ n, ok int }

func (h *hits) add(ok bool) {
	h.n++
	if ok {
		h.ok++
	}
}

func (h hits) ratio() float64 { return ratioOr(h.ok, h.n, 0) }

// pass is one scoring of a run: the report it fills and the counts behind its ratios.
type pass struct {
	*scorer
	rep       *Report
	counts    map[string]*verticalCounts
	conf      *confusion
	routed    hits // every turn
	switches  hits // turns expecting another sub-agent than the turn before
	follow    hits // turns expecting the same sub-agent again
	fannedOut hits
	acks      hits
	answers   hits
	// No-route: the turns that expected nobody, that reached nobody, and both.
	noRouteExpected, noRoutePredicted, noRouteBoth int
	latencies                                      []time.Duration
	dsCorrect, dsAnswered                          map[string]int
}

func (s *scorer) newPass() *pass {
	p := &pass{
		scorer: s,
		rep: &Report{
			SchemaVersion: SchemaVersion,
			Verticals:     map[string]VerticalScore{},
			Answers:       map[string]AnswerScore{},
			Datasets:      map[string]DatasetScore{},
			LeakFindings:  []Leak{},
			Failures:      []Failure{},
			Cases:         []CaseReport{},
		},
		counts:     map[string]*verticalCounts{},
		conf:       newConfusion(s.ids),
		dsCorrect:  map[string]int{},
		dsAnswered: map[string]int{},
	}
	for _, id := range s.ids {
		p.counts[id] = &verticalCounts{}
	}
	return p
}

// addCase scores one case and its turns.
func (p *pass) addCase(cr *caseRun) {
	ds := cr.dataset.Name
	cs := CaseReport{Dataset: ds, ID: cr.c.ID, User: cr.c.User, Faults: cr.c.Faults, Passed: true, Turns: []TurnReport{}}
	if cr.err != nil {
		cs.Error = cr.err.Error()
		cs.Passed = false
		p.rep.Failures = append(p.rep.Failures, Failure{Dataset: ds, Case: cr.c.ID, Kind: FailError, Message: cs.Error, Expected: []string{}, Invoked: []string{}})
	}
	dscore := p.rep.Datasets[ds]
	dscore.File, dscore.Cases = cr.dataset.File, dscore.Cases+1
	for i := range cr.c.Turns {
		cs.Turns = append(cs.Turns, p.addTurn(cr, i, &cs, &dscore))
	}
	if cs.Passed {
		p.rep.Overall.CasesPassed++
		dscore.CasesPassed++
	}
	dscore.RoutingAccuracy = ratioOr(p.dsCorrect[ds], dscore.Turns, 0)
	dscore.AnswerAccuracy = ratioOr(p.dsAnswered[ds], dscore.AnswerTurns, 0)
	p.rep.Datasets[ds] = dscore
	p.rep.Overall.Cases++
	p.rep.Cases = append(p.rep.Cases, cs)
}

// turnScoring is the scoring of one turn: what it expected, what it did, and the case and
// dataset its failures count against.
type turnScoring struct {
	*pass
	cr     *caseRun
	i      int // the turn's index in its case
	t      Turn
	run    turnRun
	inv    []string // the sub-agents it reached, each once
	tools  []string // the tools they called, as agent.tool
	cap    int      // its fan-out cap
	cs     *CaseReport
	dscore *DatasetScore
	tr     TurnReport
}

// fail records a failure of the turn, which fails its case.
func (ts *turnScoring) fail(kind, msg string) {
	ts.cs.Passed = false
	ts.rep.Failures = append(ts.rep.Failures, Failure{
		Dataset: ts.cr.dataset.Name, Case: ts.cr.c.ID, Turn: ts.i + 1, Kind: kind, Message: msg, User: ts.t.Message,
		Expected: ts.t.Expect, Invoked: ts.inv, Tools: ts.tools, Reply: clip(ts.run.out.Visible(), 400),
	})
}

// addTurn scores turn i of cr and returns its report. Each check adds to its own counts; the
// order of the checks is the order of the turn's failures in the report.
func (p *pass) addTurn(cr *caseRun, i int, cs *CaseReport, dscore *DatasetScore) TurnReport {
	ts := &turnScoring{pass: p, cr: cr, i: i, t: cr.c.Turns[i], run: cr.turns[i], cs: cs, dscore: dscore}
	ts.describe()
	p.rep.Overall.Turns++
	dscore.Turns++
	ts.outcome()
	ts.routing()
	ts.sequence()
	ts.fanOut()
	ts.acknowledgment()
	ts.answer()
	ts.leakage()
	return ts.tr
}

// describe fills what the turn did: the sub-agents it reached, its reply and routing record.
func (ts *turnScoring) describe() {
	out := ts.run.out
	d := out.Decision
	ts.inv = uniq(out.Invoked())
	ts.cap = ts.scorer.cap
	if d != nil && d.Cap > 0 {
		ts.cap = d.Cap
	}
	ts.tr = TurnReport{
		Index: ts.i + 1, Message: ts.t.Message, Expected: ts.t.Expect, Invoked: ts.inv, Outcome: out.Outcome,
		Reply: out.Visible(), LatencyMS: millis(out.Latency), OverCap: overCap(ts.t.Expect, ts.cap),
		JudgeScore: ts.run.judge,
	}
	if d != nil {
		ts.tr.Dropped, ts.tr.IntentCount = d.Dropped, d.IntentCount
		for _, a := range d.Agents {
			ts.tr.Agents = append(ts.tr.Agents, AgentReport{Agent: a.Agent, Outcome: string(a.Outcome), LatencyMS: millis(a.Latency), Tools: a.Tools})
			for _, tool := range a.Tools {
				ts.tools = append(ts.tools, a.Agent+"."+tool)
			}
		}
	}
}

// outcome counts a turn that did not run as an error, and the latency and no-route figures of
// one that did.
func (ts *turnScoring) outcome() {
	if err := ts.run.err; err != nil {
		ts.rep.Overall.Errors++
		ts.tr.Error = err.Error()
		if !errors.Is(err, errNotRun) { // the failing turn (or the case) says why
			ts.fail(FailError, ts.tr.Error)
		}
		return
	}
	ts.latencies = append(ts.latencies, ts.run.out.Latency)
	if len(ts.t.Expect) == 0 {
		ts.noRouteExpected++
	}
	if len(ts.inv) == 0 {
		ts.noRoutePredicted++
		if len(ts.t.Expect) == 0 {
			ts.noRouteBoth++
		}
	}
}

// routing scores whether the turn reached the sub-agents it expected, overall, per vertical
// and in the confusion matrix.
func (ts *turnScoring) routing() {
	expect, inv, ran := ts.t.Expect, ts.inv, ts.run.err == nil
	ts.tr.RoutingCorrect = ran && routingCorrect(expect, inv, ts.cap)
	ts.routed.add(ts.tr.RoutingCorrect)
	if ts.tr.RoutingCorrect {
		ts.dsCorrect[ts.cr.dataset.Name]++
	} else if ran {
		ts.fail(FailRouting, routingMessage(expect, inv, ts.cap))
	}
	for _, id := range ts.ids {
		ts.counts[id].add(id, expect, inv, ts.cap)
	}
	ts.conf.add(expect, inv, ts.cap)
}

// sequence scores a turn that expects one sub-agent after a turn that expected one: an intent
// switch when the two differ, a follow-up when they are the same.
func (ts *turnScoring) sequence() {
	if ts.i == 0 {
		return
	}
	prev, expect := ts.cr.c.Turns[ts.i-1].Expect, ts.t.Expect
	switch {
	case len(prev) != 1 || len(expect) != 1:
	case prev[0] != expect[0]:
		ts.tr.IntentSwitch = true
		ts.switches.add(ts.tr.RoutingCorrect)
	default:
		ts.tr.FollowUp = true
		ts.follow.add(ts.tr.RoutingCorrect)
	}
}

// fanOut scores a turn that expects several sub-agents: whether it asked them all at once,
// within the cap.
func (ts *turnScoring) fanOut() {
	if len(ts.t.Expect) < 2 {
		return
	}
	why := fanOutCheck(ts.t.Expect, ts.inv, ts.cap, ts.run.out.Decision)
	if ts.run.err != nil {
		why = "turn did not run"
	}
	ok := why == ""
	ts.tr.FanOut = &ok
	ts.fannedOut.add(ok)
	if !ok && ts.run.err == nil && ts.tr.RoutingCorrect {
		// A routing failure already explains a wrong set; report what routing cannot.
		ts.fail(FailFanOut, why)
	}
}

// acknowledgment scores a turn whose sub-agents fail: whether its reply says so.
func (ts *turnScoring) acknowledgment() {
	if len(ts.t.AcknowledgeFailure) == 0 {
		return
	}
	missing := ts.t.AcknowledgeFailure
	if ts.run.err == nil {
		missing = ts.ack.missing(ts.run.out.Visible(), ts.t.AcknowledgeFailure)
	}
	ok := len(missing) == 0
	ts.tr.Acknowledged = &ok
	ts.acks.add(ok)
	if !ok && ts.run.err == nil {
		ts.fail(FailAcknowledgment, fmt.Sprintf("the reply does not acknowledge in words that %s was unavailable", strings.Join(missing, ", ")))
	}
}

// answer scores a turn that asserts on its reply (reply_mentions, reply_excludes), overall,
// per dataset and per vertical.
func (ts *turnScoring) answer() {
	t, tr := ts.t, &ts.tr
	if !t.AssertsReply() {
		return
	}
	tr.ReplyMissing = t.ReplyMentions // a turn that did not run said nothing
	if ts.run.err == nil {
		tr.ReplyMissing, tr.ReplyPresent = checkAnswer(ts.run.out.Visible(), t.ReplyMentions, t.ReplyExcludes)
	}
	ok := ts.run.err == nil && len(tr.ReplyMissing) == 0 && len(tr.ReplyPresent) == 0
	tr.AnswerCorrect = &ok
	ts.dscore.AnswerTurns++
	ts.answers.add(ok)
	if ok {
		ts.dsAnswered[ts.cr.dataset.Name]++
	} else if ts.run.err == nil {
		ts.fail(FailAnswer, answerMessage(tr.ReplyMissing, tr.ReplyPresent))
	}
	for _, v := range answerVerticals(t.Expect) {
		a := ts.rep.Answers[v]
		a.Turns++
		if ok {
			a.Passed++
		}
		a.Accuracy = ratioOr(a.Passed, a.Turns, 0)
		ts.rep.Answers[v] = a
	}
}

// leakage reports what the turn's events, and its stored reply, show that no user may see.
func (ts *turnScoring) leakage() {
	out := ts.run.out
	for _, h := range ts.leaks.check(append(out.Events, storedEvent(out.Stored))) {
		ts.tr.Leaks++
		ts.rep.LeakFindings = append(ts.rep.LeakFindings, Leak{Dataset: ts.cr.dataset.Name, Case: ts.cr.c.ID, Turn: ts.i + 1, Event: h.event, EventID: h.eventID, Kind: h.kind, Match: h.match})
		ts.fail(FailLeak, fmt.Sprintf("%s in %s event: %q", h.kind, h.event, h.match))
	}
}

// finish computes the overall figures from the counts and returns the report.
func (p *pass) finish() *Report {
	o := &p.rep.Overall
	o.RoutingAccuracy = p.routed.ratio()
	o.NoRoutePrecision, o.NoRouteRecall = ratioOr(p.noRouteBoth, p.noRoutePredicted, 0), ratioOr(p.noRouteBoth, p.noRouteExpected, 0)
	o.NoRouteTurns, o.NoRouteAnswered = p.noRouteExpected, p.noRoutePredicted
	o.IntentSwitchAccuracy, o.IntentSwitchTurns = p.switches.ratio(), p.switches.n
	o.FollowUpAccuracy, o.FollowUpTurns = p.follow.ratio(), p.follow.n
	o.FanOutAccuracy, o.FanOutTurns = p.fannedOut.ratio(), p.fannedOut.n
	o.FailureAckRate, o.FailureAckTurns = p.acks.ratio(), p.acks.n
	o.AnswerAccuracy, o.AnswerTurns = p.answers.ratio(), p.answers.n
	for id, c := range p.counts {
		p.rep.Verticals[id] = c.score()
	}
	p.rep.Confusion = p.conf.matrix()
	p.rep.Leaks = len(p.rep.LeakFindings)
	p.rep.LatencyMS = summarizeLatency(p.latencies)
	return p.rep
}

// answerVerticals are the verticals a turn's answer counts for: every sub-agent it expected,
// or "none" when the orchestrator should answer by itself.
func answerVerticals(expect []string) []string {
	if len(expect) == 0 {
		return []string{noneLabel}
	}
	return expect
}

func routingMessage(expect, invoked []string, cap int) string {
	if overCap(expect, cap) {
		return fmt.Sprintf("expected up to %d of %s, invoked %s", cap, setString(expect), setString(invoked))
	}
	return fmt.Sprintf("expected %s, invoked %s", setString(expect), setString(invoked))
}

// setString renders ids as {a, b}, or {} for none.
func setString(ids []string) string { return "{" + strings.Join(ids, ", ") + "}" }

// storedEvent presents the stored reply to the leak checker as the event a later reader gets.
func storedEvent(reply string) Event {
	data, _ := json.Marshal(map[string]string{"reply": reply})
	return Event{Name: "stored turn", Data: data}
}
