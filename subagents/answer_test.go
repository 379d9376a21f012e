package subagents_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/subagents"
)

// TestToolExamplesAndAnswer: a tool's examples reach the LLM in the tool description, and its
// answer template is rendered over the payload, in the user's locale, beside the data.
func TestToolExamplesAndAnswer(t *testing.T) {
	h := newHarness(t, ccsdemo.Options{}, ccs.ClientConfig{})
	def, _ := h.defs.Get("rewards")
	custom := *def
	custom.Tools = append(custom.Tools[:0:0], custom.Tools...)
	for i, tool := range custom.Tools {
		if tool.Name == "get_points_balance" {
			tool.Examples = []string{"when do my points run out"}
			tool.Answer = `You have {{number .points}} points; {{number .expiring_soon}} expire on {{date .expires_on}}.`
			custom.Tools[i] = tool
		}
	}
	m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
	a, err := subagents.New(subagents.Config{Definition: &custom, Model: m, CCS: h.client, Registry: h.reg}, h.opts...)
	if err != nil {
		t.Fatalf("subagents.New() = %v", err)
	}
	q := ask.Question{Request: "when do my points expire?", Inherited: ask.Inherited{Principal: ccsdemo.Alice, Locale: "en-GB"}}
	if _, err := a.Ask(t.Context(), q); err != nil {
		t.Fatalf("Ask() error = %v", err)
	}
	calls := m.recorded()
	var desc string
	for _, tool := range calls[0].Tools {
		if tool.Function.Name == "get_points_balance" {
			desc = tool.Function.Description
		}
	}
	if !strings.Contains(desc, `"when do my points run out"`) {
		t.Errorf("tool description = %q, want the example in it", desc)
	}
	results := m.toolResults(requestOf(calls[len(calls)-1]))
	if len(results) != 1 {
		t.Fatalf("tool results = %q, want one", results)
	}
	var got struct {
		Data   map[string]any `json:"data"`
		Answer string         `json:"answer"`
	}
	if err := json.Unmarshal([]byte(results[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.Data == nil || !strings.HasPrefix(got.Answer, "You have 12,450 points; 1,200 expire on ") || !strings.HasSuffix(got.Answer, "23 Mar 2026.") {
		t.Errorf("tool result = %s, want the data and the answer stated in en-GB", results[0])
	}
}
