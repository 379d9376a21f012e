package orchestrator

import (
	"encoding/json"
	"testing"
)

// The decoder-free reading of a call's arguments agrees with encoding/json wherever it
// answers at all.
func FuzzPlainRequest(f *testing.F) {
	for _, s := range []string{
		`{"request":"where is my order"}`,
		` { "request" : "deals on tvs" } `,
		`{"request":"say \"hi\""}`,
		`{"request":"a\u00e9"}`,
		`{"request":"x","extra":1}`,
		`{"request":""}`,
		"{\"request\":\"tab\there\"}",
		`{"request":"` + "\xff" + `"}`,
		`{"Request":"case"}`,
		`{"request":"x"}}`,
		"\u00a0{\"request\":\"nbsp is not JSON space\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got, ok := plainRequest(args)
		if !ok {
			return
		}
		var want struct {
			Request string `json:"request"`
		}
		if err := json.Unmarshal([]byte(args), &want); err != nil {
			t.Fatalf("plainRequest(%q) = %q, but it is not valid JSON: %v", args, got, err)
		}
		if got != want.Request {
			t.Fatalf("plainRequest(%q) = %q, encoding/json reads %q", args, got, want.Request)
		}
	})
}
