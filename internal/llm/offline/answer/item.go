package answer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// item renders one list element as "head: price at seller, extras", for example
// "Trail runner: $89.90 at Acme, 20% off until Nov 27, 2026". cur is the currency in force
// from the enclosing object.
func (r renderer) item(v any, cur string) string {
	obj, ok := v.([]field)
	if !ok {
		if arr, ok := v.([]any); ok {
			return r.scalarList("", arr)
		}
		return scalar("", v)
	}
	head := r.headField(obj)
	facts, _ := r.facts(obj, scope{currency: cur, item: true}, head)

	facts = r.askedFacts(facts)
	facts = append(facts, noneOf(obj, facts)...)
	var lead string
	price, seller := -1, slices.IndexFunc(facts, func(f fact) bool { return f.source })
	owed := r.owedFacts()
	for i, f := range facts {
		// A rate ("price per gallon") is no record's price when it has an amount of its own;
		// asked what is owed, the balance leads, not the price it is owed on.
		if f.money && (price < 0 || owed(f) && !owed(facts[price]) || owed(f) == owed(facts[price]) && perUnit(facts[price].named()) && !perUnit(f.named())) {
			price = i
		}
	}
	if price >= 0 {
		lead = facts[price].phrase()
		if facts[price].plain && !owed(facts[price]) {
			lead = facts[price].text // "$104.00": a plain "price" or "total" goes without saying; a balance is said to be one
		}
	}
	switch {
	case price >= 0 && seller >= 0:
		lead += " at " + facts[seller].text
	case seller >= 0:
		lead = "at " + facts[seller].text
	}
	var rest []fact
	for i, f := range facts {
		if i != price && i != seller {
			rest = append(rest, f)
		}
	}
	// The facts the request names come first, so that the bound below keeps them; facts
	// that pair into one phrase ("20% off until Nov 27", "from 08:00 until 10:00") move
	// together.
	asked := func(f fact) bool {
		return r.names(f.named()) || f.when() && r.asksWhen() || r.asksDeadline() && f.deadline()
	}
	units := pairUnits(rest)
	slices.SortStableFunc(units, func(a, b []fact) int {
		return cmp.Compare(b2i(slices.ContainsFunc(b, asked)), b2i(slices.ContainsFunc(a, asked)))
	})
	var parts []string
	if lead != "" {
		parts = append(parts, lead)
	}
	extras := phrases(slices.Concat(units...))
	// A record among others shows its first few facts; the one record asked about (showIDs)
	// shows all it holds.
	if len(extras) > itemExtras && !r.showIDs {
		extras = extras[:itemExtras]
	}
	parts = append(parts, extras...)
	details := strings.Join(parts, ", ")
	switch {
	case head < 0:
		return lang.Capitalise(details)
	case details == "":
		return headText(obj[head])
	}
	return headText(obj[head]) + ": " + details
}

// pairUnits splits facts into the units a phrase reads them in: an opening fact with the
// closing one right after it, every other fact alone (see phrases).
func pairUnits(facts []fact) [][]fact {
	var units [][]fact
	for i := 0; i < len(facts); i++ {
		if facts[i].opens && i+1 < len(facts) && facts[i+1].closes {
			units = append(units, facts[i:i+2])
			i++
			continue
		}
		units = append(units, facts[i:i+1])
	}
	return units
}

// noneOf returns, for a record whose facts say no more than when it is, a fact for each of its
// empty lists ("no times" of a free slot on Dec 20 whose times are all taken): there, that
// the list is empty is all the record says. Elsewhere an empty list goes unsaid.
func noneOf(obj []field, facts []fact) []fact {
	if slices.ContainsFunc(facts, func(f fact) bool { return !f.when() }) {
		return nil
	}
	var out []fact
	for _, f := range obj {
		if arr, isArr := f.val.([]any); isArr && len(arr) == 0 {
			out = append(out, fact{label: "no " + lang.Humanise(f.key)})
		}
	}
	return out
}

