package answer

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// Words that place a day or a stretch of time relative to today (see language.txt).
var (
	spanBack    = lang.List("spanBack")
	spanAhead   = lang.List("spanAhead")
	spanCurrent = lang.List("spanCurrent")
	spanBefore  = lang.List("spanBefore")
	spanAfter   = lang.List("spanAfter")
	dayBefore   = lang.List("dayBefore")
	dayOf       = lang.List("dayOf")
	dayAfter    = lang.List("dayAfter")
)

// CutToday returns the day a system prompt states as today's, zero when it states none, and
// the prompt without the sentence that states it: that sentence is about the calendar, not
// the agent, and its words ("date", a weekday) are no words of the agent's trade. The model
// has no clock of its own: a day it does not read from the prompt it cannot know.
func CutToday(system string) (rest string, today time.Time) {
	cut := cutPrompts.Get(system, func() cutPrompt {
		rest, today := cutToday(system)
		return cutPrompt{rest, today}
	})
	return cut.rest, cut.today
}

// cutPrompts keeps what CutToday made of each system prompt it read: a deployment sends the
// same few prompts on every turn, and looking one up costs a fraction of reading it whole
// for the word today. The prompt itself is the key, so a prompt that states another day is
// read afresh.
var cutPrompts = lang.NewCache[string, cutPrompt](256)

// cutPrompt is CutToday's answer for one prompt.
type cutPrompt struct {
	rest  string
	today time.Time
}

// cutToday is CutToday without the cache.
func cutToday(system string) (rest string, today time.Time) {
	m := findToday(system)
	if m == nil {
		return system, time.Time{}
	}
	day, err := time.Parse(time.DateOnly, system[m[2]:m[3]])
	if err != nil {
		return system, time.Time{}
	}
	start := strings.LastIndexAny(system[:m[0]], ".!?\n") + 1
	end := len(system)
	if i := strings.IndexAny(system[m[1]:], "\n"); i >= 0 {
		end = m[1] + i
	}
	if i := strings.Index(system[m[1]:end], ". "); i >= 0 {
		end = m[1] + i + 1
	}
	return strings.TrimSpace(system[:start]) + sentenceGap(system[:start], system[end:]) + strings.TrimSpace(system[end:]), day
}

// findToday finds the date a system prompt states as today's, the way deployments state it
// ("Today's date is 2026-11-28"): an ISO date at most 40 runes after the word today (written
// today, Today or TODAY) with no line break or digit between. It returns the match's start and
// end and the date's, or nil. It is read by hand: run over a whole prompt, the case-blind
// pattern with word boundaries it replaces cost more than the rest of a turn (a third of a
// server's CPU on the demo's prompts); FuzzFindToday holds the two to each other.
func findToday(system string) []int {
	lower, upper := nextToday(system, 0, "oday"), nextToday(system, 0, "ODAY")
	for lower >= 0 || upper >= 0 {
		at := lower
		if at < 0 || upper >= 0 && upper < at {
			at, upper = upper, nextToday(system, upper+1, "ODAY")
		} else {
			lower = nextToday(system, lower+1, "oday")
		}
		end := at + len("today")
		if at > 0 && isWordByte(system[at-1]) || end < len(system) && isWordByte(system[end]) {
			continue
		}
		// Up to 40 runes that are neither digits nor line breaks, then the date.
		i := end
		for runes := 0; runes < 40 && i < len(system) && !isDigit(system[i]) && system[i] != '\n'; runes++ {
			_, size := utf8.DecodeRuneInString(system[i:])
			i += size
		}
		if isISODate(system[i:]) && (i+10 == len(system) || !isWordByte(system[i+10])) {
			return []int{at, i + 10, i, i + 10}
		}
	}
	return nil
}

// nextToday is the index of the first word today at or after from, in any case, whose last
// four letters are written as tail ("oday" or "ODAY"); -1 when there is none.
func nextToday(s string, from int, tail string) int {
	for from++; from < len(s); { // from: where tail may start, one past the t
		i := strings.Index(s[from:], tail)
		if i < 0 {
			return -1
		}
		at := from + i - 1
		if s[at] == 't' || s[at] == 'T' {
			return at
		}
		from += i + 1
	}
	return -1
}

