package assembly

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/stream"
)

const (
	twoIntents     = "any deals on running shoes? and how many points do I have?"
	pointsQuestion = "how many points do I have?"
)

// Every metric the service exports is served at /metrics by the assembled service. The envelope
// counters and the cap counter read 0 before anything has happened (a missing series would
// read "no data" to the alerts), and move when their event happens.
func TestMetricsEndpointServesDesignMetrics(t *testing.T) {
	oa := newObservedApp(t, nil)
	tok := oa.token(t, "alice")

	zeros := map[string]float64{
		"switchboard_fanout_cap_exceeded_total":                         0,
		`ps6_envelope_principal_mismatch_total{consumer="switchboard"}`: 0,
		"ps6_envelope_version_mismatch_total":                           0,
		`switchboard_turns_total{outcome="ok"}`:                         0,
		`switchboard_turns_total{outcome="degraded"}`:                   0,
		`switchboard_turns_total{outcome="failed"}`:                     0,
		`switchboard_turns_total{outcome="cancelled"}`:                  0,
	}
	if diff := cmp.Diff(zeros, pick(oa.scrape(t), zeros)); diff != "" {
		t.Errorf("/metrics before any turn (-want +got):\n%s", diff)
	}

	if got := obsOutcome(t, oa.streamTurn(t, tok, "", twoIntents)); got != stream.OutcomeOK {
		t.Fatalf("two-intent turn outcome = %v, want ok", got)
	}

	oa.Demo.Inject("points.balance", ccsdemo.Fault{WrongPrincipal: true})
	oa.streamTurn(t, tok, "", pointsQuestion)
	afterMismatch := oa.scrape(t)
	if v := afterMismatch[`ps6_envelope_principal_mismatch_total{consumer="switchboard"}`]; v < 1 {
		t.Errorf(`ps6_envelope_principal_mismatch_total{consumer="switchboard"} = %v after a foreign envelope, want >= 1`, v)
	}
	if v, ok := afterMismatch["ps6_envelope_version_mismatch_total"]; !ok || v != 0 {
		t.Errorf("ps6_envelope_version_mismatch_total = %v (present %v) before any skew, want 0", v, ok)
	}

	oa.Demo.Clear()
	oa.Demo.Inject("points.balance", ccsdemo.Fault{MajorBump: true})
	oa.streamTurn(t, tok, "", pointsQuestion)
	final := oa.scrape(t)
	if v := final["ps6_envelope_version_mismatch_total"]; v < 1 {
		t.Errorf("ps6_envelope_version_mismatch_total = %v after a major bump, want >= 1", v)
	}

	// Each exported metric name, by the series it is exposed as (histograms as _count), with
	// the labels the design gives it.
	for _, tc := range []struct {
		metric string
		series string // metric family as it appears in the exposition
		labels []string
	}{
		{"switchboard_turns_total", "switchboard_turns_total", []string{"outcome"}},
		{"switchboard_turn_duration_seconds", "switchboard_turn_duration_seconds_count", nil},
		{"switchboard_intent_count", "switchboard_intent_count_count", nil},
		{"switchboard_fanout_cap_exceeded_total", "switchboard_fanout_cap_exceeded_total", nil},
		{"switchboard_subagent_duration_seconds", "switchboard_subagent_duration_seconds_count", []string{"agent"}},
		{"switchboard_subagent_outcomes_total", "switchboard_subagent_outcomes_total", []string{"agent", "outcome"}},
		{"switchboard_dispatch_overhead_seconds", "switchboard_dispatch_overhead_seconds_count", nil},
		{"switchboard_status_events_total", "switchboard_status_events_total", []string{"agent", "event", "policy"}},
		{"ps6_envelope_principal_mismatch_total", "ps6_envelope_principal_mismatch_total", []string{"consumer"}},
		{"ps6_envelope_version_mismatch_total", "ps6_envelope_version_mismatch_total", nil},
	} {
		t.Run(tc.metric, func(t *testing.T) {
			keys := seriesOf(final, tc.series)
			if len(keys) == 0 {
				t.Fatalf("/metrics has no %s series", tc.series)
			}
			for _, k := range keys {
				if diff := cmp.Diff(tc.labels, labelNames(k)); diff != "" {
					t.Errorf("%s label names (-want +got):\n%s", k, diff)
				}
			}
		})
	}

	want := map[string]float64{
		"switchboard_turn_duration_seconds_count":                                    3,
		"switchboard_intent_count_count":                                             3,
		"switchboard_intent_count_sum":                                               4,
		"switchboard_dispatch_overhead_seconds_count":                                3,
		"switchboard_fanout_cap_exceeded_total":                                      0,
		`switchboard_subagent_outcomes_total{agent="shop",outcome="ok"}`:             1,
		`switchboard_subagent_outcomes_total{agent="rewards",outcome="ok"}`:          1,
		`switchboard_subagent_outcomes_total{agent="rewards",outcome="unavailable"}`: 2,
		`switchboard_subagent_duration_seconds_count{agent="shop"}`:                  1,
		`switchboard_subagent_duration_seconds_count{agent="rewards"}`:               3,
	}
	if diff := cmp.Diff(want, pick(final, want)); diff != "" {
		t.Errorf("/metrics after three turns (-want +got):\n%s", diff)
	}
	if n, _ := metricFamily(final, "switchboard_turns_total"); n != 3 {
		t.Errorf("switchboard_turns_total summed over outcomes = %v, want 3", n)
	}
	if n, _ := metricFamily(final, "switchboard_status_events_total"); n < 3 {
		t.Errorf("switchboard_status_events_total summed = %v, want >= 3 (one per sub-agent invocation at least)", n)
	}
	if s := final[`ps6_envelope_principal_mismatch_total{consumer="switchboard"}`]; s != afterMismatch[`ps6_envelope_principal_mismatch_total{consumer="switchboard"}`] {
		t.Errorf("principal mismatch counter moved on the version-skew turn: %v -> %v", afterMismatch[`ps6_envelope_principal_mismatch_total{consumer="switchboard"}`], s)
	}
}

