package main

import (
	"io"
	"strings"
	"testing"
)

// The outside module builds the whole service through the root package, with its own model,
// and serves a two-intent turn mounted under a prefix of its own mux.
func TestEmbeddedServiceAnswersBothIntents(t *testing.T) {
	reply, err := run(t.Context(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"blue room", "lentil soup"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply %s does not mention %q", reply, want)
		}
	}
}
