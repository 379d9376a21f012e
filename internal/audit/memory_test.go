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
