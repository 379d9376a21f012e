package evals

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Leak is one internal detail found in what a user received.
type Leak struct {
	Dataset string `json:"dataset"`
	Case    string `json:"case"`
	Turn    int    `json:"turn"` // 1-based
	Event   string `json:"event"`
	EventID uint64 `json:"event_id"`
	Kind    string `json:"kind"`
	Match   string `json:"match"`
}

// Leak kinds.
const (
	LeakErrorCode  = "error_code"
	LeakEnricherID = "enricher_id"
	LeakStackTrace = "stack_trace"
	LeakUpstream   = "upstream_detail"
	LeakHTTPStatus = "http_status"
	LeakJSON       = "json_in_text"
)

type leakPattern struct {
	kind string
	re   *regexp.Regexp
}

// leakPatterns are written independently of the server's own scrubber on purpose: the eval
// must catch what the guard misses, not agree with it by construction.
var leakPatterns = []leakPattern{
	{LeakErrorCode, regexp.MustCompile(`(?i)\b(?:principal_mismatch|missing_principal|status_error|version_mismatch|bad_signature|unknown_status)\b|(?i)\bstatus\s*[=:]\s*"?error\b`)},
	{LeakStackTrace, regexp.MustCompile(`goroutine \d+ \[|\b[\w./-]+\.go:\d+\b|\bpanic: |runtime error:|\[recovered\]|Traceback \(most recent call last\)|\bat [\w.$]+\([\w]+\.(?:java|kt|js|ts|py):\d+\)|\b[A-Z][A-Za-z]+(?:Exception|Error)\b`)},
	{LeakUpstream, regexp.MustCompile(`(?i)\bupstream (?:\d{3}|error|timeout)\b|\bretry budget\b|\bdeadline exceeded\b|\bdial tcp\b|\bconnection refused\b|\b\d{1,3}(?:\.\d{1,3}){3}:\d{2,5}\b|\btrace(?:_id)?[ =:]+[0-9a-f]{16,32}\b|\bcritical source\b`)},
	{LeakHTTPStatus, regexp.MustCompile(`(?i)\bHTTP(?:/\d(?:\.\d)?)? ?[1-5]\d\d\b|\b[45]\d\d (?:Bad Request|Unauthorized|Forbidden|Not Found|Request Timeout|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b|(?i)\bstatus code:? ?\d{3}\b`)},
	{LeakJSON, regexp.MustCompile(`\{\s*"[^"\n]{1,60}"\s*:|\[\s*\{\s*"`)},
}

// structuralKeys hold ids and enum values by design, not prose.
var structuralKeys = map[string]bool{"agent_id": true, "event": true, "turn_id": true, "episode_id": true, "outcome": true}

// leakChecker finds internal details in events' text. It is immutable after construction.
type leakChecker struct {
	enrichers []*regexp.Regexp
	ids       []string
}

func newLeakChecker(agents []AgentInfo) *leakChecker {
	c := &leakChecker{}
	for _, a := range agents {
		for _, e := range a.Enrichers {
			if e == "" {
				continue
			}
			c.ids = append(c.ids, e)
			// Bounded by anything that cannot continue an id, so "points.balance" is found in
			// "(points.balance)" but not inside "xpoints.balancer".
			c.enrichers = append(c.enrichers, regexp.MustCompile(`(?i)(?:^|[^\w.])`+regexp.QuoteMeta(e)+`(?:$|[^\w])`))
		}
	}
	return c
}

// leakHit is one finding before it is placed in a case and turn.
type leakHit struct {
	event   string
	eventID uint64
	kind    string
	match   string
}

// check scans every string of every event's data, and the reply deltas joined (a leak could
// be split across two deltas).
func (c *leakChecker) check(events []Event) []leakHit {
	var hits []leakHit
	var joined strings.Builder
	for _, ev := range events {
		var v any
		if err := json.Unmarshal(ev.Data, &v); err != nil {
			// Not JSON: the whole data is what the client shows.
			v = string(ev.Data)
		}
		if ev.Name == "reply.delta" {
			if m, ok := v.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					joined.WriteString(s)
				}
			}
		}
		walkStrings(v, "", func(s string) {
			for _, h := range c.text(s) {
				h.event, h.eventID = ev.Name, ev.ID
				hits = append(hits, h)
			}
		})
	}
	for _, h := range c.text(joined.String()) {
		if !containsMatch(hits, h) {
			h.event = "reply.delta (joined)"
			hits = append(hits, h)
		}
	}
	// Map iteration made the order of strings within an event random; reports are stable.
	slices.SortStableFunc(hits, func(a, b leakHit) int {
		return cmp.Or(cmp.Compare(a.eventID, b.eventID), cmp.Compare(a.kind, b.kind), cmp.Compare(a.match, b.match))
	})
	return hits
}

func containsMatch(hits []leakHit, h leakHit) bool {
	for _, x := range hits {
		if x.kind == h.kind && x.match == h.match {
			return true
		}
	}
	return false
}

// text returns the leaks in one piece of user-visible text.
func (c *leakChecker) text(s string) []leakHit {
	var hits []leakHit
	for i, re := range c.enrichers {
		if re.MatchString(s) {
			hits = append(hits, leakHit{kind: LeakEnricherID, match: c.ids[i]})
		}
	}
	for _, p := range leakPatterns {
		if m := p.re.FindString(s); m != "" {
			hits = append(hits, leakHit{kind: p.kind, match: clip(strings.TrimSpace(m), 80)})
		}
	}
	return hits
}

// walkStrings calls fn for every string value in v, skipping structural keys.
func walkStrings(v any, key string, fn func(string)) {
	switch x := v.(type) {
	case string:
		if !structuralKeys[key] {
			fn(x)
		}
	case map[string]any:
		for k, e := range x {
			walkStrings(e, k, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, key, fn)
		}
	}
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
