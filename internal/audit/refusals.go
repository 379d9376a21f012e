package audit

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/principal"
)

// Refusals counts limit refusals per principal per minute, so that a client hammering a limit
// makes one entry a minute rather than one per request. It is safe for concurrent use.
type Refusals struct {
	mu     sync.Mutex
	counts map[refusalKey]map[string]int // limit -> refusals
}

type refusalKey struct {
	p      principal.Principal
	minute time.Time
}

// Add counts one refusal of p for limit at time at.
func (r *Refusals) Add(p principal.Principal, limit string, at time.Time) {
	k := refusalKey{p: p, minute: at.UTC().Truncate(time.Minute)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[refusalKey]map[string]int{}
	}
	if r.counts[k] == nil {
		r.counts[k] = map[string]int{}
	}
	r.counts[k][limit]++
}

// Due removes and returns the entries of the minutes over by now, oldest first.
func (r *Refusals) Due(now time.Time) []Entry {
	current := now.UTC().Truncate(time.Minute)
	return r.take(func(k refusalKey) bool { return k.minute.Before(current) })
}

// All removes and returns every entry counted, the current minute's too (at shutdown).
func (r *Refusals) All() []Entry { return r.take(func(refusalKey) bool { return true }) }

func (r *Refusals) take(due func(refusalKey) bool) []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Entry
	for k, limits := range r.counts {
		if !due(k) {
			continue
		}
		d := LimitRefusals{Limits: limits}
		for _, n := range limits {
			d.Count += n
		}
		out = append(out, Entry{Time: k.minute, Principal: k.p, Detail: d})
		delete(r.counts, k)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Principal, b.Principal))
	})
	return out
}
