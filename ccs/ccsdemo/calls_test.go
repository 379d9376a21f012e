package ccsdemo

import (
	"fmt"
	"testing"
)

// TestCallsAreBounded: a long-running server remembers only its newest calls, so its memory
// does not grow with every turn it serves.
func TestCallsAreBounded(t *testing.T) {
	s := &Server{}
	const n = 5*maxCalls + 7
	for i := range n {
		s.record(Call{EnricherID: fmt.Sprint(i)})
	}
	got := s.Calls()
	if len(got) != maxCalls {
		t.Fatalf("len(Calls()) = %d, want %d", len(got), maxCalls)
	}
	if first, last := got[0].EnricherID, got[len(got)-1].EnricherID; first != fmt.Sprint(n-maxCalls) || last != fmt.Sprint(n-1) {
		t.Errorf("Calls() spans %s..%s, want %d..%d (the newest, oldest first)", first, last, n-maxCalls, n-1)
	}
	s.mu.Lock()
	held := cap(s.calls)
	s.mu.Unlock()
	// Twice the bound, and whatever append rounds that up to.
	if held > 3*maxCalls {
		t.Errorf("the server holds room for %d calls, want at most %d", held, 3*maxCalls)
	}
}
