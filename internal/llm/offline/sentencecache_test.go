package offline

import (
	"context"
	"slices"
	"testing"

	"github.com/switchboard-ai/switchboard/principal"
)

// A user's sentence is encoded once within their conversation, and never served to another
// user's turn from what was kept for them; a call with no principal keeps nothing.
func TestSentencesOf(t *testing.T) {
	m := New()
	alice := m.sentencesOf(principal.NewContext(t.Context(), "alice"))
	bob := m.sentencesOf(principal.NewContext(t.Context(), "bob"))
	if alice == nil || bob == nil {
		t.Fatal("sentencesOf() = nil with a principal in the context")
	}
	const text = "when does my flight to lisbon leave"
	first, again, other := alice(text), alice(text), bob(text)
	if len(first) == 0 {
		t.Fatalf("alice(%q) has no vector", text)
	}
	if &first[0] != &again[0] {
		t.Error("the same principal's sentence was encoded twice")
	}
	if &first[0] == &other[0] {
		t.Error("another principal's turn was served the vector kept for alice")
	}
	if !slices.Equal(first, other) {
		t.Error("the two principals' vectors of one sentence differ")
	}
	if m.sentencesOf(context.Background()) != nil {
		t.Error("sentencesOf() without a principal keeps vectors")
	}
}
