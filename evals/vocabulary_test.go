package evals

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMissingWords(t *testing.T) {
	agents := []AgentInfo{
		{ID: "support", Name: "Support", Description: "Order status, deliveries and returns.", Examples: []string{"where is my package"}},
		{ID: "travel", Name: "Travel", Description: "Flights and hotels.", Examples: []string{"is my flight on time"}},
	}
	cases := []CaseReport{{Turns: []TurnReport{
		// Missed support twice with "courier"; "packages" is the plural of a word it uses.
		{Message: "the courier never showed up with my packages", Expected: []string{"support"}},
		{Message: "Courier's van drove off?!", Expected: []string{"support"}, Invoked: []string{"travel"}},
		// A two-intent turn suggests nothing: whose words are whose is not known.
		{Message: "where is my parcel and my flight", Expected: []string{"support", "travel"}, Invoked: []string{"support"}},
		// No-route turns suggest nothing.
		{Message: "tell me a joke", Expected: nil},
	}}}
	got := missingWords(cases, agents)
	want := map[string][]MissingWord{
		"support": {{"courier", 2}, {"drove", 1}, {"never", 1}, {"showed", 1}, {"van", 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("missingWords() mismatch (-want +got):\n%s", diff)
	}

	r := &Report{Verticals: map[string]VerticalScore{"support": {}}, MissingWords: got}
	var md, html, text bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSummary(&text); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String(), "summary": text.String()} {
		if !strings.Contains(out, "courier (2)") {
			t.Errorf("%s report does not list the missing word: %s", name, out)
		}
	}
}
