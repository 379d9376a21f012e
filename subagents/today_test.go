package subagents_test

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/subagents"
)

// TestSystemPromptStatesToday: the system message states the injected clock's day, in UTC
// with its weekday, so that the LLM can resolve "yesterday" or "last sunday"; a later day on
// the same agent states that day, with or without inherited context.
func TestSystemPromptStatesToday(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	now := time.Date(2026, 11, 28, 23, 30, 0, 0, time.FixedZone("UTC-2", -2*3600)) // Nov 29 in UTC
	m := &scriptedModel{text: "You have 12,450 points."}
	a := h.agent("rewards", m, ccs.CheckOptions{}, subagents.WithClock(func() time.Time { return now }))
	tests := []struct {
		name string
		day  time.Time
		in   ask.Inherited
		want string
	}{
		{"bare", now, ask.Inherited{Principal: ccsdemo.Alice}, "Today's date is 2026-11-29 (Sunday, UTC)."},
		{"inherited", now, ask.Inherited{Principal: ccsdemo.Alice, Locale: "en-GB"}, "Today's date is 2026-11-29 (Sunday, UTC)."},
		{"next day", now.Add(24 * time.Hour), ask.Inherited{Principal: ccsdemo.Alice}, "Today's date is 2026-11-30 (Monday, UTC)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = tt.day
			before := len(m.recorded())
			if _, err := a.Ask(t.Context(), ask.Question{Request: "how many points do i have", Inherited: tt.in}); err != nil {
				t.Fatalf("Ask() error = %v", err)
			}
			calls := m.recorded()
			if len(calls) <= before {
				t.Fatal("no model call")
			}
			if sys := messageText(calls[before].Messages[0]); !strings.Contains(sys, tt.want) {
				t.Errorf("system message lacks %q:\n%s", tt.want, sys)
			}
		})
	}
}