// Nothing secret or personal reaches an exported span or a log line: not the bearer token,
// not the turn token of an events_url, not a configured API key or the auth secret, and not
// CCS payload, neither the user's own nor another user's that a faulty CCS sent.
func TestSpansAndLogsCarryNoSecretsOrPayload(t *testing.T) {
	const apiKey = "sk-test-SECRET-123456"
	const hsSecret = "test-secret-test-secret-test-secret!"
	oa := newObservedApp(t, func(c *config.Config) {
		c.Models["leaky"] = llm.ModelConfig{Provider: "openai", Model: "x", BaseURL: "http://127.0.0.1:1/v1", APIKey: apiKey}
	}, apiKey, hsSecret) // as cmd's secretsOf lists them
	tok := oa.token(t, "alice")

	// A clean two-intent turn, streamed on the POST itself.
	events := oa.streamTurn(t, tok, "", twoIntents)
	reply := replyOf(t, events)

	// The same over events_url with its turn token, while the CCS answers points.balance with
	// bob's data: suppressed, counted, logged as a security alert.
	oa.Demo.Inject("points.balance", ccsdemo.Fault{WrongPrincipal: true})
	resp := oa.do(t, http.MethodPost, "/v1/turns", tok, map[string]string{"message": twoIntents}, nil)
	var created map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/turns = %d, %v", resp.StatusCode, err)
	}
	eventsURL, err := url.Parse(created["events_url"])
	if err != nil {
		t.Fatal(err)
	}
	var turnToken string
	for _, v := range eventsURL.Query() {
		turnToken = v[0]
	}
	if len(turnToken) < 16 {
		t.Fatalf("events_url %q carries no turn token", created["events_url"])
	}
	faulted := oa.do(t, http.MethodGet, created["events_url"], "", nil, nil)
	var faultedReply string
	for ev, err := range stream.ReadEvents(faulted.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Name == "reply.completed" {
			faultedReply = decode[stream.ReplyCompleted](t, ev).Text
		}
		if ev.Name == "turn.completed" {
			break
		}
	}

	// Controls: alice's data did flow through the turn, so its absence below means something.
	aliceData := []*regexp.Regexp{
		regexp.MustCompile(`Nike Pegasus 41`), regexp.MustCompile(`Brooks Ghost 16`),
		regexp.MustCompile(`\b12,?450\b`),
	}
	for _, re := range aliceData {
		if !re.MatchString(reply) {
			t.Fatalf("reply does not carry %s, the control for this test: %q", re, reply)
		}
	}
	bobData := []*regexp.Regexp{regexp.MustCompile(`\b48,?900\b`), regexp.MustCompile(`Sony WH-1000XM5`)}
	for _, re := range bobData {
		if re.MatchString(faultedReply) {
			t.Errorf("another user's data %s reached alice's reply: %q", re, faultedReply)
		}
	}

	literal := func(s string) *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(s)) }
	needles := append([]*regexp.Regexp{
		literal(tok), literal(tok[strings.LastIndexByte(tok, '.')+1:]), // the token, and its signature alone
		literal(turnToken), literal(apiKey), literal(hsSecret),
	}, append(aliceData, bobData...)...)

	spans := oa.spans.GetSpans()
	if len(spans) < 10 {
		t.Fatalf("%d spans exported for two fan-out turns, want at least 10", len(spans))
	}
	for _, s := range spans {
		text := obsSpanText(s)
		for _, re := range needles {
			if re.MatchString(text) {
				t.Errorf("span %q carries %s:\n%s", s.Name, re, text)
			}
		}
	}
	lines := oa.logs.lines(t)
	if !containsMsg(lines, "security alert") {
		t.Fatalf("no security alert logged for the foreign envelope; log:\n%s", oa.logs.String())
	}
	for _, l := range lines {
		for _, re := range needles {
			if re.MatchString(l.raw) {
				t.Errorf("log line carries %s: %s", re, l.raw)
			}
		}
	}
}