// headText names a list item by its head member; an id reads with its noun ("Order 40213").
func headText(f field) string {
	v := scalar(f.key, f.val)
	if isIDKey(f.key) {
		if noun := strings.TrimSpace(strings.TrimSuffix(lang.Humanise(f.key), "ID")); noun != "" {
			return lang.Capitalise(noun) + " " + v
		}
	}
	return v
}

// headField picks the member that names a list item: a name- or title-like string, else
// the first string that is neither an echo of the request, an id, a date or time of day, a
// status nor a description, else any string but a date or time (an id is then the only name
// there is). -1 when there is none.
func (r renderer) headField(obj []field) int {
	pick := func(ok func(key, val string) bool) int {
		for i, f := range obj {
			if s, isStr := f.val.(string); isStr && strings.TrimSpace(s) != "" && !isCurrencyKey(f.key) && ok(f.key, s) {
				return i
			}
		}
		return -1
	}
	if i := pick(func(k, s string) bool { return isNameKey(k) && !r.echoed(s) }); i >= 0 {
		return i
	}
	if i := pick(func(k, s string) bool {
		_, isDate := parseWhen(s)
		// An echoed product or city would only repeat itself on every line, and a time of
		// day names no record ("10:40: on Nov 29, opponent ...").
		return !r.echoed(s) && !isIDKey(k) && !isDate && !isHour(s) && !bareWords[lang.Humanise(k)]
	}); i >= 0 {
		return i
	}
	return pick(func(_, s string) bool { _, isDate := parseWhen(s); return !isDate && !isHour(s) })
}

// isNameKey reports whether a key names its record: "name", "product_title".
func isNameKey(key string) bool {
	return slices.Contains([]string{"name", "title", "label", "headline"}, lastWord(lang.Humanise(key)))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// askedFacts leaves out, of a record's amounts of money and dates, those the request does not
// name when it names others of the same kind by their labels: "how much do i owe" of a bill is
// what "you owe" says, not its charges or what insurance paid; "when is it due" its due date,
// not the day of service. The labels naming the most of the request's words are the ones
// named. Facts of other kinds stay: they say which record it is.
func (r renderer) askedFacts(facts []fact) []fact {
	named := make([]int, len(facts))
	most, owed := 0, r.owedFacts()
	for i, f := range facts {
		if f.money || f.date {
			// "my order" names the orders, not the amount ordered.
			named[i] = f.namedBy(func(t string) bool { return r.names(t) && !r.tool[t] }) + b2i(owed(f))
			most = max(most, named[i])
		}
	}
	if most == 0 {
		return facts
	}
	var money, dates bool // the kinds of the facts asked for
	for i, f := range facts {
		if named[i] == most {
			money, dates = money || f.money, dates || f.date
		}
	}
	var out []fact
	for i, f := range facts {
		// The record's own day ("on Dec 30" of a skipped delivery asked about by when it was
		// skipped) says which record it is, as facts of other kinds do.
		own := f.date && f.label == "" && dayWords[f.key]
		if named[i] == most || own || !(money && f.money) && !(dates && f.date) {
			out = append(out, f)
		}
	}
	return out
}

// owedFacts returns whether a fact is what the request asks is owed: asked with an oweWord
// ("how much do i owe on the van hire"), the balance is the amount, not the hire price the
// request also names.
func (r renderer) owedFacts() func(fact) bool {
	if !r.asksOwed() {
		return func(fact) bool { return false }
	}
	return func(f fact) bool {
		return f.money && slices.ContainsFunc(strings.Fields(f.named()), func(w string) bool { return owedLabels[w] })
	}
}

// asksOwed reports whether the request asks what is still to pay (oweWords, owePhrases).
func (r renderer) asksOwed() bool {
	return r.says(oweWords) || r.saysPhrase(owePhrases)
}
