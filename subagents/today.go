package subagents

import (
	"time"

	"github.com/tmc/langchaingo/llms"
)

// WithClock sets the clock the sub-agent reads today's date from, which its system prompt
// states so that the LLM can resolve the days users name relative to it ("yesterday", "last
// sunday", "earlier this month"). Default time.Now; an eval pins it for reproducible runs.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// todayHead starts the system prompt's line that states the current date, in UTC.
const todayHead = "Today's date is "

// datedPrompt is the base prompt with one day's date line, built once per day: most
// invocations of a day share it.
type datedPrompt struct {
	year  int
	month time.Month
	day   int
	text  string
	part  llms.ContentPart
}

// datedBase returns the base prompt stating the clock's current day (UTC), building it when
// the day has changed since the last invocation. Comparing the day's numbers, not its text,
// keeps the common case free of allocations.
func (a *Agent) datedBase() *datedPrompt {
	t := a.opts.now().UTC()
	y, m, d := t.Date()
	if p := a.dated.Load(); p != nil && p.year == y && p.month == m && p.day == d {
		return p
	}
	text := a.basePrompt + "\n" + todayLine(t)
	p := &datedPrompt{year: y, month: m, day: d, text: text, part: llms.TextContent{Text: text}}
	a.dated.Store(p)
	return p
}

// todayLine states day's date: the ISO date, which no reader misreads, and its weekday,
// which relative days ("last sunday") count from.
func todayLine(day time.Time) string {
	return todayHead + day.Format(time.DateOnly) + " (" + day.Weekday().String() + ", UTC)."
}
