package principal

import (
	"context"
	"testing"
)

// A context already carrying the principal is reused, not wrapped again; another principal
// always replaces it.
func TestNewContextReusesItsPrincipal(t *testing.T) {
	alice := NewContext(context.Background(), "alice")
	if got := NewContext(alice, "alice"); got != alice {
		t.Error("NewContext(ctx with alice, alice) made a new context")
	}
	bob := NewContext(alice, "bob")
	if p, _ := FromContext(bob); p != "bob" {
		t.Errorf("FromContext(NewContext(alice ctx, bob)) = %q, want bob", p)
	}
}
