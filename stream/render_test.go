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

// line is one rendered event and when it left the renderer, in fake time since the test began.
type line struct {
	At    time.Duration
	Event stream.Event
}

// recorder is a goroutine-safe Sink that keeps what it receives and when; inside a synctest
// bubble the times are exact.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	lines []line
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

func (r *recorder) Publish(ev stream.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line{At: time.Since(r.start), Event: ev})
}

func (r *recorder) all() []line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]line(nil), r.lines...)
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
		"query_only":       {Text: "{query}", Policy: definitions.PolicyTransform},
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

// status is a rendered line published at the given fake time.
func status(at time.Duration, text string, sources ...stream.Source) line {
	return line{At: at, Event: stream.Status{Text: text, Sources: sources}}
}

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
	const ms = time.Millisecond
	rendering := definitions.Rendering{BatchWindow: 250 * ms, MinInterval: time.Second}
	tests := []struct {
		name      string
		rendering definitions.Rendering
		steps     []step
		want      []line
		wantObs   []observation
	}{
		{
			name:      "forward events from two agents inside the window give one line",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil),
				{wait: 100 * ms},
				emit("shop", "found_offers", nil),
			},
			want: []line{status(250*ms, "Checking your orders and found some offers…",
				src("support", "checking_orders"), src("shop", "found_offers"))},
			wantObs: []observation{{"support", "checking_orders", "forward"}, {"shop", "found_offers", "forward"}},
		},
		{
			name:      "forward events from two agents outside the window give two lines",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil),
				{wait: 300 * ms},
				emit("shop", "found_offers", nil),
			},
			want: []line{
				status(250*ms, "Checking your orders…", src("support", "checking_orders")),
				status(550*ms, "Found some offers…", src("shop", "found_offers")),
			},
			wantObs: []observation{{"support", "checking_orders", "forward"}, {"shop", "found_offers", "forward"}},
		},
		{
			name:      "batch events inside the window merge into one line",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{wait: 100 * ms},
				emit("rewards", "checking_points", nil),
			},
			want: []line{status(250*ms, "Searching offers and looking up your points balance…",
				src("shop", "searching_offers"), src("rewards", "checking_points"))},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
		{
			name:      "batch events outside the window give two lines",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{wait: 300 * ms},
				emit("rewards", "checking_points", nil),
			},
			want: []line{
				status(250*ms, "Searching offers…", src("shop", "searching_offers")),
				status(550*ms, "Looking up your points balance…", src("rewards", "checking_points")),
			},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
		{
			name:      "forward, transform and batch share one window",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil),
				{wait: 10 * ms},
				emit("shop", "offers_for", map[string]string{"query": "running shoes"}),
				{wait: 200 * ms},
				emit("rewards", "checking_points", nil),
			},
			want: []line{status(250*ms, "Checking your orders, searching offers for running shoes and looking up your points balance…",
				src("support", "checking_orders"), src("shop", "offers_for"), src("rewards", "checking_points"))},
			wantObs: []observation{
				{"support", "checking_orders", "forward"}, {"shop", "offers_for", "transform"}, {"rewards", "checking_points", "batch"},
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
			want: []line{status(250*ms, "Searching offers…", src("shop", "searching_offers"), src("rewards", "same_text"))},
			wantObs: []observation{
				{"shop", "searching_offers", "batch"}, {"shop", "searching_offers", "duplicate"}, {"rewards", "same_text", "batch"},
			},
		},
		{
			name:      "undeclared, suppressed and empty are never shown",
			rendering: rendering,
			steps: []step{
				emit("shop", "made_up", nil),
				emit("ghost", "searching_offers", nil),
				emit("shop", "cache_hit", nil),
				emit("shop", "query_only", map[string]string{"query": "{}"}),
			},
			want: nil,
			wantObs: []observation{
				{"shop", "made_up", "undeclared"}, {"ghost", "searching_offers", "undeclared"},
				{"shop", "cache_hit", "suppress"}, {"shop", "query_only", "suppress"},
			},
		},
		{
			name:      "with no window each line is shown at once and transform fills sanitised params",
			rendering: definitions.Rendering{},
			steps: []step{
				emit("shop", "offers_for", map[string]string{"query": "  running\nshoes {x} "}),
				{wait: 10 * ms},
				emit("shop", "offers_for", nil),
			},
			want: []line{
				status(0, "Searching offers for running shoes x…", src("shop", "offers_for")),
				status(10*ms, "Searching offers…", src("shop", "offers_for")),
			},
			wantObs: []observation{{"shop", "offers_for", "transform"}, {"shop", "offers_for", "transform"}},
		},
		{
			// The interval runs from when the line was shown (its window's close), not from
			// when the event that opened the window arrived.
			name:      "rate limit drops an agent's event closer than MinInterval to its shown line",
			rendering: rendering,
			steps: []step{
				emit("support", "checking_orders", nil), // shown at 250ms
				{wait: 500 * ms},
				emit("support", "checking_orders", nil), // 250ms after its line: dropped
				emit("shop", "found_offers", nil),       // another agent: opens a window
				{wait: 600 * ms},
				emit("support", "checking_orders", nil), // 1.1s after its last event, 850ms after its line: dropped
				{wait: 200 * ms},
				emit("support", "checking_orders", nil), // 1.05s after its line: shown
			},
			want: []line{
				status(250*ms, "Checking your orders…", src("support", "checking_orders")),
				status(750*ms, "Found some offers…", src("shop", "found_offers")),
				status(1550*ms, "Checking your orders…", src("support", "checking_orders")),
			},
			wantObs: []observation{
				{"support", "checking_orders", "forward"}, {"support", "checking_orders", "rate_limited"},
				{"shop", "found_offers", "forward"}, {"support", "checking_orders", "rate_limited"},
				{"support", "checking_orders", "forward"},
			},
		},
		{
			name:      "an open window takes what the rate limit would drop",
			rendering: rendering,
			steps: []step{
				emit("shop", "found_offers", nil), // shown at 250ms
				{wait: 300 * ms},
				emit("rewards", "checking_points", nil), // opens a window closing at 550ms
				{wait: 50 * ms},
				emit("shop", "searching_offers", nil), // 100ms after shop's line, but joins
			},
			want: []line{
				status(250*ms, "Found some offers…", src("shop", "found_offers")),
				status(550*ms, "Looking up your points balance and searching offers…",
					src("rewards", "checking_points"), src("shop", "searching_offers")),
			},
			wantObs: []observation{
				{"shop", "found_offers", "forward"}, {"rewards", "checking_points", "batch"}, {"shop", "searching_offers", "batch"},
			},
		},
		{
			name:      "flush emits the pending line at once",
			rendering: rendering,
			steps: []step{
				emit("shop", "searching_offers", nil),
				{wait: 100 * ms},
				{flush: true},
				emit("rewards", "checking_points", nil), // opens a new window
			},
			want: []line{
				status(100*ms, "Searching offers…", src("shop", "searching_offers")),
				status(350*ms, "Looking up your points balance…", src("rewards", "checking_points")),
			},
			wantObs: []observation{{"shop", "searching_offers", "batch"}, {"rewards", "checking_points", "batch"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out := newRecorder()
				var obs observer
				r := stream.NewRenderer(stream.RendererConfig{
					Vocabulary: vocabulary, Rendering: tt.rendering, Out: out, Observe: obs.observe,
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
				if diff := cmp.Diff(tt.want, out.all()); diff != "" {
					t.Errorf("rendered lines mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantObs, obs.all()); diff != "" {
					t.Errorf("observations mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestRendererCloseFlushes checks that Close emits the pending line before its window would
// have closed, and that nothing is emitted after it.
func TestRendererCloseFlushes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := newRecorder()
		r := stream.NewRenderer(stream.RendererConfig{
			Vocabulary: vocabulary, Out: out,
			Rendering: definitions.Rendering{BatchWindow: 250 * time.Millisecond},
		})
		r.Emit(stream.Emission{AgentID: "support", Event: "checking_orders"})
		time.Sleep(50 * time.Millisecond)
		r.Close()
		r.Emit(stream.Emission{AgentID: "shop", Event: "found_offers"}) // after Close: ignored
		time.Sleep(time.Hour)
		want := []line{status(50*time.Millisecond, "Checking your orders…", src("support", "checking_orders"))}
		if diff := cmp.Diff(want, out.all()); diff != "" {
			t.Errorf("rendered lines mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestRendererConcurrentEmit has three agents, with forward and batch events, emit at the same
// instant from many goroutines: they must come out as one line naming each source once.
func TestRendererConcurrentEmit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := newRecorder()
		var obs observer
		r := stream.NewRenderer(stream.RendererConfig{
			Vocabulary: vocabulary, Out: out, Observe: obs.observe,
			Rendering: definitions.Rendering{BatchWindow: 250 * time.Millisecond, MinInterval: time.Second},
		})
		emissions := []stream.Emission{
			{AgentID: "shop", Event: "searching_offers"},
			{AgentID: "rewards", Event: "checking_points"},
			{AgentID: "support", Event: "checking_orders"},
			{AgentID: "shop", Event: "cache_hit"},
		}
		var wg sync.WaitGroup
		for _, e := range emissions {
			for range 10 {
				wg.Go(func() { r.Emit(e) })
			}
		}
		wg.Wait()
		time.Sleep(time.Hour)
		r.Close()
		lines := out.all()
		if len(lines) != 1 {
			t.Fatalf("lines = %v, want one merged line", lines)
		}
		st := lines[0].Event.(stream.Status)
		got := map[stream.Source]int{}
		for _, s := range st.Sources {
			got[s]++
		}
		want := map[stream.Source]int{
			src("shop", "searching_offers"): 1, src("rewards", "checking_points"): 1, src("support", "checking_orders"): 1,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sources of the merged line (-want +got):\n%s", diff)
		}
		if lines[0].At != 250*time.Millisecond {
			t.Errorf("merged line shown at %s, want when the window closed (250ms)", lines[0].At)
		}
		if got := len(obs.all()); got != 40 {
			t.Errorf("observations = %d, want 40 (one per emission)", got)
		}
	})
}
