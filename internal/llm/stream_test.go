package llm

import (
	"encoding/json"
	"testing"
)

func TestIsToolCallDelta(t *testing.T) {
	tests := []struct {
		chunk string
		want  bool
	}{
		{`[{"id":"call_a","type":"function","function":{"name":"ask_shop","arguments":""}}]`, true},
		{`[{"type":"","function":{"arguments":"{\"q\":"}}]`, true},
		{`[{"type":"","function":{"arguments":"1"}},{"type":"","function":{"arguments":"2"}}]`, true},
		{`{"name":"ask_shop","arguments":"{}"}`, true},
		{`hello`, false},
		{`[1, 2, 3]`, false},
		{`[]`, false},
		{`[{"type":"x"}]`, false},
		{`[{"id":"a","type":"function","function":{},"extra":1}]`, false},
		{`{"name":"x"}`, false},
		{`[see below]`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := isToolCallDelta([]byte(tt.chunk)); got != tt.want {
			t.Errorf("isToolCallDelta(%q) = %v, want %v", tt.chunk, got, tt.want)
		}
	}
}

// FuzzIsToolCallDelta: text that is not JSON is never dropped, and the detector never
// panics on anything a server may send.
func FuzzIsToolCallDelta(f *testing.F) {
	f.Add([]byte(`[{"id":"call_a","type":"function","function":{"name":"x","arguments":""}}]`))
	f.Add([]byte(`{"name":"x","arguments":""}`))
	f.Add([]byte(`Sure! Here are [3] offers`))
	f.Fuzz(func(t *testing.T, chunk []byte) {
		if isToolCallDelta(chunk) && !json.Valid(chunk) {
			t.Errorf("isToolCallDelta(%q) = true for invalid JSON", chunk)
		}
	})
}
