package evals

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

func sampleReport() *Report {
	rep := newScorer(testAgents, 3).score(runsOf(
		[2][]string{{"shop"}, {"shop"}},
		[2][]string{{"rewards"}, {"support"}},
	))
	rep.GeneratedAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rep.Model = `offline <b>"bold"</b>`
	rep.Settings = Settings{SubAgents: agentIDs(testAgents), MinAccuracy: 0.95}
	// A hostile reply and message must come out as text.
	rep.Failures[0].Reply = `<script>alert("x")</script> | pipe`
	rep.Failures[0].User = "where's <my> order & stuff"
	rep.Failures[0].Tools = []string{"support.<list_orders>"}
	rep.Coverage = coverage(nil, agentIDs(testAgents))
	rep.GateResults = evaluateGates(rep, agentIDs(testAgents), 0.95, true)
	return rep
}

func TestWriteHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteHTML(&buf); err != nil {
		t.Fatalf("WriteHTML() error = %v", err)
	}
	page := buf.String()
	for _, bad := range []string{"<script", "http://", "https://", "<link", "@import", `<b>"bold"`} {
		if bad == "http://" {
			// The only URL allowed is the SVG namespace, which loads nothing.
			page := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
			if strings.Contains(page, bad) {
				t.Errorf("report.html references %q: not self-contained", bad)
			}
			continue
		}
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("html.Parse() error = %v", err)
	}
	var ids []string
	var texts strings.Builder
	rects := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "script" {
				t.Errorf("parsed page has a script element")
			}
			if n.Data == "rect" {
				rects++
			}
			for _, a := range n.Attr {
				if a.Key == "id" {
					ids = append(ids, a.Val)
				}
			}
		}
		if n.Type == html.TextNode {
			texts.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if diff := cmp.Diff([]string{"vertical-accuracy", "confusion", "failures"}, ids); diff != "" {
		t.Errorf("element ids mismatch (-want +got):\n%s", diff)
	}
	// 4 verticals x 2 bars + 5x5 heat map cells.
	if rects != 4*2+25 {
		t.Errorf("rect count = %d, want %d", rects, 4*2+25)
	}
	for _, want := range []string{`<script>alert("x")</script> | pipe`, "where's <my> order & stuff", `offline <b>"bold"</b>`, "FAILED", "via support.<list_orders>"} {
		if !strings.Contains(texts.String(), want) {
			t.Errorf("page text lacks %q", want)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteMarkdown(&buf); err != nil {
		t.Fatalf("WriteMarkdown() error = %v", err)
	}
	md := buf.String()
	for _, want := range []string{
		"## Gates: FAILED",
		"| routing accuracy | 50.0% |",
		"| shop | 1 | 100.0% | 100.0% | 100.0% | 1 | 0 | 0 |",
		"| **none** | 0 | 0 | 0 | 0 | 0 |",
		"&lt;script>alert(\"x\")&lt;/script> \\| pipe",
		"Missing: rewards->shop",
		`via support.&lt;list\_orders>`,
	} {
		want = strings.ReplaceAll(want, `\<`, "&lt;")
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q\n%s", want, md)
		}
	}
	// Every table row stays on one line: a reply with a newline must not break the table.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| t/") && strings.Count(line, " | ") < 7 {
			t.Errorf("broken failure row: %q", line)
		}
	}
}

func TestCompareOrdersRegressionsFirst(t *testing.T) {
	base := &Report{
		Overall:   Overall{Turns: 10, RoutingAccuracy: 0.9, IntentSwitchTurns: 4, IntentSwitchAccuracy: 0.5, FanOutTurns: 2, FanOutAccuracy: 1},
		Verticals: map[string]VerticalScore{"shop": {Turns: 5, Accuracy: 1, Precision: 1, Recall: 1}, "rewards": {Turns: 5, Accuracy: 0.8, Precision: 1, Recall: 0.8}},
		LatencyMS: Latency{P50: 100, P95: 200},
		Leaks:     0,
		Cases:     []CaseReport{{Dataset: "d", ID: "a", Passed: true}, {Dataset: "d", ID: "b", Passed: false}, {Dataset: "d", ID: "c", Passed: true}},
	}
	cur := &Report{
		Overall:   Overall{Turns: 10, RoutingAccuracy: 0.9, IntentSwitchTurns: 4, IntentSwitchAccuracy: 0.75, FanOutTurns: 2, FanOutAccuracy: 0.5},
		Verticals: map[string]VerticalScore{"shop": {Turns: 5, Accuracy: 0.6, Precision: 1, Recall: 0.6}, "rewards": {Turns: 5, Accuracy: 1, Precision: 1, Recall: 1}},
		LatencyMS: Latency{P50: 110, P95: 400},
		Leaks:     2,
		Cases:     []CaseReport{{Dataset: "d", ID: "a", Passed: false}, {Dataset: "d", ID: "b", Passed: true}, {Dataset: "d", ID: "c", Passed: true}},
	}
	d := Compare(base, cur)
	var got []string
	for _, c := range d.Changes {
		tag := "~"
		if c.Regression {
			tag = "-"
		} else if c.Improved {
			tag = "+"
		}
		got = append(got, tag+c.Metric)
	}
	want := []string{
		// regressions, largest relative change first (leaks from 0 count their absolute size)
		"-leaks", "-latency_ms.p95", "-overall.fan_out_accuracy", "-verticals.shop.accuracy", "-verticals.shop.recall",
		// improvements
		"+overall.intent_switch_accuracy", "+verticals.rewards.accuracy", "+verticals.rewards.recall",
		// noise
		"~latency_ms.p50",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare() order mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d/a"}, d.Regressed); diff != "" {
		t.Errorf("Regressed mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d/b"}, d.Fixed); diff != "" {
		t.Errorf("Fixed mismatch (-want +got):\n%s", diff)
	}
	if !d.HasRegressions() {
		t.Errorf("HasRegressions() = false")
	}
	var text bytes.Buffer
	if err := d.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if !strings.HasPrefix(lines[1], "- REGRESSION leaks: 0 -> 2") || !strings.Contains(text.String(), "- REGRESSION case d/a now fails") {
		t.Errorf("WriteText() =\n%s\nwant regressions first", text.String())
	}
	if !strings.Contains(text.String(), "- slower     latency_ms.p95:") || strings.Contains(text.String(), "REGRESSION latency") {
		t.Errorf("WriteText() =\n%s\nwant a slower latency told apart from a regression (latency never gates)", text.String())
	}
	if i, j := strings.Index(text.String(), "case d/a now fails"), strings.Index(text.String(), "+ improved"); i > j {
		t.Errorf("WriteText() lists an improvement before a case regression:\n%s", text.String())
	}
}

func TestWriteSummary(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteSummary(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"routing 50.0%", "  shop         accuracy 100.0%", "FAILED gate routing_accuracy: 50.0% over 2 turns", "FAILED gate pair_coverage"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}