// Every log line written in a turn's context names the turn and its trace, so an operator can
// go from an alert to the trace: the CCS warning and the security alert of faulty calls here.
func TestTurnLogLinesCarryTurnAndTraceIDs(t *testing.T) {
	oa := newObservedApp(t, nil)
	oa.Demo.Inject("offers.search", ccsdemo.Fault{HTTPStatus: http.StatusServiceUnavailable})
	oa.Demo.Inject("points.balance", ccsdemo.Fault{WrongPrincipal: true})
	events := oa.streamTurn(t, oa.token(t, "alice"), "", twoIntents)
	id := obsTurnID(t, events)
	traceID := oa.turnSpan(t, id).SpanContext.TraceID().String()

	msgs := map[string]bool{}
	for _, l := range oa.logs.lines(t) {
		if l.str("turn_id") != id || strings.Contains(l.str("msg"), "event stream") {
			continue // a stream's lines belong to the client's request and carry its trace, if any
		}
		msgs[l.str("msg")] = true
		if got := l.str("trace_id"); got != traceID {
			t.Errorf("log line of turn %s has trace_id %q, want %s: %s", id, got, traceID, l.raw)
		}
		if l.str("span_id") == "" {
			t.Errorf("log line of turn %s has no span_id: %s", id, l.raw)
		}
	}
	for _, want := range []string{"ccs call failed", "security alert: ccs envelope failed principal verification"} {
		if !msgs[want] {
			t.Errorf("no %q line with turn_id %s; lines of the turn: %v\n%s", want, id, msgs, oa.logs.String())
		}
	}
}

// A turn started with a W3C traceparent joins the caller's trace: its span, and every span
// under it, carry the incoming trace id, with the caller's span as the remote parent. An
// upstream "not sampled" decision is honoured outside dev mode.
func TestTraceparentBecomesTurnSpanParent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flags    string
		exported bool
	}{
		{"sampled", "01", true},
		{"not sampled", "00", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oa := newObservedApp(t, nil)
			const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			resp := oa.do(t, http.MethodPost, "/v1/turns", oa.token(t, "alice"), map[string]string{"message": twoIntents}, map[string]string{
				"Accept": "text/event-stream", "traceparent": "00-" + traceID + "-" + parentID + "-" + tc.flags,
			})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("POST /v1/turns = %d", resp.StatusCode)
			}
			var events []stream.WireEvent
			for ev, err := range stream.ReadEvents(resp.Body) {
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, ev)
				if ev.Name == "turn.completed" {
					break
				}
			}
			id := obsTurnID(t, events)
			if got := obsOutcome(t, events); got != stream.OutcomeOK {
				t.Errorf("turn outcome = %v, want ok", got)
			}

			var ofTurn int
			for _, s := range oa.spans.GetSpans() {
				if obsSpanAttr(s.Attributes, "switchboard.turn_id") != id {
					continue
				}
				ofTurn++
				if got := s.SpanContext.TraceID().String(); got != traceID {
					t.Errorf("span %q trace id = %s, want the incoming %s", s.Name, got, traceID)
				}
				if s.Name != "switchboard.turn" {
					continue
				}
				want := trace.SpanContextConfig{TraceID: mustTraceID(t, traceID), SpanID: mustSpanID(t, parentID), TraceFlags: trace.FlagsSampled, Remote: true}
				if got := s.Parent; !got.Equal(trace.NewSpanContext(want)) {
					t.Errorf("switchboard.turn parent = %v/%v remote %v, want %s/%s remote", got.TraceID(), got.SpanID(), got.IsRemote(), traceID, parentID)
				}
			}
			if exported := ofTurn > 0; exported != tc.exported {
				t.Errorf("%d spans of the turn exported, want exported = %v", ofTurn, tc.exported)
			}
			if tc.exported && ofTurn < 5 {
				t.Errorf("%d spans of the turn exported, want the turn, its LLM calls and both sub-agents", ofTurn)
			}
		})
	}
}

func mustTraceID(t *testing.T, s string) trace.TraceID {
	t.Helper()
	id, err := trace.TraceIDFromHex(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustSpanID(t *testing.T, s string) trace.SpanID {
	t.Helper()
	id, err := trace.SpanIDFromHex(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A stream that leaves its handler is logged twice: the access line, which covers the
// response head and says so, and a line when the stream ends, with how long it ran.
func TestDetachedStreamLogsItsEnd(t *testing.T) {
	oa := newObservedApp(t, nil)
	events := oa.streamTurn(t, oa.token(t, "alice"), "", twoIntents)
	id := obsTurnID(t, events)

	ended := oa.logs.waitLine(t, func(l obsLogLine) bool {
		return l.str("msg") == "event stream ended" && l.str("turn_id") == id
	})
	if ended.fields["completed"] != true || ended.fields["took"] == nil {
		t.Errorf("end-of-stream line = %s, want completed true and a took", ended.raw)
	}
	detached := false
	for _, l := range oa.logs.lines(t) {
		if l.str("msg") == "http" && l.str("method") == http.MethodPost && l.str("path") == "/v1/turns" && l.fields["stream_detached"] == true {
			detached = true
		}
	}
	if !detached {
		t.Errorf("no access line marked stream_detached for the events of %s:\n%s", id, oa.logs.String())
	}
}
