package audit

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Memory is an audit log held in memory, for a service whose store is in memory too (tests,
// evals): it lasts as long as the process and, like that store, keeps the newest entries only
// ([MemoryMaxEntries]).
type Memory struct {
	mu      sync.Mutex
	entries []Entry
	seq     int64 // the last Seq given
}

// MemoryMaxEntries is how many entries a [Memory] keeps at least; older ones are forgotten
// once there are a quarter more.
const MemoryMaxEntries = 100_000

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
		m.seq++
		e.Seq = m.seq
		e.Time = e.Time.UTC().Truncate(timePrecision)
		m.entries = append(m.entries, e)
	}
	// Trimming copies what is kept, so it waits for a quarter more than the bound. It copies
	// within the array it has: a new one, cut to the bound, would be regrown (and copied
	// again) by the next append, twice every trim.
	if len(m.entries) > MemoryMaxEntries+MemoryMaxEntries/4 {
		n := copy(m.entries, m.entries[len(m.entries)-MemoryMaxEntries:])
		clear(m.entries[n:]) // the dropped entries' details are garbage now
		m.entries = m.entries[:n]
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
