package answer

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestFormatMoney(t *testing.T) {
	tests := []struct{ in, cur, want string }{
		{"104", "USD", "$104.00"}, {"1299.5", "USD", "$1,299.50"}, {"104", "EUR", "104.00 EUR"},
		{"9500", "JPY", "9,500 JPY"}, {"-5", "USD", "-$5.00"}, {"-0.001", "USD", "$0.00"},
		{"89.9", "", "89.90"}, {"1e400", "USD", "1e400"},
	}
	for _, tt := range tests {
		if got := formatMoney(json.Number(tt.in), tt.cur); got != tt.want {
			t.Errorf("formatMoney(%s, %q) = %q, want %q", tt.in, tt.cur, got, tt.want)
		}
	}
}

func TestDateFact(t *testing.T) {
	tests := []struct {
		label, value, want string
	}{
		{"ends", "2026-11-27", "until Nov 27, 2026"},
		{"valid until", "2026-11-27", "valid until Nov 27, 2026"},
		{"starts at", "2026-03-03T10:15:00Z", "from Mar 3, 2026 at 10:15"},
		{"date", "2026-03-03", "on Mar 3, 2026"},
		{"departs", "2026-03-03T10:15:00Z", "departs Mar 3, 2026 at 10:15"},
	}
	for _, tt := range tests {
		w, ok := parseWhen(tt.value)
		if !ok {
			t.Fatalf("parseWhen(%q) failed", tt.value)
		}
		if got := dateFact(tt.label, w.format()).phrase(); got != tt.want {
			t.Errorf("dateFact(%q, %q) = %q, want %q", tt.label, tt.value, got, tt.want)
		}
	}
}

func TestLowerFirst(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The next trip", "the next trip"},
		{"I couldn't", "I couldn't"},
		{"Lisbon is sunny", "Lisbon is sunny"},
		{"Sorry, no", "sorry, no"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := lowerFirst(tt.in); got != tt.want {
			t.Errorf("lowerFirst(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		key, in, want string
	}{
		{"points", "12400", "12,400"}, {"price", "89.999", "90"}, {"price", "1234.5", "1,234.5"},
		{"year", "2026", "2026"}, {"order_number", "40213", "40213"}, {"delta", "-15000", "-15,000"},
	}
	for _, tt := range tests {
		if got := scalar(tt.key, jsonNumber(tt.in)); got != tt.want {
			t.Errorf("scalar(%q, %s) = %q, want %q", tt.key, tt.in, got, tt.want)
		}
	}
}

func jsonNumber(s string) any {
	v, err := decodeOrdered(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestTidyStringDates(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2026-12-09", "Dec 9, 2026"},
		{"Quartz template on 2026-12-09; fabrication takes 10 days", "Quartz template on Dec 9, 2026; fabrication takes 10 days"},
		{"2026-07-01 to 2026-10-31", "Jul 1, 2026 to Oct 31, 2026"},
		{"Permit BP-26-114873", "Permit BP-26-114873"},
		{"on 2026-13-45", "on 2026-13-45"},
		{"in_transit", "in transit"},
		{"2026-11-25T10:42", "Nov 25, 2026 at 10:42"},
		{"2026-11-25T10:42:07", "Nov 25, 2026 at 10:42"},
		{"2026-10", "October 2026"},
		{"2026-13", "2026-13"},
	}
	for _, tt := range tests {
		if got := tidyString(tt.in); got != tt.want {
			t.Errorf("tidyString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseWhen(t *testing.T) {
	tests := []struct {
		in          string
		ok          bool
		want        string // when.format()
		clock, mnth bool
	}{
		{in: "2026-10", ok: true, want: "October 2026", mnth: true},
		{in: " 2026-03-14 ", ok: true, want: "Mar 14, 2026"},
		{in: "2026-03-14T09:05", ok: true, want: "Mar 14, 2026 at 09:05", clock: true},
		{in: "2026-03-14T09:05:30", ok: true, want: "Mar 14, 2026 at 09:05", clock: true},
		{in: "2026-03-14T09:05:30Z", ok: true, want: "Mar 14, 2026 at 09:05", clock: true},
		{in: "2026-03-14T09:05:30.25+02:00", ok: true, want: "Mar 14, 2026 at 09:05", clock: true},
		{in: "2026-13-01"}, {in: "2026-03-14T09:05Z"}, {in: "A-10177"}, {in: "W-2"},
		{in: "in transit"}, {in: "2026"}, {in: "12-2026"}, {in: "x026-03-14"}, {in: "2026/03/14"},
	}
	for _, tt := range tests {
		w, ok := parseWhen(tt.in)
		if ok != tt.ok {
			t.Errorf("parseWhen(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := w.format(); got != tt.want || w.clock != tt.clock || w.month != tt.mnth {
			t.Errorf("parseWhen(%q) = %q (clock %v, month %v), want %q (clock %v, month %v)", tt.in, got, w.clock, w.month, tt.want, tt.clock, tt.mnth)
		}
	}
}

// TestPhrases checks how facts read in a row: an opening fact and the closing one after it
// make one phrase, their shared label said once.
func TestPhrases(t *testing.T) {
	tests := []struct {
		name  string
		facts []fact
		want  []string
	}{
		{
			name:  "a pair under one label says it once",
			facts: []fact{{label: "rehearsal", text: "from 19:30", opens: true}, {label: "rehearsal", text: "until 21:30", closes: true}},
			want:  []string{"rehearsal from 19:30 until 21:30"},
		},
		{
			name:  "a pair under two labels says both",
			facts: []fact{{text: "20% off", opens: true}, {label: "offer", text: "until Nov 27", closes: true}},
			want:  []string{"20% off offer until Nov 27"},
		},
		{
			name:  "facts that pair with nothing read alone",
			facts: []fact{{label: "gate", text: "B12"}, {label: "seat", text: "14C"}},
			want:  []string{"gate B12", "seat 14C"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := phrases(tt.facts); !slices.Equal(got, tt.want) {
				t.Errorf("phrases() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFailureNote: a plain-text failure note is recognised in any case, with its note after
// the word, and nothing else is.
func TestFailureNote(t *testing.T) {
	tests := []struct {
		content, note string
		ok            bool
	}{
		{"unavailable", "", true},
		{"Unavailable: the service is down", "the service is down", true},
		{"ERROR - timed out", "timed out", true},
		{"error.", "", true},
		{"errors are rare", "", false},
		{"Unavailability", "", false},
		{"err", "", false},
		{`{"status":"error"}`, "", false},
		{"ＥＲＲＯＲ: wide letters", "", false},
	}
	for _, tt := range tests {
		if note, ok := failureNote(tt.content); note != tt.note || ok != tt.ok {
			t.Errorf("failureNote(%q) = %q, %v; want %q, %v", tt.content, note, ok, tt.note, tt.ok)
		}
	}
}
