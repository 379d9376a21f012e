package stream_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/stream"
)

// recorder is a goroutine-safe Sink that keeps what it receives.
type recorder struct {
	mu  sync.Mutex
	evs []stream.Event
}

func (r *recorder) Publish(ev stream.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, ev)
}

func (r *recorder) events() []stream.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]stream.Event(nil), r.evs...)
}

type observation struct{ Agent, Event, Policy string }

type observer struct {
	mu  sync.Mutex
	obs []observation
}

func (o *observer) observe(agent, event, policy string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs = append(o.obs, observation{agent, event, policy})
}

func (o *observer) all() []observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]observation(nil), o.obs...)
}

var vocabulary = map[string]map[string]definitions.StatusEvent{
	"shop": {
		"searching_offers": {Text: "Searching offers…", Policy: definitions.PolicyBatch},
		"offers_for":       {Text: "Searching offers for {query}…", Policy: definitions.PolicyTransform},
		"found_offers":     {Text: "Found some offers…", Policy: definitions.PolicyForward},
		"cache_hit":        {Text: "cache hit", Policy: definitions.PolicySuppress},
	},
	"rewards": {
		"checking_points": {Text: "Looking up your points balance…", Policy: definitions.PolicyBatch},
		"same_text":       {Text: "Searching offers…", Policy: definitions.PolicyBatch},
	},
	"support": {
		"checking_orders": {Text: "Checking your orders…", Policy: definitions.PolicyForward},
	},
}

func src(agent, event string) stream.Source { return stream.Source{AgentID: agent, Event: event} }

// step is one action of a renderer script: wait (fake time, inside a synctest bubble), then
// emit or flush.
type step struct {
	wait  time.Duration
	emit  *stream.Emission
	flush bool
}

func emit(agent, event string, params map[string]string) step {
	return step{emit: &stream.Emission{AgentID: agent, Event: event, Params: params}}
}

