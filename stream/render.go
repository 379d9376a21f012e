package stream

import (
	"strings"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/definitions"
)

// Observed outcomes reported to [RendererConfig.Observe] besides the four declared policies
// (forward, transform, suppress, batch).
const (
	ObservedUndeclared  = "undeclared"   // not in the agent's vocabulary: dropped, never shown
	ObservedRateLimited = "rate_limited" // would open a window within MinInterval of the agent's last line
	ObservedDuplicate   = "duplicate"    // same agent and event already on the pending line
)

// RendererConfig wires a [Renderer].
type RendererConfig struct {
	// Vocabulary is what each sub-agent declared: agent id -> event id -> rendering.
	Vocabulary map[string]map[string]definitions.StatusEvent
	// Rendering holds the batch window and the per-agent minimum interval; zero disables each.
	Rendering definitions.Rendering
	// Out receives the rendered [Status] lines, one at a time, in order. Nil discards them.
	Out Sink
	// Observe, if set, is told the fate of every emission (the status-events metric): policy is
	// a [definitions.Policy] value or one of the Observed* constants. It is called with the
	// renderer's lock held and must be quick.
	Observe func(agentID, event, policy string)
	// Now is the clock for rate limiting; nil means time.Now. The batch window runs on the time
	// package's timers, so tests drive both with testing/synctest.
	Now func() time.Time
}

// Renderer turns sub-agents' typed status events into user-visible [Status] lines, applying the
// orchestrator's rendering policy. One Renderer serves one turn.
//
// Rules, in order: an event the agent did not declare is dropped; suppress is never shown, nor
// is a transform whose text renders empty; forward shows the declared text and transform fills
// its {param} placeholders from the emission's sanitised parameters. Every shown event then
// waits for the batch window, so that sub-agents started together share one line ("Searching
// offers and looking up your points balance…"): with no window open, an event opens one; while
// it is open, events join its pending line, where the same agent and event twice collapse and
// equal texts from different agents are written once. The pending line goes out when the window
// closes, on [Renderer.Flush] or on [Renderer.Close]. With a zero BatchWindow each event is
// shown at once on its own line.
//
// Batch is therefore displayed exactly like forward; it stays a distinct policy so that an
// agent can declare that an event is meant to be merged, and so the metric can tell them apart.
//
// The rate limit counts lines, not events: an event that would open a window is dropped when
// its agent's previous line was shown less than MinInterval ago. As lines are shown when their
// window closes, that is measured from the close, so one chatty agent gets a quiet gap of
// MinInterval after each of its lines. Joining a window that is already open is never rate
// limited: the line goes out anyway and the event adds no line of its own.
//
// Emit, Flush and Close are safe for concurrent use.
type Renderer struct {
	cfg RendererConfig

	mu        sync.Mutex
	closed    bool
	open      bool   // a batch window is running; its pending line holds at least the opener
	gen       uint64 // identifies the window a timer belongs to
	timer     *time.Timer
	texts     []string
	sources   []Source
	seen      map[Source]bool // sources on the pending line
	pendText  map[string]bool // text keys of the pending line
	lastShown map[string]time.Time
}

// NewRenderer returns a renderer; it starts no goroutine until a batch window opens.
func NewRenderer(cfg RendererConfig) *Renderer {
	if cfg.Out == nil {
		cfg.Out = SinkFunc(func(Event) {})
	}
	if cfg.Observe == nil {
		cfg.Observe = func(string, string, string) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Renderer{cfg: cfg} // its maps are made with its first line: most turns show none
}

// Emit renders one typed status event according to the policy above. Emissions after
// [Renderer.Close] are ignored.
func (r *Renderer) Emit(e Emission) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	decl, ok := r.cfg.Vocabulary[e.AgentID][e.Event]
	if !ok {
		r.cfg.Observe(e.AgentID, e.Event, ObservedUndeclared)
		return
	}
	var text string
	switch decl.Policy {
	case definitions.PolicyForward, definitions.PolicyBatch:
		text = strings.TrimSpace(decl.Text)
	case definitions.PolicyTransform:
		text = fillTemplate(decl.Text, e.Params)
	default: // suppress, and anything the loader should have rejected: never shown
		r.cfg.Observe(e.AgentID, e.Event, string(decl.Policy))
		return
	}
	src := Source{AgentID: e.AgentID, Event: e.Event}
	if text == "" {
		r.cfg.Observe(e.AgentID, e.Event, string(definitions.PolicySuppress))
		return
	}
	if !r.open {
		last, ok := r.lastShown[e.AgentID]
		if ok && r.cfg.Now().Sub(last) < r.cfg.Rendering.MinInterval {
			r.cfg.Observe(e.AgentID, e.Event, ObservedRateLimited)
			return
		}
		window := r.cfg.Rendering.BatchWindow
		if window <= 0 {
			r.cfg.Observe(e.AgentID, e.Event, string(decl.Policy))
			r.publish([]string{text}, []Source{src})
			return
		}
		r.open = true
		r.gen++
		gen := r.gen
		r.timer = time.AfterFunc(window, func() { r.expire(gen) })
	}
	if r.seen[src] {
		r.cfg.Observe(e.AgentID, e.Event, ObservedDuplicate)
		return
	}
	r.cfg.Observe(e.AgentID, e.Event, string(decl.Policy))
	r.add(src, text)
}

// add puts an event on the pending line; a text already there only adds its source.
func (r *Renderer) add(src Source, text string) {
	if r.seen == nil {
		r.seen, r.pendText = map[Source]bool{}, map[string]bool{}
	}
	r.seen[src] = true
	r.sources = append(r.sources, src)
	if key := textKey(text); !r.pendText[key] {
		r.pendText[key] = true
		r.texts = append(r.texts, text)
	}
}

// textKey compares lines the way a reader would: case and trailing ellipses do not matter.
func textKey(text string) string {
	t := strings.TrimRight(strings.TrimSpace(text), ".… ")
	return strings.ToLower(t)
}

// Flush emits the pending line, if any, at once and closes the window. The orchestrator calls
// it before the reply starts so that no progress line arrives after reply text.
func (r *Renderer) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
}

// Close flushes and stops the window timer; later emissions are ignored. No goroutine of the
// renderer outlives Close, except a timer callback already running, which returns at once.
func (r *Renderer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	r.closed = true
}

func (r *Renderer) expire(gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A Flush may have closed this window, and another may have opened, while we waited.
	if r.closed || !r.open || gen != r.gen {
		return
	}
	r.flushLocked()
}

func (r *Renderer) flushLocked() {
	if !r.open {
		return
	}
	r.timer.Stop()
	r.open = false
	r.publish(r.texts, r.sources)
	r.texts, r.sources = nil, nil
	clear(r.seen)
	clear(r.pendText)
}

// publish sends one line; it runs under the lock so that lines leave in order.
func (r *Renderer) publish(texts []string, sources []Source) {
	now := r.cfg.Now()
	if r.lastShown == nil {
		r.lastShown = map[string]time.Time{}
	}
	for _, s := range sources {
		r.lastShown[s.AgentID] = now
	}
	r.cfg.Out.Publish(Status{Text: joinTexts(texts), Sources: sources})
}
