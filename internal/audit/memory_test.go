package audit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
	"github.com/switchboard-ai/switchboard/principal"
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

// oddEntries are entries a caller may hand the log directly, unbounded: every kind, nil and
// empty lists told apart, strings longer than one block and not valid UTF-8, times before
// 1970 and in a zone.
func oddEntries() []audit.Entry {
	long := strings.Repeat("x", 70<<10) // longer than a block
	es := audittest.Samples()
	es = append(es,
		audit.Entry{},
		audit.Entry{Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), Principal: "ancient", Detail: audit.RoutingDecision{Agents: []audit.AgentOutcome{}}},
		audit.Entry{Time: time.Date(1969, 7, 20, 20, 17, 40, 999_999_999, time.FixedZone("X", -5*3600)), Principal: "\xff\xfe", Detail: audit.TurnCancelled{TurnID: "turn\x00\n"}},
		audit.Entry{Time: base(), Principal: principal.Principal(long), Detail: audit.TurnAccepted{EpisodeID: long[:200], TurnID: long[:1000]}},
		audit.Entry{Time: base(), Detail: audit.RoutingDecision{TurnID: "t", Intents: -3, Dropped: 1 << 40}},
		audit.Entry{Time: base(), Detail: audit.LimitRefusals{Limits: map[string]int{}}},
		audit.Entry{Time: base(), Detail: audit.LimitRefusals{Count: -1}},
		audit.Entry{Time: base(), Detail: audit.Unknown{Kind: audit.TypeTurnAccepted}},
		audit.Entry{Time: base(), Detail: audit.Unknown{Kind: "later", JSON: json.RawMessage{}}},
		audit.Entry{Time: base(), Detail: audit.DefinitionsReloaded{Result: long, Agents: 1, Problems: -1}},
	)
	return es
}

func base() time.Time { return time.Date(2026, 11, 28, 1, 2, 3, 456789123, time.UTC) }

// stored is e as the log gives it back: numbered, in UTC to the microsecond.
func stored(e audit.Entry, seq int64) audit.Entry {
	e.Seq = seq
	e.Time = e.Time.UTC().Truncate(time.Microsecond)
	return e
}

// readAll pages through the whole log.
func readAll(t *testing.T, m *audit.Memory) []audit.Entry {
	t.Helper()
	var out []audit.Entry
	q := audit.Query{Limit: audit.MaxLimit}
	for {
		page, err := m.ReadAudit(t.Context(), q)
		if err != nil {
			t.Fatalf("ReadAudit(%+v) = %v", q, err)
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		q.After = page[len(page)-1].Seq
	}
}

// The log keeps its entries encoded; what it gives back is exactly what was appended, in
// order, numbered from 1, before and after it forgets its oldest entries.
func TestMemoryReturnsWhatWasAppended(t *testing.T) {
	m := audit.NewMemory()
	odd := oddEntries()
	var all []audit.Entry // every entry appended, stored
	for len(all) <= audit.MemoryMaxEntries+audit.MemoryMaxEntries/4 {
		batch := make([]audit.Entry, 0, 97)
		for i := range cap(batch) {
			e := odd[(len(all)+i)%len(odd)]
			if i%3 == 0 { // most entries are short, as a turn's are
				e = audit.Entry{Time: base(), Principal: "alice", Detail: audit.TurnAccepted{TurnID: fmt.Sprintf("turn_%d", len(all)+i)}}
			}
			batch = append(batch, e)
		}
		if err := m.AppendAudit(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		for _, e := range batch {
			all = append(all, stored(e, int64(len(all)+1)))
		}
		if len(all) == 97*3 || len(all) == 97*1100 { // before the first trim and near it
			if diff := cmp.Diff(all, readAll(t, m)); diff != "" {
				t.Fatalf("after %d entries, ReadAudit() mismatch (-want +got):\n%s", len(all), diff)
			}
		}
	}
	want := all[len(all)-audit.MemoryMaxEntries:]
	if diff := cmp.Diff(want, readAll(t, m)); diff != "" {
		t.Errorf("after trimming, ReadAudit() mismatch (-want +got):\n%s", diff)
	}
}

// Reading the encoded log selects what Query.Match selects on the entries themselves.
func TestMemoryQueryMatches(t *testing.T) {
	m := audit.NewMemory()
	var all []audit.Entry
	for i, e := range oddEntries() {
		e.Time = base().Add(time.Duration(i) * time.Second)
		if err := m.AppendAudit(t.Context(), []audit.Entry{e}); err != nil {
			t.Fatal(err)
		}
		all = append(all, stored(e, int64(i+1)))
	}
	var queries []audit.Query
	for _, e := range all {
		queries = append(queries,
			audit.Query{Principal: e.Principal}, audit.Query{Type: e.Type()}, audit.Query{After: e.Seq},
			audit.Query{Since: e.Time}, audit.Query{Since: e.Time.Add(time.Nanosecond)},
			audit.Query{Principal: e.Principal, Type: e.Type(), Limit: 1})
	}
	for _, q := range queries {
		want := []audit.Entry{}
		for _, e := range all {
			if q.Match(e) && len(want) < q.PageSize() {
				want = append(want, e)
			}
		}
		got, err := m.ReadAudit(t.Context(), q)
		if err != nil {
			t.Fatalf("ReadAudit(%+v) = %v", q, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReadAudit(%+v) mismatch (-want +got):\n%s", q, diff)
		}
	}
}

// A pointer to a detail is not one the log can keep; it refuses the batch rather than store a
// part of it.
func TestMemoryRefusesAPointerDetail(t *testing.T) {
	m := audit.NewMemory()
	batch := []audit.Entry{{Detail: audit.TurnCancelled{TurnID: "a"}}, {Detail: &audit.TurnCancelled{TurnID: "b"}}}
	if err := m.AppendAudit(t.Context(), batch); err == nil {
		t.Error("AppendAudit(a pointer detail) = nil, want an error")
	}
	if got := readAll(t, m); len(got) != 0 {
		t.Errorf("after a refused batch, ReadAudit() = %v, want nothing", got)
	}
}
