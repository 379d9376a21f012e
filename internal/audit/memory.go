package audit

import (
	"context"
	"sync"
)

// Memory is an audit log held in memory, for a service whose store is in memory too (tests,
// evals): it lasts as long as the process and, like that store, keeps the newest entries only
// ([MemoryMaxEntries]).
//
// It keeps its entries encoded (see memcodec.go) in byte blocks rather than as [Entry] values:
// a hundred thousand entries with their strings and details are half a million pointers that
// every garbage collection of a busy service had to follow, where bytes are never scanned.
// Reading decodes, which is rare next to appending.
type Memory struct {
	mu sync.Mutex
	// blocks hold the entries, oldest first, one after the other in arrays of at most
	// memoryBlockBytes that are never regrown; blocks are dropped whole as entries age out.
	blocks []memBlock
	n      int    // entries held
	seq    int64  // the last Seq given
	buf    []byte // one entry being encoded, reused
}

// memBlock is a run of encoded entries whose Seqs follow each other from first.
type memBlock struct {
	first int64 // the Seq of the entry data starts with
	n     int   // entries in data
	data  []byte
}

// memoryBlockBytes is the most one block holds (an entry larger than that gets a block of its
// own). Blocks start small, for the many logs that hold a few entries, and double up to it.
const (
	memoryBlockBytes      = 64 << 10
	memoryFirstBlockBytes = 1 << 10
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

// AppendAudit implements [Recorder]. A detail of a type this package does not define (which
// only a pointer to one of its types can be) is refused, and nothing of entries is appended.
func (m *Memory) AppendAudit(_ context.Context, entries []Entry) error {
	for _, e := range entries {
		if err := storable(e.Detail); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range entries {
		m.seq++
		e.Time = e.Time.UTC().Truncate(timePrecision)
		m.buf = encodeEntry(m.buf[:0], e)
		m.add(m.buf)
	}
	// Trimming waits for a quarter more than the bound, so that it happens seldom.
	if m.n > MemoryMaxEntries+MemoryMaxEntries/4 {
		m.forget(m.n - MemoryMaxEntries)
	}
	return nil
}

// add appends one encoded entry, numbered m.seq, to the newest block or to a new one when it
// does not fit. m.mu must be held.
func (m *Memory) add(enc []byte) {
	last := len(m.blocks) - 1
	if last < 0 || len(m.blocks[last].data)+len(enc) > cap(m.blocks[last].data) {
		size := memoryFirstBlockBytes
		if last >= 0 {
			size = min(memoryBlockBytes, 2*cap(m.blocks[last].data))
		}
		m.blocks = append(m.blocks, memBlock{first: m.seq, data: make([]byte, 0, max(size, len(enc)))})
		last++
	}
	b := &m.blocks[last]
	b.data = append(b.data, enc...)
	b.n++
	m.n++
}

// forget drops the oldest k entries: whole blocks, then the start of the oldest one left.
// m.mu must be held.
func (m *Memory) forget(k int) {
	for k > 0 {
		b := &m.blocks[0]
		if b.n > k {
			off := 0
			for range k {
				off += entryLen(b.data[off:])
			}
			b.data, b.first, b.n = b.data[off:], b.first+int64(k), b.n-k
			m.n -= k
			return
		}
		k -= b.n
		m.n -= b.n
		m.blocks[0] = memBlock{}
		m.blocks = m.blocks[1:]
	}
}

// ReadAudit implements [Reader]. Only the entries q selects are decoded whole; the others are
// passed over on their time, principal and type.
func (m *Memory) ReadAudit(_ context.Context, q Query) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Entry{}
	for _, b := range m.blocks {
		if b.first+int64(b.n) <= q.After+1 {
			continue // every entry in b is at or before q.After
		}
		data := b.data
		for i := range b.n {
			if len(out) == q.PageSize() {
				return out, nil
			}
			n := entryLen(data)
			enc := data[:n]
			data = data[n:]
			if seq := b.first + int64(i); seq > q.After && q.matchHeader(enc) {
				e, err := decodeEntry(enc)
				if err != nil {
					return nil, err
				}
				e.Seq = seq
				out = append(out, e)
			}
		}
	}
	return out, nil
}
