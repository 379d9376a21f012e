package answer

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// scalar formats a scalar value; key (humanised or raw, may be "") tells numbers that are
// codes or years apart from quantities.
func scalar(key string, v any) string {
	switch v := v.(type) {
	case string:
		return tidyString(v)
	case json.Number:
		if isIdentifierKey(key) {
			return v.String() // 2026 as a year, 40213 as an order number
		}
		return formatNumber(v)
	case bool:
		if v {
			return "yes"
		}
		return "no"
	}
	return ""
}

// isIdentifierKey reports whether a key names a number that is a code or a year, not a
// quantity: "order_number", "year".
func isIdentifierKey(key string) bool {
	return slices.ContainsFunc(strings.Fields(lang.Humanise(key)), func(w string) bool { return identifierWords[strings.ToLower(w)] })
}

// formatNumber groups thousands and keeps at most two decimals.
func formatNumber(n json.Number) string {
	if i, err := n.Int64(); err == nil {
		return groupThousands(strconv.FormatInt(i, 10))
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return n.String()
	}
	return groupThousands(strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), "."))
}

// formatMoney renders an amount in a currency: "$1,299.00" for US dollars, "104.00 EUR"
// for any other code, and just "89.90" when the currency is unknown ("").
func formatMoney(n json.Number, currency string) string {
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e15 {
		return formatNumber(n) // too odd to be money; show it as it came
	}
	decimals := 2
	if zeroDecimalCurrencies[currency] {
		decimals = 0
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', decimals, 64)
	amount := groupThousands(s)
	sign := ""
	if f < 0 && strings.Trim(s, "0.") != "" {
		sign = "-"
	}
	switch currency {
	case "":
		return sign + amount
	case "USD":
		return sign + "$" + amount
	}
	return sign + amount + " " + currency
}

// currencyCode returns v as an ISO-4217-shaped code ("USD"), or "" when it is not one.
func currencyCode(v any) string {
	s, ok := v.(string)
	if !ok || len(s) != 3 || strings.ContainsFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) }) {
		return ""
	}
	return strings.ToUpper(s)
}

// groupThousands puts commas between the thousands of a number's whole part: "-1234.5" reads
// "-1,234.5".
func groupThousands(s string) string {
	s, frac, ok := strings.Cut(s, ".")
	if ok {
		return groupThousands(s) + "." + frac
	}
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if len(digits) < 4 {
		return s
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// when is a date or timestamp found in a string value.
type when struct {
	t     time.Time
	clock bool // a timestamp, not a bare date
	month bool // a whole month ("2026-10"), not a day in it
}

// whenLayouts are the dates and timestamps data writes, by their length: a month, a day, a
// local time to the minute or the second ("2026-03-14T09:05", as a form or a booking system
// keeps them), and anything longer with a zone (RFC 3339).
var whenLayouts = map[int]string{
	len("2006-01"):             "2006-01",
	len(time.DateOnly):         time.DateOnly,
	len("2006-01-02T15:04"):    "2006-01-02T15:04",
	len("2006-01-02T15:04:05"): "2006-01-02T15:04:05",
}

// parseWhen reads s as a date or timestamp. Its length picks the one layout to try, and
// anything not opening with a year and a dash is no date: a payload's other strings then
// cost no failed parse (each allocates its error).
func parseWhen(s string) (when, bool) {
	s = strings.TrimSpace(s)
	if len(s) < len("2006-01") || s[4] != '-' || strings.ContainsFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) {
		return when{}, false
	}
	layout, ok := whenLayouts[len(s)]
	if !ok {
		layout = time.RFC3339
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return when{}, false
	}
	return when{t: t, clock: len(s) > len(time.DateOnly), month: len(s) == len("2006-01")}, true
}

// format renders the date for people, always with its year: the model has no clock, so a
// date without one ("Feb 18") reads as the next Feb 18 whichever year it is in.
func (w when) format() string {
	layout := "Jan 2, 2006"
	if w.month {
		return w.t.Format("January 2006")
	}
	if w.clock {
		layout += " at 15:04"
	}
	return w.t.Format(layout)
}

// tidyString formats timestamps and dates for people and turns snake_case values
// ("in_transit") into words.
func tidyString(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if w, ok := parseWhen(s); ok {
		return w.format()
	}
	if isSnakeWord(s) {
		return strings.ReplaceAll(s, "_", " ")
	}
	// A date inside a sentence ("template on 2026-12-09") reads like every other date.
	return isoDate.ReplaceAllStringFunc(s, func(d string) string {
		if w, ok := parseWhen(d); ok {
			return w.format()
		}
		return d
	})
}

// isSnakeWord reports whether s is words joined by underscores for machines: "in_transit".
func isSnakeWord(s string) bool {
	return strings.Contains(s, "_") && !strings.ContainsFunc(s, func(r rune) bool { return r != '_' && !unicode.IsLower(r) && !unicode.IsDigit(r) })
}

// flagText reads a yes-or-no member by its key: an "is"/"has" prefix goes ("is refundable"
// -> "refundable"), and false says "not" of a quality ("not overdue", "not handed in") but
// "no" of a thing ("no autopay", "has wifi" -> "no wifi").
func flagText(key string, v bool) string {
	name, quality := key, false
	for _, p := range []string{"is ", "has ", "can "} {
		if rest, ok := strings.CutPrefix(key, p); ok {
			name, quality = rest, p != "has "
			break
		}
	}
	switch {
	case v:
		return name
	case quality || describes(name):
		return "not " + name
	}
	return "no " + name
}

// describes reports whether a flag's name is a quality rather than a thing: a phrase led by
// a preposition ("in stock"), or one whose first word is an adjective by its ending
// ("handed in", "refundable") or by the list of plain adjectives (see language.txt).
func describes(name string) bool {
	ws := strings.Fields(name)
	return len(ws) == 0 || flagPrepositions[ws[0]] || flagAdjectives[ws[0]] ||
		slices.ContainsFunc(adjectiveEndings, func(end string) bool { return strings.HasSuffix(ws[0], end) && len(ws[0]) > len(end)+2 })
}

func singular(noun string) string {
	switch {
	case strings.HasSuffix(noun, "ies"):
		return strings.TrimSuffix(noun, "ies") + "y"
	case strings.HasSuffix(noun, "sses"), strings.HasSuffix(noun, "xes"), strings.HasSuffix(noun, "ches"), strings.HasSuffix(noun, "shes"):
		return noun[:len(noun)-2]
	case strings.HasSuffix(noun, "s") && !strings.HasSuffix(noun, "ss"):
		return strings.TrimSuffix(noun, "s")
	}
	return noun
}

func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func lastWord(label string) string {
	ws := strings.Fields(label)
	if len(ws) == 0 {
		return ""
	}
	return ws[len(ws)-1]
}
