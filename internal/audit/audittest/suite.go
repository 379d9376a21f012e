// Package audittest is the conformance suite every audit log store passes: the in-memory one
// and the SQL stores.
package audittest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/principal"
)

// Store is what the suite tests.
type Store interface {
	audit.Recorder
	audit.Reader
}

// base is deliberately neither UTC nor on a microsecond boundary: stores keep UTC
// microseconds.
var base = time.Date(2026, 11, 27, 12, 30, 15, 123456789, time.FixedZone("CET", 3600))

// Samples are one entry of each kind, as a caller records them.
func Samples() []audit.Entry {
	return []audit.Entry{
		{Time: base, Principal: "alice", Detail: audit.TurnAccepted{EpisodeID: "ep_1", TurnID: "turn_1", IdempotencyKeySHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
		{Time: base.Add(time.Second), Principal: "alice", Detail: audit.RoutingDecision{
			TurnID: "turn_1", Outcome: "degraded", Intents: 3, Cap: "over", Dropped: 1,
			Agents: []audit.AgentOutcome{{Agent: "shop", Outcome: "ok"}, {Agent: "loyalty", Outcome: "unavailable"}},
		}},
		{Time: base.Add(2 * time.Second), Principal: "bob", Detail: audit.EnvelopeSuppressed{TurnID: "turn_2", Agent: "shop", Enricher: "offers", Reason: "principal_mismatch"}},
		{Time: base.Add(3 * time.Second), Principal: "bob", Detail: audit.TurnCancelled{TurnID: "turn_2"}},
		{Time: base.Add(4 * time.Second), Principal: "carol", Detail: audit.ServiceActed{Service: "svc-east", Method: "message/send", TaskID: "turn_3", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}},
		{Time: base.Add(5 * time.Second), Detail: audit.DefinitionsReloaded{Result: "error", Agents: 4, Problems: 2}},
		{Time: base.Add(6 * time.Second), Principal: "dave", Detail: audit.DevTokenMinted{}},
		{Time: base.Add(7 * time.Second).Truncate(time.Minute), Principal: "alice", Detail: audit.LimitRefusals{Count: 5, Limits: map[string]int{"turns_per_minute": 4, "streams_per_principal": 1}}},
		{Time: base.Add(8 * time.Second), Principal: "erin", Detail: audit.Unknown{Kind: "from_a_newer_version", JSON: json.RawMessage(`{"n":1}`)}},
	}
}

// stored is e as a store gives it back: in UTC to the microsecond, numbered.
func stored(e audit.Entry, seq int64) audit.Entry {
	e.Seq = seq
	e.Time = e.Time.UTC().Truncate(time.Microsecond)
	return e
}

// Run runs the suite; open returns an empty store, closed when t ends.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Run("AppendAndRead", func(t *testing.T) {
		s := open(t)
		in := Samples()
		if err := s.AppendAudit(t.Context(), in[:3]); err != nil {
			t.Fatalf("AppendAudit() = %v", err)
		}
		if err := s.AppendAudit(t.Context(), in[3:]); err != nil {
			t.Fatalf("AppendAudit() = %v", err)
		}
		got, err := s.ReadAudit(t.Context(), audit.Query{})
		if err != nil {
			t.Fatalf("ReadAudit() = %v", err)
		}
		if len(got) != len(in) {
			t.Fatalf("ReadAudit() = %d entries, want %d", len(got), len(in))
		}
		// Seq only has to grow: a sequence may skip numbers.
		want := make([]audit.Entry, len(in))
		for i := range in {
			want[i] = stored(in[i], got[i].Seq)
			if i > 0 && got[i].Seq <= got[i-1].Seq {
				t.Errorf("entry %d: Seq %d after %d, want increasing", i, got[i].Seq, got[i-1].Seq)
			}
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(jsonEqual)); diff != "" {
			t.Errorf("ReadAudit() mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("Query", func(t *testing.T) {
		s := open(t)
		in := Samples()
		if err := s.AppendAudit(t.Context(), in); err != nil {
			t.Fatalf("AppendAudit() = %v", err)
		}
		all, err := s.ReadAudit(t.Context(), audit.Query{})
		if err != nil {
			t.Fatalf("ReadAudit() = %v", err)
		}
		types := func(es []audit.Entry) []string {
			out := []string{}
			for _, e := range es {
				out = append(out, fmt.Sprintf("%s:%s", e.Type(), e.Principal))
			}
			return out
		}
		tests := []struct {
			name string
			q    audit.Query
			want []string
		}{
			{"principal", audit.Query{Principal: "bob"}, []string{"envelope_suppressed:bob", "turn_cancelled:bob"}},
			{"type", audit.Query{Type: audit.TypeTurnAccepted}, []string{"turn_accepted:alice"}},
			{"principal and type", audit.Query{Principal: "alice", Type: audit.TypeLimitRefusals}, []string{"limit_refusals:alice"}},
			{"since", audit.Query{Since: base.Add(5 * time.Second)}, []string{"definitions_reloaded:", "dev_token_minted:dave", "from_a_newer_version:erin"}},
			{"since, to the microsecond", audit.Query{Since: base.Add(6 * time.Second).Truncate(time.Microsecond).Add(999 * time.Nanosecond)}, []string{"dev_token_minted:dave", "from_a_newer_version:erin"}},
			{"since the next microsecond", audit.Query{Since: base.Add(6 * time.Second).Truncate(time.Microsecond).Add(time.Microsecond)}, []string{"from_a_newer_version:erin"}},
			{"after", audit.Query{After: all[6].Seq}, []string{"limit_refusals:alice", "from_a_newer_version:erin"}},
			{"limit", audit.Query{Limit: 2}, []string{"turn_accepted:alice", "routing_decision:alice"}},
			{"nobody", audit.Query{Principal: "mallory"}, []string{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.ReadAudit(t.Context(), tt.q)
				if err != nil {
					t.Fatalf("ReadAudit(%+v) = %v", tt.q, err)
				}
				if diff := cmp.Diff(tt.want, types(got)); diff != "" {
					t.Errorf("ReadAudit(%+v) mismatch (-want +got):\n%s", tt.q, diff)
				}
			})
		}
	})

	t.Run("ConcurrentAppends", func(t *testing.T) {
		s := open(t)
		const writers, each = 8, 5
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					e := audit.Entry{Time: base, Principal: principal.Principal(fmt.Sprintf("user%d", w)), Detail: audit.TurnCancelled{TurnID: fmt.Sprintf("turn_%d_%d", w, i)}}
					if err := s.AppendAudit(t.Context(), []audit.Entry{e}); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("AppendAudit() = %v", err)
		}
		got, err := s.ReadAudit(t.Context(), audit.Query{})
		if err != nil {
			t.Fatalf("ReadAudit() = %v", err)
		}
		seen := map[int64]bool{}
		for _, e := range got {
			if seen[e.Seq] {
				t.Errorf("Seq %d given twice", e.Seq)
			}
			seen[e.Seq] = true
		}
		if len(got) != writers*each {
			t.Errorf("ReadAudit() = %d entries, want %d", len(got), writers*each)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		s := open(t)
		var in []audit.Entry
		for i := range 7 {
			in = append(in, audit.Entry{Time: base, Principal: "alice", Detail: audit.TurnCancelled{TurnID: fmt.Sprintf("turn_%d", i)}})
		}
		if err := s.AppendAudit(t.Context(), in); err != nil {
			t.Fatalf("AppendAudit() = %v", err)
		}
		var got []string
		q := audit.Query{Limit: 3}
		for page := 0; ; page++ {
			es, err := s.ReadAudit(t.Context(), q)
			if err != nil {
				t.Fatalf("ReadAudit() = %v", err)
			}
			if len(es) == 0 {
				break
			}
			if page > 3 {
				t.Fatal("ReadAudit() pages past the end")
			}
			for _, e := range es {
				got = append(got, e.Detail.(audit.TurnCancelled).TurnID)
			}
			q.After = es[len(es)-1].Seq
		}
		want := []string{"turn_0", "turn_1", "turn_2", "turn_3", "turn_4", "turn_5", "turn_6"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pages mismatch (-want +got):\n%s", diff)
		}
	})
}

// jsonEqual compares raw JSON by meaning: PostgreSQL's jsonb keeps neither spacing nor key
// order.
func jsonEqual(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(va, vb)
}
