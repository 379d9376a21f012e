package evals

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// SchemaVersion is the version of report.json's shape. Fields are only ever added within a
// version; renaming or removing one, or changing what one means, bumps it. (The answer
// fields were added within version 1: every earlier field still means what it meant, and a
// case without reply assertions passes or fails exactly as before.)
const SchemaVersion = 1

// Report is the result of an eval run and the content of report.json. Its JSON shape is a
// stable contract: other tools parse it.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	GeneratedAt   time.Time `json:"generated_at"`
	// Model describes the model(s) that answered, as the caller configured them.
	Model    string   `json:"model,omitempty"`
	Target   string   `json:"target,omitempty"`
	Settings Settings `json:"settings"`

	Overall   Overall                  `json:"overall"`
	Verticals map[string]VerticalScore `json:"verticals"`
	Datasets  map[string]DatasetScore  `json:"datasets"`
	Confusion Confusion                `json:"confusion"`

	// Answers is answer accuracy per vertical: over the turns with reply assertions, keyed by
	// each sub-agent the turn expected, or "none" for turns expecting none. Only verticals
	// with such turns appear.
	Answers map[string]AnswerScore `json:"answers"`

	// Leaks counts internal details found in events (see LeakFindings).
	Leaks        int          `json:"leaks"`
	LeakFindings []Leak       `json:"leak_findings"`
	Failures     []Failure    `json:"failures"`
	LatencyMS    Latency      `json:"latency_ms"`
	Judge        JudgeSummary `json:"judge"`
	Coverage     Coverage     `json:"coverage"`
	// MissingWords are, per sub-agent, words users said in turns that should have reached it
	// and did not, which its description and examples never use: candidates to add.
	MissingWords map[string][]MissingWord `json:"missing_words,omitempty"`
	// GateResults are the pass/fail gates; see [Report.Gates].
	GateResults []GateResult `json:"gates"`
	// Baseline compares this run with an earlier report, when one was given.
	Baseline *BaselineDiff `json:"baseline,omitempty"`
	Cases    []CaseReport  `json:"cases"`
}

// Settings are the knobs the run used.
type Settings struct {
	Datasets     []string `json:"datasets"`
	SubAgents    []string `json:"sub_agents"`
	FanOutCap    int      `json:"fan_out_cap"`
	Concurrency  int      `json:"concurrency"`
	MinAccuracy  float64  `json:"min_accuracy"`
	CoverageGate bool     `json:"coverage_gate"`
	DurationMS   int64    `json:"duration_ms"`

	// MinAnswer is the answer-accuracy threshold; 0 when answers do not gate.
	MinAnswer float64 `json:"min_answer,omitempty"`
}

// Overall are the headline numbers. Rates are in [0, 1]; a rate whose denominator is zero is
// 0 with its count 0.
type Overall struct {
	Cases       int `json:"cases"`
	CasesPassed int `json:"cases_passed"`
	Turns       int `json:"turns"`
	// RoutingAccuracy is the share of turns routed to exactly the expected set.
	RoutingAccuracy float64 `json:"routing_accuracy"`
	// NoRoutePrecision is the share of turns the orchestrator answered by itself (reaching no
	// sub-agent) that expected none; NoRouteRecall the share of turns expecting none that
	// reached none. NoRouteAnswered and NoRouteTurns are their denominators.
	NoRoutePrecision float64 `json:"no_route_precision"`
	NoRouteRecall    float64 `json:"no_route_recall"`
	NoRouteAnswered  int     `json:"no_route_answered"`
	NoRouteTurns     int     `json:"no_route_turns"`
	// IntentSwitchAccuracy is RoutingAccuracy over the turns whose single expected sub-agent
	// differs from the previous turn's.
	IntentSwitchAccuracy float64 `json:"intent_switch_accuracy"`
	IntentSwitchTurns    int     `json:"intent_switch_turns"`
	// FollowUpAccuracy is RoutingAccuracy over the turns whose single expected sub-agent is
	// the previous turn's: follow-ups, which often name no subject of their own ("when is it
	// due?") and must stay where the conversation is.
	FollowUpAccuracy float64 `json:"follow_up_accuracy"`
	FollowUpTurns    int     `json:"follow_up_turns"`
	// FanOutAccuracy is the share of multi-intent turns that reached every expected
	// sub-agent (the cap's worth when over it), stayed within the cap and ran them concurrently.
	FanOutAccuracy float64 `json:"fan_out_accuracy"`
	FanOutTurns    int     `json:"fan_out_turns"`
	// FailureAckRate is the share of turns with acknowledge_failure whose reply acknowledged
	// every failing sub-agent in words.
	FailureAckRate  float64 `json:"failure_ack_rate"`
	FailureAckTurns int     `json:"failure_ack_turns"`
	// AnswerAccuracy is the share of turns with reply_mentions or reply_excludes whose reply
	// met all of them; AnswerTurns is that number of turns.
	AnswerAccuracy float64 `json:"answer_accuracy"`
	AnswerTurns    int     `json:"answer_turns"`
	// Errors counts turns the target could not run (transport, protocol).
	Errors int `json:"errors"`
}

// AnswerScore is one vertical's answer accuracy: Passed of Turns turns with reply assertions
// met all of them.
type AnswerScore struct {
	Turns    int     `json:"turns"`
	Passed   int     `json:"passed"`
	Accuracy float64 `json:"accuracy"`
}

