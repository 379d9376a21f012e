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

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

// Calls returns the calls received so far, oldest first.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// ResetCalls forgets the calls received so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}
