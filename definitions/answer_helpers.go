package definitions

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// locale is what the answer helpers need of a locale tag: its language and region.
type locale struct{ lang, region string }

func parseLocale(tag string) locale {
	tag = strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")
	lang, region, _ := strings.Cut(tag, "-")
	l := locale{lang: strings.ToLower(lang), region: strings.ToUpper(region)}
	if l.lang == "" {
		l = locale{lang: "en", region: "US"}
	}
	return l
}

// commaDecimal are the languages that write 1.234,50 rather than 1,234.50.
var commaDecimal = map[string]bool{"de": true, "fr": true, "es": true, "it": true, "nl": true,
	"pt": true, "da": true, "sv": true, "nb": true, "fi": true, "pl": true, "cs": true}

// separators returns the locale's digit-group and decimal marks.
func (l locale) separators() (group, decimal string) {
	switch {
	case l.lang == "fr" || l.lang == "sv" || l.lang == "nb" || l.lang == "fi" || l.lang == "pl" || l.lang == "cs":
		return " ", ","
	case commaDecimal[l.lang]:
		return ".", ","
	case l.lang == "de" && l.region == "CH":
		return "'", "."
	}
	return ",", "."
}

// formatNumber writes f with decimals digits after the mark, grouped by three.
func (l locale) formatNumber(f float64, decimals int) string {
	group, decimal := l.separators()
	s := fmt.Sprintf("%.*f", decimals, math.Abs(f))
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if f < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString(decimal)
		b.WriteString(frac)
	}
	return b.String()
}

// number prints v grouped, with up to two decimals when it has any.
func (l locale) number(v any) string {
	f, err := toFloat(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if f == math.Trunc(f) {
		return l.formatNumber(f, 0)
	}
	return strings.TrimRight(strings.TrimRight(l.formatNumber(f, 2), "0"), ".,")
}

var currencySymbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$", "CHF": "CHF "}

// money prints an amount in its currency, in the locale's style.
func (l locale) money(v any, cur ...string) string {
	amount, code := v, ""
	if m, ok := v.(map[string]any); ok {
		amount = m["amount"]
		if amount == nil {
			amount = m["value"]
		}
		code, _ = m["currency"].(string)
	}
	if code == "" && len(cur) > 0 {
		code = cur[0]
	}
	code = strings.ToUpper(code)
	if code == "" {
		code = "USD"
	}
	f, err := toFloat(amount)
	if err != nil {
		return fmt.Sprint(amount)
	}
	decimals := 2
	if code == "JPY" {
		decimals = 0
	}
	digits := l.formatNumber(f, decimals)
	sym, ok := currencySymbols[code]
	if !ok {
		sym = code + " "
	}
	if l.lang == "en" || l.lang == "ja" || l.lang == "zh" {
		return sym + digits
	}
	return digits + " " + strings.TrimSpace(sym)
}

var dateLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// dayFirst are English regions that write the day before the month.
var dayFirst = map[string]bool{"GB": true, "IE": true, "AU": true, "NZ": true, "IN": true, "ZA": true}

// date prints an ISO date or timestamp in the locale's style; anything else as it is.
func (l locale) date(v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprint(v)
	}
	for _, layout := range dateLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		var day string
		switch {
		case l.lang == "en" && dayFirst[l.region]:
			day = t.Format("2 Jan 2006")
		case l.lang == "en":
			day = t.Format("Jan 2, 2006")
		case l.lang == "de" || l.lang == "da" || l.lang == "nb" || l.lang == "fi" || l.lang == "pl" || l.lang == "cs":
			day = t.Format("02.01.2006")
		case l.lang == "ja" || l.lang == "zh" || l.lang == "ko":
			day = t.Format("2006/01/02")
		case l.lang == "sv":
			day = t.Format("2006-01-02")
		default:
			day = t.Format("02/01/2006")
		}
		if layout != "2006-01-02" && (t.Hour() != 0 || t.Minute() != 0) {
			day += " " + t.Format("15:04") // a timestamp's time of day is part of what it says
			if layout == time.RFC3339 {
				day += " " + zoneName(t) // and so is the zone it was given in: 18:20 where?
			}
		}
		return day
	}
	return s
}

var conjunctions = map[string]string{"en": "and", "de": "und", "fr": "et", "es": "y", "it": "e", "nl": "en", "pt": "e"}

