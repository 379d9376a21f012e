package answer

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// TestCutToday checks that the day a system prompt states as today is read, and the
// sentence stating it taken out of the prompt the model reads for the agent's words.
func TestCutToday(t *testing.T) {
	tests := []struct {
		name, system, want, rest string
	}{
		{"its own line", "You help with pensions.\nToday's date is 2026-11-28 (Saturday, UTC).\nUser locale: en-GB.", "2026-11-28", "You help with pensions.\nUser locale: en-GB."},
		{"within a line", "You help with pensions. Today is 2026-03-01. Be brief.", "2026-03-01", "You help with pensions. Be brief."},
		{"none stated", "You help with pensions, today and every day.", "", "You help with pensions, today and every day."},
		{"not a date", "Today's date is 2026-13-45.", "", "Today's date is 2026-13-45."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for read := range 2 { // the second answer comes from the cache
				rest, day := CutToday(tt.system)
				got := ""
				if !day.IsZero() {
					got = day.Format(time.DateOnly)
				}
				if got != tt.want || rest != tt.rest {
					t.Errorf("read %d: CutToday(%q) = %q, %q; want %q, %q", read, tt.system, rest, got, tt.rest, tt.want)
				}
			}
		})
	}
}

// TestRelativeSpan checks the days a request names relative to a given today (a Saturday).
func TestRelativeSpan(t *testing.T) {
	today := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		asked, from, until string // until is the day after the span's last; "" for no span
	}{
		{"did we win last sunday", "2026-11-22", "2026-11-23"},
		{"what did i order yesterday", "2026-11-27", "2026-11-28"},
		{"is anything due tomorrow", "2026-11-29", "2026-11-30"},
		{"is the plumber coming tmrw", "2026-11-29", "2026-11-30"},
		{"what did i spend yday", "2026-11-27", "2026-11-28"},
		{"what's on this saturday", "2026-11-28", "2026-11-29"},
		{"what's on next saturday", "2026-12-05", "2026-12-06"},
		{"how much did they pay in last month", "2026-10-01", "2026-11-01"},
		{"the tyre they fixed earlier this month", "2026-11-01", "2026-11-28"},
		{"anything booked later this week", "2026-11-29", "2026-11-30"},
		{"any games next week", "2026-11-30", "2026-12-07"},
		{"my refund for last year", "2025-01-01", "2026-01-01"},
		{"when was my last payment", "", ""},
		{"the last time i paid", "", ""},
	}
	for _, tt := range tests {
		s, ok := relativeSpan(lang.ScanWords(tt.asked), today)
		got := [2]string{}
		if ok {
			got = [2]string{s.from.Format(time.DateOnly), s.until.Format(time.DateOnly)}
		}
		if got != [2]string{tt.from, tt.until} {
			t.Errorf("relativeSpan(%q) = %v, want [%s %s]", tt.asked, got, tt.from, tt.until)
		}
	}
	if _, ok := relativeSpan(lang.ScanWords("did we win last sunday"), time.Time{}); ok {
		t.Error("relativeSpan with no today found a span, want none: the model has no clock")
	}
}

// TestNarrateRelativeDays checks that the days a request names relative to today pick the
// records dated in them, and that with no today known they pick nothing.
func TestNarrateRelativeDays(t *testing.T) {
	results := `{"status":"ok","data":{"results":[
		{"date":"2026-11-22","opponent":"Vauxhall Motors FC","outcome":"won"},
		{"date":"2026-11-15","opponent":"Kennington Athletic","outcome":"lost"}]}}`
	contributions := `{"status":"ok","data":{"contributions":[
		{"month":"2026-11-01","employer":{"amount":200,"currency":"USD"}},
		{"month":"2026-10-01","employer":{"amount":210,"currency":"USD"}},
		{"month":"2026-09-01","employer":{"amount":205,"currency":"USD"}}]}}`
	saturday := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, data, asked string
		today             time.Time
		want, not         string
	}{
		{"last sunday", results, "did we win last sunday", saturday, "Vauxhall", "Kennington"},
		{"the sunday before a later today", results, "did we win last sunday", saturday.AddDate(0, 0, -7), "Kennington", "Vauxhall"},
		{"last month", contributions, "how much did my employer pay in last month", saturday, "210", "205"},
		{"no today known", results, "did we win last sunday", time.Time{}, "Kennington", "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Narrate(Result{Name: "matches", Content: tt.data, Today: tt.today}, tt.asked, 5, func() map[string]bool { return nil })
			got := p.found + "\n" + p.text
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("Narrate(%q) = %q, want %q and no %q", tt.asked, got, tt.want, tt.not)
			}
		})
	}
}

