package audit

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Memory is an audit log held in memory, for a service whose store is in memory too (tests,
// demos): it lasts as long as the process.
type Memory struct {
	mu      sync.Mutex
	entries []Entry
}

var (
	_ Recorder = (*Memory)(nil)
	_ Reader   = (*Memory)(nil)
)

// NewMemory returns an empty log.
func NewMemory() *Memory { return &Memory{} }

// AppendAudit implements [Recorder].
func (m *Memory) AppendAudit(_ context.Context, entries []Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range entries {
		e.Seq = int64(len(m.entries)) + 1
		e.Time = e.Time.UTC().Truncate(timePrecision)
		m.entries = append(m.entries, e)
	}
	return nil
}

// ReadAudit implements [Reader].
func (m *Memory) ReadAudit(_ context.Context, q Query) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Entry{}
	for _, e := range m.entries {
		if len(out) == q.PageSize() {
			break
		}
		if q.Match(e) {
			if d, ok := e.Detail.(LimitRefusals); ok { // share no map with the caller
				d.Limits = maps.Clone(d.Limits)
				e.Detail = d
			}
			if d, ok := e.Detail.(RoutingDecision); ok {
				d.Agents = slices.Clone(d.Agents)
				e.Detail = d
			}
			out = append(out, e)
		}
	}
	return out, nil
}
