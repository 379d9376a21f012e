package audit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/principal"
)

func TestRefusals(t *testing.T) {
	minute := time.Date(2026, 11, 27, 12, 30, 0, 0, time.UTC)
	type refusal struct {
		p     principal.Principal
		limit string
		at    time.Duration // after minute
	}
	tests := []struct {
		name     string
		refusals []refusal
		now      time.Duration
		wantDue  []Entry
		wantLeft []Entry // what All returns afterwards
	}{{
		name: "one principal, one minute: one entry with the count",
		refusals: []refusal{
			{"alice", "turns_per_minute", 1 * time.Second},
			{"alice", "turns_per_minute", 20 * time.Second},
			{"alice", "streams_per_principal", 59 * time.Second},
		},
		now: time.Minute,
		wantDue: []Entry{{Time: minute, Principal: "alice", Detail: LimitRefusals{Count: 3,
			Limits: map[string]int{"turns_per_minute": 2, "streams_per_principal": 1}}}},
	}, {
		name: "the current minute is not due yet",
		refusals: []refusal{
			{"alice", "turns_running", 10 * time.Second},
			{"alice", "turns_running", 70 * time.Second},
		},
		now:      90 * time.Second,
		wantDue:  []Entry{{Time: minute, Principal: "alice", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_running": 1}}}},
		wantLeft: []Entry{{Time: minute.Add(time.Minute), Principal: "alice", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_running": 1}}}},
	}, {
		name: "principals apart, oldest minute first",
		refusals: []refusal{
			{"bob", "turns_per_minute", 65 * time.Second},
			{"bob", "turns_per_minute", 5 * time.Second},
			{"alice", "turns_per_minute", 6 * time.Second},
		},
		now: 3 * time.Minute,
		wantDue: []Entry{
			{Time: minute, Principal: "alice", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_per_minute": 1}}},
			{Time: minute, Principal: "bob", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_per_minute": 1}}},
			{Time: minute.Add(time.Minute), Principal: "bob", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_per_minute": 1}}},
		},
	}, {
		name:     "nothing refused",
		now:      time.Hour,
		wantDue:  nil,
		wantLeft: nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Refusals
			for _, f := range tt.refusals {
				r.Add(f.p, f.limit, minute.Add(f.at))
			}
			if diff := cmp.Diff(tt.wantDue, r.Due(minute.Add(tt.now))); diff != "" {
				t.Errorf("Due() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLeft, r.All()); diff != "" {
				t.Errorf("All() after Due() mismatch (-want +got):\n%s", diff)
			}
			if got := r.All(); got != nil {
				t.Errorf("All() twice = %v, want nothing the second time", got)
			}
		})
	}
}

// Refusals come from many request goroutines at once; none may be lost.
func TestRefusalsConcurrent(t *testing.T) {
	var r Refusals
	at := time.Date(2026, 11, 27, 12, 30, 5, 0, time.UTC)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 100 {
				r.Add("alice", "turns_per_minute", at)
			}
		}()
	}
	for range 8 {
		<-done
	}
	got := r.All()
	if len(got) != 1 || got[0].Detail.(LimitRefusals).Count != 800 {
		t.Errorf("All() = %v, want one entry counting 800", got)
	}
}