// TestNarrateRelativeDaysUndated checks that records with no date are not taken to fall
// outside the days asked about: a bill's plan charge is this month's too.
func TestNarrateRelativeDaysUndated(t *testing.T) {
	charges := `{"status":"ok","data":{"charges":[
		{"label":"Plan: Share 20","amount":{"amount":60,"currency":"USD"}},
		{"label":"Roaming day pass","amount":{"amount":10,"currency":"USD"},"date":"2026-11-03"}]}}`
	p := Narrate(Result{Name: "bill", Content: charges, Today: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},
		"why is my phone bill so high this month", 5, func() map[string]bool { return map[string]bool{"phone": true, "bill": true} })
	if got := p.found + "\n" + p.text; !strings.Contains(got, "Plan") || !strings.Contains(got, "Roaming") {
		t.Errorf("Narrate = %q, want both charges", got)
	}
}

// TestNarrateRelativeYear checks that a year named from today picks, of the records the
// request's words name, the one for that year by a member naming it, whenever it was filed.
func TestNarrateRelativeYear(t *testing.T) {
	returns := `{"status":"ok","data":{"returns":[
		{"year":2025,"form":"1040","jurisdiction":"federal","efiled":"2026-04-09","refund":{"amount":1842,"currency":"USD"}},
		{"year":2025,"form":"OR-40","jurisdiction":"Oregon","efiled":"2026-04-09","balance_due":{"amount":312,"currency":"USD"}},
		{"year":2024,"form":"1040-X","jurisdiction":"federal","filed":"2026-08-22","refund":{"amount":655,"currency":"USD"}}]}}`
	p := Narrate(Result{Name: "returns", Content: returns, Today: time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},
		"did my federal refund for last year ever come", 5, func() map[string]bool { return map[string]bool{"tax": true} })
	if got := p.found + "\n" + p.text; !strings.Contains(got, "1,842") || strings.Contains(got, "655") {
		t.Errorf("Narrate = %q, want the 2025 federal return alone", got)
	}
}

// todayDate is what findToday reads, as a pattern: the reference FuzzFindToday holds it to.
var todayDate = regexp.MustCompile(`(?i)\btoday\b[^\n\d]{0,40}(\d{4}-\d{2}-\d{2})\b`)

// fuzzTodayCases seed FuzzFindToday: the date near, far from and without its "today".
var fuzzTodayCases = []string{
	"You help with pensions.\nToday's date is 2026-11-28 (Saturday, UTC).",
	"TODAY: 2026-01-02. today is 2026-01-03",
	"yesterday 2026-01-01, today, then on a new line\n2026-01-02",
	"xtoday 2026-01-01 Today 2026-01-05",
	"today " + strings.Repeat("é", 40) + "2026-01-01",
	"today " + strings.Repeat("é", 41) + "2026-01-01",
	"today 2026-01-011",
	"oday 2026-01-01",
}

// FuzzFindToday holds findToday to the pattern run over the whole prompt, for prompts that write the word today, Today or TODAY.
func FuzzFindToday(f *testing.F) {
	for _, s := range fuzzTodayCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i+5 <= len(s); i++ {
			w := s[i : i+5]
			if strings.EqualFold(w, "today") && w != "today" && w != "Today" && w != "TODAY" {
				t.Skip("a case the fast search leaves to the pattern's reach")
			}
		}
		got, want := findToday(s), todayDate.FindStringSubmatchIndex(s)
		if !slices.Equal(got, want) {
			t.Errorf("findToday(%q) = %v, the whole pattern %v", s, got, want)
		}
	})
}

// BenchmarkCutToday reads today's date from an orchestrator-sized prompt (8 KB) that states
// it at its end, one that states none, and one that says "today" on every line, and then
// looks the first up again as every turn after the first does.
func BenchmarkCutToday(b *testing.B) {
	line := "You route a customer's message to the agents below and answer briefly. Examples: where is my parcel, how many points do I have.\n"
	prompt := strings.Repeat(line, 60)
	for _, tt := range []struct{ name, system string }{
		{"at-end", prompt + "Today's date is 2026-11-29 (Sunday, UTC)."},
		{"none", prompt},
		{"today-every-line", strings.Repeat("Today "+line, 60)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				cutToday(tt.system)
			}
		})
	}
	b.Run("again", func(b *testing.B) {
		system := prompt + "Today's date is 2026-11-29 (Sunday, UTC)."
		for b.Loop() {
			CutToday(system)
		}
	})
}
