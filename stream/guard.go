package stream

import (
	"strings"
	"sync"
)

// GuardConfig lists what a [Guard] removes besides its built-in patterns.
type GuardConfig struct {
	// Forbidden are literal strings users must never see, matched case-insensitively: enricher
	// ids, internal codes, host names.
	Forbidden []string
}

// genericFailure replaces an error message that scrubbing emptied.
const genericFailure = "Something went wrong on our side. Please try again."

// Guard is a [Sink] that scrubs user-visible text before passing events on: the text of
// [Status], [ReplyDelta], [ReplyCompleted] and [Error] loses internal ids, error codes, HTTP
// status phrases, Go panics and stack frames, and JSON error payloads (users see words,
// never internals). The structured components of a [ReplyCompleted] get the same scrubbing in
// every JSON string they hold, and at most [MaxComponentBytes] of them are kept (the text is
// always kept). Other events pass unchanged.
//
// Reply deltas are a stream: the Guard holds back only what a match could still be growing
// into (the word being written, or a short window after text that starts a pattern), so that a
// token split across deltas is still caught while prose flows on within a word. The tail is
// emitted as a final delta before the next [ReplyCompleted], [Error] or [TurnCompleted]. The
// deltas a Guard emits for a reply concatenate exactly to the text of the [ReplyCompleted] it
// emits, and to what scrubbing the whole reply at once gives.
//
// One Guard serves one turn. Publish is safe for concurrent use; events leave in the order they
// were published.
type Guard struct {
	next Sink
	sc   *scrubber

	mu       sync.Mutex
	stream   streamScrubber
	raw      Text // the reply's deltas as received
	sent     Text // the reply's deltas as emitted
	scrubbed int
	reply    string // the text of the last ReplyCompleted emitted
	replied  bool
}

var _ Sink = (*Guard)(nil)

// GuardPolicy is a compiled [GuardConfig]: compile it once and make a [Guard] per turn from
// it, since compiling the patterns costs far more than scrubbing a turn.
type GuardPolicy struct {
	sc *scrubber
}

// CompileGuard compiles cfg. It is safe for concurrent use once compiled.
func CompileGuard(cfg GuardConfig) *GuardPolicy {
	sc, err := newScrubber(cfg.Forbidden)
	if err != nil {
		// Forbidden strings are quoted, so only a broken built-in pattern gets here, and the
		// package tests compile those.
		panic(err)
	}
	return &GuardPolicy{sc: sc}
}

// Guard returns a new Guard, for one turn, that publishes scrubbed events to next (nil
// discards them).
func (p *GuardPolicy) Guard(next Sink) *Guard {
	if next == nil {
		next = SinkFunc(func(Event) {})
	}
	return &Guard{next: next, sc: p.sc, stream: streamScrubber{sc: p.sc}}
}

// NewGuard compiles cfg and returns a Guard over next: CompileGuard(cfg).Guard(next).
func NewGuard(next Sink, cfg GuardConfig) *Guard {
	return CompileGuard(cfg).Guard(next)
}

// Publish scrubs ev and passes it on.
func (g *Guard) Publish(ev Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch e := ev.(type) {
	case ReplyDelta:
		g.raw.Write(e.Text)
		out, n := g.stream.write(e.Text)
		g.scrubbed += n
		g.emitDelta(out)
	case ReplyCompleted:
		g.flushTail()
		if g.raw.String() == e.Text {
			// The reply was streamed: its text is exactly what the client already has.
			e.Text = g.sent.String()
		} else {
			var n int
			e.Text, n = g.sc.scrub(e.Text)
			g.scrubbed += n
		}
		var n int
		e.Components, n = g.sc.guardComponents(e.Components)
		g.scrubbed += n
		g.raw.Reset()
		g.sent.Reset()
		g.reply, g.replied = e.Text, true
		g.next.Publish(e)
	case Status:
		var n int
		e.Text, n = g.sc.scrub(e.Text)
		g.scrubbed += n
		e.Text = strings.TrimSpace(e.Text)
		if e.Text == "" {
			return // nothing left worth showing
		}
		g.next.Publish(e)
	case Error:
		g.flushTail()
		var n int
		e.Message, n = g.sc.scrub(e.Message)
		g.scrubbed += n
		if e.Message = strings.TrimSpace(e.Message); e.Message == "" || n > 0 && !hasWords(e.Message) {
			e.Message = genericFailure
		}
		g.next.Publish(e)
	case TurnCompleted:
		g.flushTail()
		g.next.Publish(e)
	default:
		g.next.Publish(ev)
	}
}

// Reply returns the text of the last [ReplyCompleted] the Guard emitted: what clients were
// shown, and so what is stored and served later. Without one, it returns text scrubbed.
func (g *Guard) Reply(text string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.replied {
		return g.reply
	}
	out, _ := g.sc.scrub(text)
	return out
}

// Scrubbed reports how many matches the Guard has removed so far.
func (g *Guard) Scrubbed() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.scrubbed
}

func (g *Guard) flushTail() {
	out, n := g.stream.flush()
	g.scrubbed += n
	g.emitDelta(out)
}

func (g *Guard) emitDelta(text string) {
	if text == "" {
		return
	}
	g.sent.Write(text)
	g.next.Publish(ReplyDelta{Text: text})
}

// Text collects a reply's text as it streams. A reply that comes in one piece, as it does
// from a model that answers at once, is kept as the string it came as rather than copied into
// a buffer; a second piece starts the buffer. The zero value is empty and ready.
type Text struct {
	one  string
	many strings.Builder
}

// Write appends s.
func (p *Text) Write(s string) {
	switch {
	case p.many.Len() > 0:
		p.many.WriteString(s)
	case p.one == "":
		p.one = s
	case s != "":
		p.many.Grow(len(p.one) + len(s))
		p.many.WriteString(p.one)
		p.many.WriteString(s)
		p.one = ""
	}
}

// Len returns the length of the text so far, in bytes.
func (p *Text) Len() int { return max(len(p.one), p.many.Len()) }

// String returns the text so far.
func (p *Text) String() string {
	if p.many.Len() > 0 {
		return p.many.String()
	}
	return p.one
}

// Reset empties p.
func (p *Text) Reset() {
	p.one = ""
	p.many.Reset()
}

// hasWords reports whether a scrubbed message still says something: at least two letters.
func hasWords(s string) bool {
	letters := 0
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r > 0x7f {
			letters++
		}
	}
	return letters >= 2
}
