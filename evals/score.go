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
	rep := &Report{
		SchemaVersion: SchemaVersion,
		Verticals:     map[string]VerticalScore{},
		Answers:       map[string]AnswerScore{},
		Datasets:      map[string]DatasetScore{},
		LeakFindings:  []Leak{},
		Failures:      []Failure{},
		Cases:         []CaseReport{},
	}
	counts := map[string]*verticalCounts{}
	for _, id := range s.ids {
		counts[id] = &verticalCounts{}
	}
	conf := newConfusion(s.ids)
	var (
		latencies                                                             []time.Duration
		correct, switches, switchOK, followUps, followUpOK, fanouts, fanoutOK int
		acks, ackOK, answers, answerOK                                        int
		noRouteExpected, noRoutePredicted, noRouteBoth                        int
		dsCorrect                                                             = map[string]int{}
		dsAnswered                                                            = map[string]int{}
	)
	for _, cr := range runs {
		ds := cr.dataset.Name
		cs := CaseReport{Dataset: ds, ID: cr.c.ID, User: cr.c.User, Faults: cr.c.Faults, Passed: true, Turns: []TurnReport{}}
		if cr.err != nil {
			cs.Error = cr.err.Error()
			cs.Passed = false
			rep.Failures = append(rep.Failures, Failure{Dataset: ds, Case: cr.c.ID, Kind: FailError, Message: cs.Error, Expected: []string{}, Invoked: []string{}})
		}
		dscore := rep.Datasets[ds]
		dscore.File, dscore.Cases = cr.dataset.File, dscore.Cases+1
		for i, t := range cr.c.Turns {
			run := cr.turns[i]
			fail := func(kind, msg string, inv []string) {
				cs.Passed = false
				rep.Failures = append(rep.Failures, Failure{
					Dataset: ds, Case: cr.c.ID, Turn: i + 1, Kind: kind, Message: msg, User: t.Message,
					Expected: t.Expect, Invoked: inv, Reply: clip(run.out.Visible(), 400),
				})
			}
			d := run.out.Decision
			inv := uniq(run.out.Invoked())
			cap := s.cap
			if d != nil && d.Cap > 0 {
				cap = d.Cap
			}
			tr := TurnReport{
				Index: i + 1, Message: t.Message, Expected: t.Expect, Invoked: inv, Outcome: run.out.Outcome,
				Reply: run.out.Visible(), LatencyMS: millis(run.out.Latency), OverCap: overCap(t.Expect, cap),
				JudgeScore: run.judge,
			}
			if d != nil {
				tr.Dropped, tr.IntentCount = d.Dropped, d.IntentCount
				for _, a := range d.Agents {
					tr.Agents = append(tr.Agents, AgentReport{Agent: a.Agent, Outcome: string(a.Outcome), LatencyMS: millis(a.Latency)})
				}
			}
			rep.Overall.Turns++
			dscore.Turns++
			if run.err != nil {
				rep.Overall.Errors++
				tr.Error = run.err.Error()
				if !errors.Is(run.err, errNotRun) { // the failing turn (or the case) says why
					fail(FailError, tr.Error, inv)
				}
			} else {
				latencies = append(latencies, run.out.Latency)
			}
			if run.err == nil {
				// No-route: the turns that expected nobody, and the turns that reached nobody.
				if len(t.Expect) == 0 {
					noRouteExpected++
				}
				if len(inv) == 0 {
					noRoutePredicted++
					if len(t.Expect) == 0 {
						noRouteBoth++
					}
				}
			}
			tr.RoutingCorrect = run.err == nil && routingCorrect(t.Expect, inv, cap)
			if tr.RoutingCorrect {
				correct++
				dsCorrect[ds]++
			} else if run.err == nil {
				fail(FailRouting, routingMessage(t.Expect, inv, cap), inv)
			}
			for _, id := range s.ids {
				counts[id].add(id, t.Expect, inv, cap)
			}
			conf.add(t.Expect, inv, cap)

			if i > 0 {
				prev := cr.c.Turns[i-1].Expect
				switch {
				case len(prev) != 1 || len(t.Expect) != 1:
				case prev[0] != t.Expect[0]:
					tr.IntentSwitch = true
					switches++
					if tr.RoutingCorrect {
						switchOK++
					}
				default:
					tr.FollowUp = true
					followUps++
					if tr.RoutingCorrect {
						followUpOK++
					}
				}
			}
			if len(t.Expect) >= 2 {
				fanouts++
				why := fanOutCheck(t.Expect, inv, cap, d)
				if run.err != nil {
					why = "turn did not run"
				}
				ok := why == ""
				tr.FanOut = &ok
				if ok {
					fanoutOK++
				} else if run.err == nil && tr.RoutingCorrect {
					// A routing failure already explains a wrong set; report what routing cannot.
					fail(FailFanOut, why, inv)
				}
			}
			if len(t.AcknowledgeFailure) > 0 {
				acks++
				missing := t.AcknowledgeFailure
				if run.err == nil {
					missing = s.ack.missing(run.out.Visible(), t.AcknowledgeFailure)
				}
				ok := len(missing) == 0
				tr.Acknowledged = &ok
				if ok {
					ackOK++
				} else if run.err == nil {
					fail(FailAcknowledgment, fmt.Sprintf("the reply does not acknowledge in words that %s was unavailable", strings.Join(missing, ", ")), inv)
				}
			}
			if t.AssertsReply() {
				answers++
				tr.ReplyMissing = t.ReplyMentions // a turn that did not run said nothing
				if run.err == nil {
					tr.ReplyMissing, tr.ReplyPresent = checkAnswer(run.out.Visible(), t.ReplyMentions, t.ReplyExcludes)
				}
				ok := run.err == nil && len(tr.ReplyMissing) == 0 && len(tr.ReplyPresent) == 0
				tr.AnswerCorrect = &ok
				dscore.AnswerTurns++
				if ok {
					answerOK++
					dsAnswered[ds]++
				} else if run.err == nil {
					fail(FailAnswer, answerMessage(tr.ReplyMissing, tr.ReplyPresent), inv)
				}
				for _, v := range answerVerticals(t.Expect) {
					a := rep.Answers[v]
					a.Turns++
					if ok {
						a.Passed++
					}
					a.Accuracy = ratioOr(a.Passed, a.Turns, 0)
					rep.Answers[v] = a
				}
			}
			for _, h := range s.leaks.check(append(run.out.Events, storedEvent(run.out.Stored))) {
				tr.Leaks++
				rep.LeakFindings = append(rep.LeakFindings, Leak{Dataset: ds, Case: cr.c.ID, Turn: i + 1, Event: h.event, EventID: h.eventID, Kind: h.kind, Match: h.match})
				fail(FailLeak, fmt.Sprintf("%s in %s event: %q", h.kind, h.event, h.match), inv)
			}
			cs.Turns = append(cs.Turns, tr)
		}
		if cs.Passed {
			rep.Overall.CasesPassed++
			dscore.CasesPassed++
		}
		dscore.RoutingAccuracy = ratioOr(dsCorrect[ds], dscore.Turns, 0)
		dscore.AnswerAccuracy = ratioOr(dsAnswered[ds], dscore.AnswerTurns, 0)
		rep.Datasets[ds] = dscore
		rep.Overall.Cases++
		rep.Cases = append(rep.Cases, cs)
	}
	rep.Overall.RoutingAccuracy = ratioOr(correct, rep.Overall.Turns, 0)
	rep.Overall.NoRoutePrecision, rep.Overall.NoRouteRecall = ratioOr(noRouteBoth, noRoutePredicted, 0), ratioOr(noRouteBoth, noRouteExpected, 0)
	rep.Overall.NoRouteTurns, rep.Overall.NoRouteAnswered = noRouteExpected, noRoutePredicted
	rep.Overall.IntentSwitchAccuracy, rep.Overall.IntentSwitchTurns = ratioOr(switchOK, switches, 0), switches
	rep.Overall.FollowUpAccuracy, rep.Overall.FollowUpTurns = ratioOr(followUpOK, followUps, 0), followUps
	rep.Overall.FanOutAccuracy, rep.Overall.FanOutTurns = ratioOr(fanoutOK, fanouts, 0), fanouts
	rep.Overall.FailureAckRate, rep.Overall.FailureAckTurns = ratioOr(ackOK, acks, 0), acks
	rep.Overall.AnswerAccuracy, rep.Overall.AnswerTurns = ratioOr(answerOK, answers, 0), answers
	for id, c := range counts {
		rep.Verticals[id] = c.score()
	}
	rep.Confusion = conf.matrix()
	rep.Leaks = len(rep.LeakFindings)
	rep.LatencyMS = summarizeLatency(latencies)
	return rep
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