// isISODate reports whether s starts with a date's shape, dddd-dd-dd.
func isISODate(s string) bool {
	if len(s) < 10 {
		return false
	}
	for i := range 10 {
		if (i == 4 || i == 7) != (s[i] == '-') || i != 4 && i != 7 && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isWordByte is what \b counts as a word character: ASCII letters, digits and '_'.
func isWordByte(c byte) bool {
	return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_'
}

// sentenceGap joins what comes before and after a sentence cut out: a line break when either
// side had one there, a space otherwise, nothing at either end.
func sentenceGap(before, after string) string {
	before, after = strings.TrimRight(before, " \t"), strings.TrimLeft(after, " \t")
	switch {
	case strings.TrimSpace(before) == "" || strings.TrimSpace(after) == "":
		return ""
	case strings.HasSuffix(before, "\n") || strings.HasPrefix(after, "\n"):
		return "\n"
	}
	return " "
}

// span is a stretch of days, from its first to the day after its last.
type span struct{ from, until time.Time }

// holds reports whether day t falls in the span.
func (s span) holds(t time.Time) bool {
	d := dayStart(t)
	return !d.Before(s.from) && d.Before(s.until)
}

// dayStart is the start of t's day, in UTC as the spans count days.
func dayStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// relativeSpan reads the days a request names relative to today ("yesterday", "last sunday",
// "earlier this month", "next week"), the first it names; ok is false when it names none or
// today is unknown.
func relativeSpan(ws []lang.Word, today time.Time) (s span, ok bool) {
	if today.IsZero() {
		return span{}, false
	}
	day := dayStart(today)
	for i, w := range ws {
		switch {
		case dayBefore[w.Lower]:
			return oneDay(day.AddDate(0, 0, -1)), true
		case dayOf[w.Lower]:
			return oneDay(day), true
		case dayAfter[w.Lower]:
			return oneDay(day.AddDate(0, 0, 1)), true
		}
		if i+1 >= len(ws) {
			continue
		}
		how, unit := w.Lower, ws[i+1].Lower
		if !spanBack[how] && !spanAhead[how] && !spanCurrent[how] {
			continue
		}
		if wd, isDay := weekday(unit); isDay {
			return oneDay(weekdayFrom(day, wd, how)), true
		}
		s, ok := unitSpan(day, unit, how)
		if !ok {
			continue
		}
		if i > 0 && spanCurrent[how] {
			// "earlier this month": the part of it before today; "later this week", after.
			switch prev := ws[i-1].Lower; {
			case spanBefore[prev]:
				s.until = day
			case spanAfter[prev]:
				s.from = day.AddDate(0, 0, 1)
			}
		}
		return s, s.from.Before(s.until)
	}
	return span{}, false
}

// oneDay is the span of day d.
func oneDay(d time.Time) span { return span{d, d.AddDate(0, 0, 1)} }

// weekday reads a weekday's name.
func weekday(word string) (time.Weekday, bool) {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), word) {
			return d, true
		}
	}
	return 0, false
}

// weekdayFrom is the weekday wd that how names from day: "last sunday" the one before it,
// "next sunday" the one after, "this sunday" the one from it on.
func weekdayFrom(day time.Time, wd time.Weekday, how string) time.Time {
	ahead := (int(wd) - int(day.Weekday()) + 7) % 7
	switch {
	case spanBack[how]:
		back := (int(day.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7
		}
		return day.AddDate(0, 0, -back)
	case spanAhead[how] && ahead == 0:
		ahead = 7
	}
	return day.AddDate(0, 0, ahead)
}

// unitSpan is the week (Monday to Sunday), month or year that how names from day: the one
// before ("last"), after ("next") or that holds it ("this"); ok is false for another unit.
func unitSpan(day time.Time, unit, how string) (s span, ok bool) {
	step := 0
	switch {
	case spanBack[how]:
		step = -1
	case spanAhead[how]:
		step = 1
	}
	switch unit {
	case "week":
		monday := day.AddDate(0, 0, -((int(day.Weekday())+6)%7)).AddDate(0, 0, 7*step)
		return span{monday, monday.AddDate(0, 0, 7)}, true
	case "month":
		first := time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, step, 0)
		return span{first, first.AddDate(0, 1, 0)}, true
	case "year":
		first := time.Date(day.Year()+step, 1, 1, 0, 0, 0, 0, time.UTC)
		return span{first, first.AddDate(1, 0, 0)}, true
	}
	return span{}, false
}

// datedItems returns the records of arr dated in the days the request names relative to
// today ("did we win last sunday": the match played on that Sunday), when every record is
// dated and some are dated then and others not. Nil otherwise.
func (r renderer) datedItems(arr []any) []any {
	if !r.within.from.Before(r.within.until) || len(arr) < 2 {
		return nil
	}
	dated := true
	in, rest := partition(arr, arr, func(item any) bool {
		at, ok := recordDate(item, r.within)
		dated = dated && ok
		return ok && r.within.holds(at)
	})
	// An undated record ("Plan: $60.00" among a bill's charges) may be for those days too.
	if !dated || len(in) == 0 || len(rest) == 0 {
		return nil
	}
	return in
}

// recordDate is the day a record is dated by within s: the year it is for, when s is a
// year and a member names one ("year": 2025, a return for 2025 filed in 2026); the month it is
// for, when a member is a month ("month": "2026-10", an October invoice issued in November);
// or else its first date.
func recordDate(item any, s span) (time.Time, bool) {
	obj, _ := item.([]field)
	var first time.Time
	for _, f := range obj {
		if y, ok := yearOf(f); ok && s.isYear() {
			return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC), true
		}
		str, ok := f.val.(string)
		if !ok {
			continue
		}
		if w, isDate := parseWhen(str); isDate {
			if w.month {
				return w.t, true
			}
			if first.IsZero() {
				first = w.t
			}
		}
	}
	return first, !first.IsZero()
}

// yearOf reads a member that names a year ("year": 2025, "tax_year": 2024).
func yearOf(f field) (int, bool) {
	n, ok := f.val.(json.Number)
	if !ok || !slices.Contains(lang.Terms(f.key), "year") {
		return 0, false
	}
	y, err := strconv.Atoi(string(n))
	return y, err == nil && y >= 1000 && y <= 9999
}

// isYear reports whether the span is one calendar year.
func (s span) isYear() bool {
	return s.from.YearDay() == 1 && s.until.Equal(s.from.AddDate(1, 0, 0))
}
