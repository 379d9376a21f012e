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
	ObservedRateLimited = "rate_limited" // closer than MinInterval to the agent's previous line
	ObservedDuplicate   = "duplicate"    // same agent and event already in the current window
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
// Rules, in order: an event the agent did not declare is dropped; suppress is never shown;
// forward shows the declared text and transform fills its {param} placeholders from the
// emission's sanitised parameters. While a batch window is open every shown event joins the
// pending line (duplicates collapse, and the rate limit does not apply); otherwise an event
// closer than MinInterval to its agent's previous line is dropped. With no window open, a
// forward or transform event is shown at once and opens the window, so that parallel events
// right behind it are merged into one following line; a batch event opens the window and waits
// for it. The pending line goes out when the window closes, on [Renderer.Flush] or on
// [Renderer.Close].
//
// Emit, Flush and Close are safe for concurrent use.
type Renderer struct {
	cfg RendererConfig

	mu        sync.Mutex
	closed    bool
	open      bool   // a batch window is running
	gen       uint64 // identifies the window a timer belongs to
	timer     *time.Timer
	texts     []string
	sources   []Source
	seen      map[Source]bool // sources already in this window, shown or pending
	shownText map[string]bool // text keys of the line that opened the window
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
	return &Renderer{
		cfg:       cfg,
		seen:      map[Source]bool{},
		shownText: map[string]bool{},
		pendText:  map[string]bool{},
		lastShown: map[string]time.Time{},
	}
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
	if r.open {
		r.join(src, text, decl.Policy)
		return
	}
	now := r.cfg.Now()
	if last, ok := r.lastShown[e.AgentID]; ok && now.Sub(last) < r.cfg.Rendering.MinInterval {
		r.cfg.Observe(e.AgentID, e.Event, ObservedRateLimited)
		return
	}
	r.cfg.Observe(e.AgentID, e.Event, string(decl.Policy))
	window := r.cfg.Rendering.BatchWindow
	if window <= 0 {
		r.publish([]string{text}, []Source{src})
		return
	}
	r.open = true
	r.gen++
	gen := r.gen
	r.timer = time.AfterFunc(window, func() { r.expire(gen) })
	if decl.Policy == definitions.PolicyBatch {
		r.add(src, text)
		return
	}
	r.seen[src] = true
	r.shownText[textKey(text)] = true
	r.publish([]string{text}, []Source{src})
}

// join adds an event to the open window's pending line. The same agent and event twice, or a
// text the window's first line already showed, collapse into what is there.
func (r *Renderer) join(src Source, text string, policy definitions.Policy) {
	if r.seen[src] || r.shownText[textKey(text)] {
		r.cfg.Observe(src.AgentID, src.Event, ObservedDuplicate)
		return
	}
	r.cfg.Observe(src.AgentID, src.Event, string(policy))
	r.add(src, text)
}

// add puts an event on the pending line; a text already there only adds its source.
func (r *Renderer) add(src Source, text string) {
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
	if len(r.sources) > 0 {
		r.publish(r.texts, r.sources)
	}
	r.texts, r.sources = nil, nil
	clear(r.seen)
	clear(r.shownText)
	clear(r.pendText)
}

// publish sends one line; it runs under the lock so that lines leave in order.
func (r *Renderer) publish(texts []string, sources []Source) {
	now := r.cfg.Now()
	for _, s := range sources {
		r.lastShown[s.AgentID] = now
	}
	r.cfg.Out.Publish(Status{Text: joinTexts(texts), Sources: sources})
}
