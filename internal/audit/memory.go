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
	mu sync.Mutex
	// blocks hold the entries, oldest first, in arrays of at most memoryBlock that are
	// never regrown: a single slice doubled its array (and copied every entry) as it grew,
	// and copied the hundred thousand it kept at every trim; blocks are dropped whole.
	blocks [][]Entry
	n      int   // entries held
	seq    int64 // the last Seq given
}

// memoryBlock is the most entries one block holds. Blocks start small, for the many logs that
// hold a few entries, and double up to it.
const (
	memoryBlock      = 1024
	memoryFirstBlock = 16
)

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
		last := len(m.blocks) - 1
		if last < 0 || len(m.blocks[last]) == cap(m.blocks[last]) {
			m.blocks = append(m.blocks, make([]Entry, 0, min(memoryBlock, max(memoryFirstBlock, m.n))))
			last++
		}
		m.blocks[last] = append(m.blocks[last], e)
		m.n++
	}
	// Trimming waits for a quarter more than the bound, so that it happens seldom.
	if m.n > MemoryMaxEntries+MemoryMaxEntries/4 {
		m.forget(m.n - MemoryMaxEntries)
	}
	return nil
}

// forget drops the oldest k entries: whole blocks, then the start of the oldest one left.
// m.mu must be held.
func (m *Memory) forget(k int) {
	for k > 0 {
		b := m.blocks[0]
		if len(b) > k {
			clear(b[:k]) // the dropped entries' details are garbage now
			m.blocks[0] = b[k:]
			m.n -= k
			return
		}
		m.blocks[0] = nil
		m.blocks = m.blocks[1:]
		m.n -= len(b)
		k -= len(b)
	}
}

// ReadAudit implements [Reader].
func (m *Memory) ReadAudit(_ context.Context, q Query) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Entry{}
	for _, b := range m.blocks {
		for _, e := range b {
			if len(out) == q.PageSize() {
				return out, nil
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
	}
	return out, nil
}
