package ccsdemo

import (
	"slices"
	"time"
)

// Call is one request the demo CCS received on its enrich route with a valid credential,
// whatever it answered.
type Call struct {
	EnricherID string
	// Principal is the body's principal; HeaderPrincipal the X-Principal header's.
	Principal       string
	HeaderPrincipal string
	Params          map[string]any
	At              time.Time
}

// maxCalls is how many calls the server remembers. It serves every `switchboard serve` that
// runs the embedded demo CCS, for as long as it runs: remembering every call grew the heap by
// about 400 bytes a turn without end. Tests look at a handful.
const maxCalls = 1024

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	if len(s.calls) >= 2*maxCalls {
		// Drop the oldest in one copy per maxCalls calls rather than one per call.
		n := copy(s.calls, s.calls[len(s.calls)-maxCalls:])
		clear(s.calls[n:])
		s.calls = s.calls[:n]
	}
}

// Calls returns the calls received so far, oldest first: the newest 1,024 of them.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls[max(0, len(s.calls)-maxCalls):])
}

// ResetCalls forgets the calls received so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}