func TestRenderer(t *testing.T) {
	rendering := definitions.Rendering{BatchWindow: 250 * time.Millisecond, MinInterval: time.Second}
	tests := []struct {
		name      string
		rendering definitions.Rendering
		steps     []step
		want      []stream.Event
		wantObs   []observation
	}{
		{
			name:      "batch events inside the window merge into one line",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{wait: 100 * time.Millisecond},
				emit("rewards", "checking_points", nil),
			},
			want: []stream.Event{stream.Status{
				Text:    "Searching offers and looking up your points balance…",
				Sources: []stream.Source{src("shop", "searching_offers"), src("rewards", "checking_points")},
			}},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
		{
			name:      "batch events outside the window give two lines",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{wait: 300 * time.Millisecond},
				emit("rewards", "checking_points", nil),
			},
			want: []stream.Event{
				stream.Status{Text: "Searching offers…", Sources: []stream.Source{src("shop", "searching_offers")}},
				stream.Status{Text: "Looking up your points balance…", Sources: []stream.Source{src("rewards", "checking_points")}},
			},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
		{
			name:      "forward shows at once and merges what follows in its window",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil),
				{wait: 10 * time.Millisecond},
				emit("shop", "searching_offers", nil),
				emit("rewards", "checking_points", nil),
				emit("shop", "found_offers", nil),
			},
			want: []stream.Event{
				stream.Status{Text: "Checking your orders…", Sources: []stream.Source{src("support", "checking_orders")}},
				stream.Status{
					Text:    "Searching offers, looking up your points balance and found some offers…",
					Sources: []stream.Source{src("shop", "searching_offers"), src("rewards", "checking_points"), src("shop", "found_offers")},
				},
			},
			wantObs: []observation{
				{"support", "checking_orders", "forward"}, {"shop", "searching_offers", "batch"},
				{"rewards", "checking_points", "batch"}, {"shop", "found_offers", "forward"},
			},
		},
		{
			name:      "duplicates collapse",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				emit("shop", "searching_offers", nil),
				emit("rewards", "same_text", nil),
			},
			want: []stream.Event{stream.Status{
				Text:    "Searching offers…",
				Sources: []stream.Source{src("shop", "searching_offers"), src("rewards", "same_text")},
			}},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"shop", "searching_offers", "duplicate"}, {"rewards", "same_text", "batch"}},
		},
		{
			name:      "undeclared and suppressed are never shown",
			rendering: rendering,
			steps: []step{
				emit("shop", "made_up", nil),
				emit("ghost", "searching_offers", nil),
				emit("shop", "cache_hit", nil),
			},
			want:    nil,
			wantObs: []observation{{"shop", "made_up", "undeclared"}, {"ghost", "searching_offers", "undeclared"}, {"shop", "cache_hit", "suppress"}},
		},
		{
			name:      "transform fills sanitised params",
			rendering: definitions.Rendering{},
			steps: []step{
				emit("shop", "offers_for", map[string]string{"query": "  running\nshoes {x} "}),
				emit("shop", "offers_for", nil),
			},
			want: []stream.Event{
				stream.Status{Text: "Searching offers for running shoes x…", Sources: []stream.Source{src("shop", "offers_for")}},
				stream.Status{Text: "Searching offers…", Sources: []stream.Source{src("shop", "offers_for")}},
			},
			wantObs: []observation{{"shop", "offers_for", "transform"}, {"shop", "offers_for", "transform"}},
		},
		{
			name:      "rate limit drops an agent's line closer than MinInterval",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil),
				{wait: 500 * time.Millisecond},
				emit("support", "checking_orders", nil), // 500ms after its line: dropped
				emit("shop", "found_offers", nil),       // another agent: shown
				{wait: 1200 * time.Millisecond},
				emit("support", "checking_orders", nil), // 1.7s later: shown
			},
			want: []stream.Event{
				stream.Status{Text: "Checking your orders…", Sources: []stream.Source{src("support", "checking_orders")}},
				stream.Status{Text: "Found some offers…", Sources: []stream.Source{src("shop", "found_offers")}},
				stream.Status{Text: "Checking your orders…", Sources: []stream.Source{src("support", "checking_orders")}},
			},
			wantObs: []observation{
				{"support", "checking_orders", "forward"}, {"support", "checking_orders", "rate_limited"},
				{"shop", "found_offers", "forward"}, {"support", "checking_orders", "forward"},
			},
		},
		{
			name:      "the window merges what the rate limit would drop",
			rendering: rendering,
			steps: []step{
				emit("shop", "found_offers", nil),
				{wait: 50 * time.Millisecond},
				emit("shop", "searching_offers", nil),
			},
			want: []stream.Event{
				stream.Status{Text: "Found some offers…", Sources: []stream.Source{src("shop", "found_offers")}},
				stream.Status{Text: "Searching offers…", Sources: []stream.Source{src("shop", "searching_offers")}},
			},
			wantObs: []observation{{"shop", "found_offers", "forward"}, {"shop", "searching_offers", "batch"}},
		},
		{
			name:      "flush emits the pending line at once",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{flush: true},
				emit("rewards", "checking_points", nil), // opens a new window
			},
			want: []stream.Event{
				stream.Status{Text: "Searching offers…", Sources: []stream.Source{src("shop", "searching_offers")}},
				stream.Status{Text: "Looking up your points balance…", Sources: []stream.Source{src("rewards", "checking_points")}},
			},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var out recorder
				var obs observer
				r := stream.NewRenderer(stream.RendererConfig{
					Vocabulary: vocabulary, Rendering: tt.rendering, Out: &out, Observe: obs.observe,
				})
				for _, s := range tt.steps {
					time.Sleep(s.wait) // fake time inside the bubble
					switch {
					case s.emit != nil:
						r.Emit(*s.emit)
					case s.flush:
						r.Flush()
					}
				}
				time.Sleep(time.Hour) // let every window close
				r.Close()
				if diff := cmp.Diff(tt.want, out.events()); diff != "" {
					t.Errorf("rendered lines mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantObs, obs.all()); diff != "" {
					t.Errorf("observations mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestRendererTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out recorder
		r := stream.NewRenderer(stream.RendererConfig{
			Vocabulary: vocabulary, Out: &out,
			Rendering: definitions.Rendering{BatchWindow: 250 * time.Millisecond},
		})
		defer r.Close()
		r.Emit(stream.Emission{AgentID: "shop", Event: "searching_offers"})
		time.Sleep(249 * time.Millisecond)
		synctest.Wait()
		if got := len(out.events()); got != 0 {
			t.Fatalf("lines before the window closed = %d, want 0", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := len(out.events()); got != 1 {
			t.Fatalf("lines when the window closed = %d, want 1", got)
		}
	})
}

func TestRendererConcurrentEmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out recorder
		var obs observer
		r := stream.NewRenderer(stream.RendererConfig{
			Vocabulary: vocabulary, Out: &out, Observe: obs.observe,
			Rendering: definitions.Rendering{BatchWindow: 250 * time.Millisecond},
		})
		var wg sync.WaitGroup
		for _, e := range []stream.Emission{
			{AgentID: "shop", Event: "searching_offers"},
			{AgentID: "rewards", Event: "checking_points"},
			{AgentID: "shop", Event: "cache_hit"},
		} {
			for range 10 {
				wg.Go(func() { r.Emit(e) })
			}
		}
		wg.Wait()
		r.Close()
		r.Emit(stream.Emission{AgentID: "shop", Event: "found_offers"}) // after Close: ignored
		evs := out.events()
		if len(evs) != 1 {
			t.Fatalf("lines = %v, want one merged line", evs)
		}
		if got := len(evs[0].(stream.Status).Sources); got != 2 {
			t.Errorf("merged line has %d sources, want 2", got)
		}
		if got := len(obs.all()); got != 30 {
			t.Errorf("observations = %d, want 30 (one per emission before Close)", got)
		}
	})
}