// VerticalScore is one sub-agent's routing quality over the turns that expected or reached
// it (Turns). Accuracy is TP/(TP+FP+FN): the share of those turns where it was both expected
// and reached, so each mistake is charged to the sub-agent that made it. A sub-agent left out
// of a turn because of the fan-out cap is not a miss. Precision and recall are 1 when their
// denominator is zero; Turns says whether anything was measured.
type VerticalScore struct {
	Turns     int     `json:"turns"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	Accuracy  float64 `json:"accuracy"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
}

// DatasetScore is one dataset's share of the numbers.
type DatasetScore struct {
	File            string  `json:"file"`
	Cases           int     `json:"cases"`
	CasesPassed     int     `json:"cases_passed"`
	Turns           int     `json:"turns"`
	RoutingAccuracy float64 `json:"routing_accuracy"`
	// AnswerAccuracy is over AnswerTurns, the dataset's turns with reply assertions.
	AnswerAccuracy float64 `json:"answer_accuracy"`
	AnswerTurns    int     `json:"answer_turns"`
}

// Confusion is expected (rows) against invoked (columns) sub-agents, "none" included.
type Confusion struct {
	Labels []string `json:"labels"`
	Matrix [][]int  `json:"matrix"`
}

// Latency summarises turn latencies in milliseconds, from sending a message to turn.completed.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Failure kinds.
const (
	FailRouting        = "routing"
	FailFanOut         = "fan_out"
	FailAcknowledgment = "acknowledgment"
	FailLeak           = "leak"
	FailAnswer         = "answer"
	FailError          = "error"
)

// Failure is one check a turn failed.
type Failure struct {
	Dataset  string   `json:"dataset"`
	Case     string   `json:"case"`
	Turn     int      `json:"turn"` // 1-based; 0 for the case as a whole
	Kind     string   `json:"kind"`
	Message  string   `json:"message"`
	User     string   `json:"user,omitempty"` // what the user typed
	Expected []string `json:"expected"`
	Invoked  []string `json:"invoked"`
	// Tools are the tools the invoked sub-agents called, each as agent.tool, in call order.
	Tools []string `json:"tools,omitempty"`
	Reply string   `json:"reply,omitempty"`
}

// InvokedVia is the sub-agents the failed turn reached and the tools they called, as the
// reports show them: "{support} via support.list_recent_orders".
func (f Failure) InvokedVia() string {
	s := setString(f.Invoked)
	if len(f.Tools) > 0 {
		s += " via " + strings.Join(f.Tools, ", ")
	}
	return s
}

// CaseReport is one case as it ran.
type CaseReport struct {
	Dataset string               `json:"dataset"`
	ID      string               `json:"id"`
	User    string               `json:"user"`
	Faults  map[string]FaultKind `json:"faults,omitempty"`
	Passed  bool                 `json:"passed"`
	Error   string               `json:"error,omitempty"`
	Turns   []TurnReport         `json:"turns"`
}

// TurnReport is one turn as it ran and how it scored.
type TurnReport struct {
	Index          int           `json:"index"` // 1-based
	Message        string        `json:"message"`
	Expected       []string      `json:"expected"`
	Invoked        []string      `json:"invoked"`
	Dropped        []string      `json:"dropped,omitempty"`
	IntentCount    int           `json:"intent_count"`
	Agents         []AgentReport `json:"agents,omitempty"`
	Outcome        string        `json:"outcome,omitempty"`
	Reply          string        `json:"reply"`
	LatencyMS      float64       `json:"latency_ms"`
	RoutingCorrect bool          `json:"routing_correct"`
	IntentSwitch   bool          `json:"intent_switch,omitempty"`
	FollowUp       bool          `json:"follow_up,omitempty"`
	OverCap        bool          `json:"over_cap,omitempty"`
	FanOut         *bool         `json:"fan_out_correct,omitempty"`
	Acknowledged   *bool         `json:"acknowledged,omitempty"`
	Leaks          int           `json:"leaks,omitempty"`
	JudgeScore     int           `json:"judge_score,omitempty"`
	Error          string        `json:"error,omitempty"`

	// AnswerCorrect is set on turns with reply assertions: whether the reply met them all.
	// ReplyMissing and ReplyPresent are the mentions it lacked and the excluded phrases it had.
	AnswerCorrect *bool    `json:"answer_correct,omitempty"`
	ReplyMissing  []string `json:"reply_missing,omitempty"`
	ReplyPresent  []string `json:"reply_present,omitempty"`
}

// AgentReport is one invoked sub-agent's outcome in a turn.
type AgentReport struct {
	Agent     string  `json:"agent"`
	Outcome   string  `json:"outcome"`
	LatencyMS float64 `json:"latency_ms"`
	// Tools are the sub-agent's tools it called, in call order: which data its answer came
	// from. Empty when it called none, or against a server whose routing record lacks them.
	Tools []string `json:"tools,omitempty"`
}

// Coverage is how the datasets cover ordered pairs of distinct sub-agents as consecutive
// single-intent turns.
type Coverage struct {
	PairsRequired int            `json:"pairs_required"`
	PairsCovered  int            `json:"pairs_covered"`
	Missing       []string       `json:"missing"`
	Counts        map[string]int `json:"counts"` // "a->b" -> consecutive occurrences
}

// LoadReport reads a report.json written by an earlier run.
func LoadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("evals: read report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("evals: report %s: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("evals: report %s has schema version %d, want %d", path, r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}