// list joins the items (or each item's field) as "a, b and c".
func (l locale) list(v any, field ...string) string {
	var parts []string
	for _, it := range items(v) {
		if len(field) > 0 {
			if m, ok := it.(map[string]any); ok {
				it = m[field[0]]
			}
		}
		if it == nil {
			continue
		}
		parts = append(parts, fmt.Sprint(it))
	}
	and, ok := conjunctions[l.lang]
	if !ok {
		and = "and"
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + and + " " + parts[len(parts)-1]
}

// matchingRecords returns the records that share the most telling words with the question: a
// word the record's text holds and not every record's text holds, so that "the socks" picks
// the socks and "my order" picks no order in particular, and "a code for free shipping" picks
// the free-shipping code over "buy two, get a third free". Words that name a field ("refund" of
// a record with a refund) ask what to say, not which record. A word a record holds only in
// parentheses ("Ultraboost Light (wrong size)") says something about the thing rather than
// naming it, and counts half: alone, it names no record ("a bigger size").
func matchingRecords(records []any, q map[string]bool) []any {
	if len(q) == 0 || len(records) == 0 {
		return nil
	}
	words := make([]map[string]bool, len(records)) // true: named outside parentheses
	keys := map[string]bool{}
	for i, r := range records {
		words[i] = map[string]bool{}
		collectWords(r, words[i])
		collectKeys(r, keys)
	}
	var out []any
	best := 2 // in halves: one word that names, or two that only qualify
	for i, r := range records {
		n := 0
		for w, names := range words[i] {
			if !q[w] || keys[w] {
				continue
			}
			if shared := len(records) > 1 && !slices.ContainsFunc(words, func(ws map[string]bool) bool { _, ok := ws[w]; return !ok }); shared {
				continue
			}
			if n++; names {
				n++
			}
		}
		switch {
		case n > best:
			best, out = n, append(out[:0], r)
		case n == best:
			out = append(out, r)
		}
	}
	return out
}

// collectWords adds the words of every string value in v (keys are not the user's words):
// true for a word a value holds outside parentheses, false for one it holds only inside.
func collectWords(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		named, aside := splitAsides(x)
		for w := range eachTextWord(aside) {
			if _, ok := into[w]; !ok {
				into[w] = false
			}
		}
		for w := range eachTextWord(named) {
			into[w] = true
		}
	case map[string]any:
		for _, c := range x {
			collectWords(c, into)
		}
	case []any:
		for _, c := range x {
			collectWords(c, into)
		}
	}
}

// splitAsides returns s without what it holds in parentheses, and what it holds in them.
func splitAsides(s string) (named, aside string) {
	if !strings.ContainsRune(s, '(') {
		return s, ""
	}
	var n, a strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
			n.WriteByte(' ')
		case r == ')' && depth > 0:
			depth--
			a.WriteByte(' ')
		case depth > 0:
			a.WriteRune(r)
		default:
			n.WriteRune(r)
		}
	}
	return n.String(), a.String()
}

// collectKeys adds the words of every object key in v.
func collectKeys(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			for w := range eachTextWord(strings.ReplaceAll(k, "_", " ")) {
				into[w] = true
			}
			collectKeys(c, into)
		}
	case []any:
		for _, c := range x {
			collectKeys(c, into)
		}
	}
}

// questionWords are the question's telling words, stemmed as eachTextWord stems them. A
// reference typed without its dash or space ("a10177", "ua837") also gives its number, the
// word a record's "A-10177" or "UA 837" has.
func questionWords(q string) map[string]bool {
	out := map[string]bool{}
	for w := range eachTextWord(q) {
		if !answerStopwords[w] {
			out[w] = true
		}
		if m := gluedReference.FindStringSubmatch(w); m != nil {
			out[m[1]] = true
		}
	}
	return out
}

// gluedReference is a word of letters then a number of three digits or more: a reference
// typed without its dash or space.
var gluedReference = regexp.MustCompile(`^[a-z]{1,3}([0-9]{3,})$`)

// reference is what a user types for an order, flight or booking number: up to three
// letters, an optional dash, and at least four digits ("A-10231", "b55902", "10231").
var reference = regexp.MustCompile(`\b(?:[A-Za-z]{1,3}-?)?[0-9]{4,}\b`)

// references are the references the question types, as typed.
func references(q string) []string {
	return reference.FindAllString(q, -1)
}

// eachTextWord yields the lower-case words of s with plural endings removed, so that "socks"
// meets "Sock" and "vaccinations" meets "vaccination". It collects nothing: a template's
// helpers read the words of every string they are given, most of them one lower-case word.
func eachTextWord(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		lower := strings.ToLower(s)
		start := -1 // the field being read, or -1 between fields
		for i, r := range lower {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && !yieldWord(lower[start:i], yield) {
				return
			}
			start = -1
		}
		if start >= 0 {
			yieldWord(lower[start:], yield)
		}
	}
}

// yieldWord yields one field of eachTextWord as a word, unless it is too short to be one, and
// returns false when the caller wants no more.
func yieldWord(w string, yield func(string) bool) bool {
	w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
	if len(w) < 2 {
		return true
	}
	return yield(singular(w))
}

