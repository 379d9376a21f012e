package audit_test

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
)

func TestMemory(t *testing.T) {
	audittest.Run(t, func(*testing.T) audittest.Store { return audit.NewMemory() })
}

// A memory log forgets its oldest entries once it holds a quarter more than
// MemoryMaxEntries, keeping the newest MemoryMaxEntries, numbered on.
func TestMemoryKeepsTheNewest(t *testing.T) {
	m := audit.NewMemory()
	batch := make([]audit.Entry, 1000)
	for i := range batch {
		batch[i] = audit.Entry{Principal: "alice", Detail: audit.DevTokenMinted{}}
	}
	total := 0
	for total <= audit.MemoryMaxEntries+audit.MemoryMaxEntries/4 {
		if err := m.AppendAudit(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		total += len(batch)
	}
	first, err := m.ReadAudit(t.Context(), audit.Query{Limit: 1})
	if want := int64(total - audit.MemoryMaxEntries + 1); err != nil || len(first) != 1 || first[0].Seq != want {
		t.Errorf("oldest entry kept = %v, %v; want Seq %d", first, err, want)
	}
}

// Paging through a memory log gives every entry once, in order, however its entries are laid
// out in memory: enough of them to span several of its blocks, appended in uneven batches.
func TestMemoryPagesInOrder(t *testing.T) {
	m := audit.NewMemory()
	const total = 5000
	for n := 0; n < total; {
		batch := make([]audit.Entry, min(1+n%37, total-n))
		for i := range batch {
			batch[i] = audit.Entry{Principal: "alice", Detail: audit.DevTokenMinted{}}
		}
		if err := m.AppendAudit(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		n += len(batch)
	}
	var after int64
	for {
		page, err := m.ReadAudit(t.Context(), audit.Query{After: after, Limit: 333})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			if e.Seq != after+1 {
				t.Fatalf("entry after Seq %d has Seq %d, want %d", after, e.Seq, after+1)
			}
			after = e.Seq
		}
	}
	if after != total {
		t.Errorf("paged through %d entries, want %d", after, total)
	}
}