func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "sses")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// answerStopwords never pick a record: they frame a question rather than name its subject.
var answerStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the my mine me i i'm im you your we our us he him his she her it its they them their
		is are was were be been am do doe did done have ha had get got can could will would should may might
		what when where which who whom why how whats wheres hows much many any some all this that these those
		there here of to in on at by for from with about into over under up out off and or but not no yes
		yet still just now next last please pls thanks ok so if then than too very also again
		tell show check know want need find look let see give say`) {
		m[singular(w)] = true
	}
	return m
}()

// zoneName is t's offset from UTC as people write it: "UTC", "UTC+9", "UTC-3:30".
func zoneName(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "UTC"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	if m := off % 3600 / 60; m != 0 {
		return fmt.Sprintf("UTC%s%d:%02d", sign, off/3600, m)
	}
	return fmt.Sprintf("UTC%s%d", sign, off/3600)
}

// words prints a machine value as words: "in_transit" and "IN-TRANSIT" read "in transit".
func words(v any) string {
	if v == nil {
		return ""
	}
	s := strings.TrimSpace(fmt.Sprint(v))
	if strings.ContainsRune(s, ' ') { // already words
		return s
	}
	s = strings.NewReplacer("_", " ", "-", " ").Replace(s)
	if strings.ToUpper(s) == s { // an enum's capitals are not emphasis
		s = strings.ToLower(s)
	}
	return s
}

// where returns the records of v whose field reads as value, letter case aside: a status, a
// category or a flag ("true") picked from a list.
func where(field string, value any, v any) []any {
	want := fmt.Sprint(value)
	var out []any
	for _, x := range items(v) {
		if m, ok := x.(map[string]any); ok && m[field] != nil && strings.EqualFold(fmt.Sprint(m[field]), want) {
			out = append(out, x)
		}
	}
	return out
}

// priceCap is a question's upper bound on an amount: "under 300", "below $250", "less than
// 1.5k", "up to 200", "no more than 80". The number is the first group, a trailing "k" the second.
var priceCap = regexp.MustCompile(`\b(?:under|below|beneath|less than|cheaper than|up to|at most|no more than|max(?:imum)?|within)\s+(?:[$€£¥]\s?)?(\d[\d,]*(?:\.\d+)?)(k)?\b`)

// questionCap returns the upper bound the question puts on an amount, and whether it puts one.
func questionCap(q string) (float64, bool) {
	m := priceCap.FindStringSubmatch(strings.ToLower(q))
	if m == nil {
		return 0, false
	}
	f, err := toFloat(m[1])
	if err != nil {
		return 0, false
	}
	if m[2] != "" {
		f *= 1000
	}
	return f, true
}

// atMost returns the records of v whose field (a number, or a money object's amount) is at
// most limit; records without it are left out, since nothing says they fit.
func atMost(field string, limit float64, v any) []any {
	var out []any
	for _, x := range items(v) {
		m, _ := x.(map[string]any)
		val := m[field]
		if obj, isObj := val.(map[string]any); isObj {
			val = obj["amount"]
		}
		if f, err := toFloat(val); err == nil && f <= limit {
			out = append(out, x)
		}
	}
	return out
}

// sortBy returns the records of v ordered by their field, smallest first: numbers (and money
// objects, by amount) by value, anything else as text, so ISO dates come earliest first.
// Records without the field keep their order, after the others.
func sortBy(field string, v any) []any {
	// Each record's key is read once: rank 0 is a number, 1 text, 2 no field.
	type keyed struct {
		rank int
		f    float64
		s    string
		x    any
	}
	xs := items(v)
	keys := make([]keyed, len(xs))
	for i, x := range xs {
		keys[i] = keyed{rank: 2, x: x}
		m, _ := x.(map[string]any)
		val := m[field]
		if obj, isObj := val.(map[string]any); isObj {
			val = obj["amount"]
		}
		switch f, err := toFloat(val); {
		case val == nil:
		case err == nil && !math.IsNaN(f):
			keys[i].rank, keys[i].f = 0, f
		default:
			keys[i].rank, keys[i].s = 1, fmt.Sprint(val)
		}
	}
	slices.SortStableFunc(keys, func(a, b keyed) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		switch a.rank {
		case 0:
			return cmp.Compare(a.f, b.f)
		case 1:
			return strings.Compare(a.s, b.s)
		}
		return 0
	})
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k.x
	}
	return out
}

// namesRecord reports whether q's words pick a record of some list in v, at any depth.
func namesRecord(v any, q map[string]bool) bool {
	switch x := v.(type) {
	case []any:
		if len(matchingRecords(x, q)) > 0 {
			return true
		}
		for _, e := range x {
			if namesRecord(e, q) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if namesRecord(e, q) {
				return true
			}
		}
	}
	return false
}
