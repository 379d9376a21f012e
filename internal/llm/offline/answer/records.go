package answer

import (
	"encoding/json"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
)

// flaggedItems returns the records of arr whose yes-or-no field the request names and that
// say yes, when some do and some do not: "do i have any overdue books" is answered with the
// overdue ones. Nil otherwise, or when the request says what it does not want.
func (r renderer) flaggedItems(arr []any) []any {
	if r.negates() || len(arr) < 2 {
		return nil
	}
	for _, t := range r.askedTerm {
		if r.tool[t] || lang.IsLightNoun(t) {
			continue
		}
		var hits []any
		for _, item := range arr {
			obj, _ := item.([]field)
			for _, f := range obj {
				if b, isBool := f.val.(bool); isBool && b && slices.Equal(lang.Terms(lang.Humanise(f.key)), []string{t}) {
					hits = append(hits, item)
				}
			}
		}
		if len(hits) > 0 && len(hits) < len(arr) {
			return hits
		}
	}
	return nil
}

// qualifies reports whether the request's words right after the thing (as unmatchedSubject
// returned it, "your boston"), past words of the agent's trade ("my street parking permit"),
// are the list's noun or the called tool's word: the thing then says which of them, not what.
func (r renderer) qualifies(thing, noun string) bool {
	ws := r.askedWord
	last := strings.ToLower(thing[strings.LastIndex(thing, " ")+1:])
	i := slices.IndexFunc(ws, func(w lang.Word) bool { return strings.TrimSuffix(w.Lower, "'s") == last })
	if i < 0 {
		return false
	}
	for _, w := range ws[i+1:] {
		next := lang.Terms(w.Lower)
		if slices.ContainsFunc(next, func(t string) bool { return slices.Contains(lang.Terms(noun), t) || r.tool[t] }) {
			return true
		}
		if len(next) != 1 || !r.domain[next[0]] {
			return false
		}
	}
	return false
}

// pendingItems returns the records of arr that are not over, when the request asks what comes
// next or what is still owed and some records are over and some not: a status that says a
// record is finished (finishedWords) is over. Nil otherwise.
func (r renderer) pendingItems(arr []any) []any {
	if len(arr) < 2 || !slices.ContainsFunc(strings.Fields(strings.ToLower(r.asked)), func(w string) bool {
		w = strings.Trim(w, ",.?!")
		return aheadWords[w] || oweWords[w]
	}) {
		return nil
	}
	_, pending := partition(arr, arr, isOver)
	if len(pending) == 0 || len(pending) == len(arr) {
		return nil
	}
	return pending
}

// nextItems returns the one record of arr with the earliest date of those not over, when the
// request asks for the next one ("when is our next game": "next" before a noun in the
// singular) and several are given, dated by their first date member. Nil otherwise, and
// for a tie.
func (r renderer) nextItems(arr []any) []any {
	ws, asks := r.askedWord, false
	for i := 0; i+1 < len(ws); i++ {
		next := ws[i+1].Lower
		asks = asks || nextWords[ws[i].Lower] && !lang.IsStopword(next) && !timeNouns[next] && (!strings.HasSuffix(next, "s") || strings.HasSuffix(next, "ss"))
	}
	if !asks || len(arr) < 2 {
		return nil
	}
	_, pending := partition(arr, arr, isOver)
	first, allDated := datedExtreme(pending, false)
	if first == nil || !allDated { // an undated record may come first
		return nil
	}
	return []any{first}
}

// latestItems returns the one record of arr with the latest date, when the request asks for
// the latest ("what was my net pay last time", "my most recent order") and several records
// are given, dated by their first date member. Nil otherwise. "last month" asks for a time, not for
// the latest record.
func (r renderer) latestItems(arr []any) []any {
	ws, asks := r.askedWord, r.says(latestWords)
	for i := 0; i+1 < len(ws); i++ {
		if latestWords[ws[i].Lower] && timeNouns[ws[i+1].Lower] && ws[i+1].Lower != "time" {
			asks = false
		}
	}
	if !asks || len(arr) < 2 {
		return nil
	}
	// "when did i last see the dentist": of the visits done with, when some are and some not.
	done, _ := partition(arr, arr, isOver)
	if len(done) > 0 {
		arr = done
	}
	if latest, _ := datedExtreme(arr, true); latest != nil {
		return []any{latest}
	}
	return nil
}

// datedExtreme returns the record of arr whose date (its first date member) is the earliest,
// or with latest the latest; nil when no record is dated or two share that date. allDated
// reports whether every record has a date.
func datedExtreme(arr []any, latest bool) (pick any, allDated bool) {
	var at time.Time
	tie := false
	allDated = true
	for _, item := range arr {
		obj, _ := item.([]field)
		i := slices.IndexFunc(obj, func(f field) bool { s, ok := f.val.(string); _, date := parseWhen(s); return ok && date })
		if i < 0 {
			allDated = false
			continue
		}
		w, _ := parseWhen(obj[i].val.(string))
		switch {
		case pick == nil || latest && w.t.After(at) || !latest && w.t.Before(at):
			pick, at, tie = item, w.t, false
		case w.t.Equal(at):
			tie = true
		}
	}
	if tie {
		return nil, allDated
	}
	return pick, allDated
}

// extremeItems returns the record of arr with the largest number the request names by its
// label, when it asks for the largest ("which loan has the highest interest rate"), or the
// smallest; with no number named, a superlative that names the price itself ("the cheapest")
// reads the records' amounts of money. Nil otherwise, and for a tie.
func (r renderer) extremeItems(arr []any) []any {
	sign := 0.0
	for _, w := range r.askedWord {
		sign += float64(b2i(mostWords[w.Lower]) - b2i(leastWords[w.Lower]))
	}
	if sign == 0 || len(arr) < 2 {
		return nil
	}
	for _, named := range []bool{true, false} {
		var best []any
		top := 0.0
		for _, item := range arr {
			obj, _ := item.([]field)
			i := slices.IndexFunc(obj, func(f field) bool { _, ok := r.numberOf(f, named); return ok })
			if i < 0 {
				continue
			}
			switch v, _ := r.numberOf(obj[i], named); {
			case best == nil || v*sign > top*sign:
				best, top = []any{item}, v
			case v == top:
				best = append(best, item)
			}
		}
		switch {
		case len(best) == 1:
			return best
		case len(best) > 1:
			return nil // a tie names no one record
		}
	}
	return nil
}

// numberOf reads f as a number for extremeItems: one the request names by its label, or,
// with no label named, an amount of money.
func (r renderer) numberOf(f field, named bool) (float64, bool) {
	n, ok := f.val.(json.Number)
	if inner, isObj := f.val.([]field); isObj {
		n, _, ok = moneyObject(inner)
	} else if !named {
		ok = false
	}
	v, err := n.Float64()
	return v, ok && err == nil && (!named || r.names(lang.Humanise(f.key)))
}

// isOver reports whether a record's status says it is finished (finishedWords).
func isOver(item any) bool {
	obj, _ := item.([]field)
	return slices.ContainsFunc(obj, func(f field) bool { s, ok := f.val.(string); return ok && finishedWords[strings.ToLower(s)] })
}

// currentItems returns the records of arr that still hold, when some have lapsed (their
// status is in lapsedWords: an expired permit, a cancelled booking) and some have not: a
// request that names neither (tellingItems would have picked those it names) means the ones
// in force. Nil otherwise, and when the request says the status ("when did it expire").
func (r renderer) currentItems(arr []any) []any {
	var said []string // the lapsed statuses held, as terms
	lapsed, current := partition(arr, arr, func(item any) bool {
		obj, _ := item.([]field)
		i := slices.IndexFunc(obj, func(f field) bool { s, ok := f.val.(string); return ok && lapsedWords[strings.ToLower(s)] })
		if i >= 0 {
			said = append(said, lang.Terms(obj[i].val.(string))...)
		}
		return i >= 0
	})
	if len(lapsed) == 0 || len(current) == 0 || slices.ContainsFunc(lang.Terms(r.asked), func(t string) bool { return slices.Contains(said, t) }) {
		return nil
	}
	return current
}

// spelledPeriodItems returns those of hits, records the request was found to name, whose
// own values spell out each month or weekday the request names ("month": "November 2026",
// "period": "2026-11"), rather than only hold a date in it ("due": "2026-11-05"): a period
// written out says what the record is for, a date only when something about it happens. Nil
// for none.
func (r renderer) spelledPeriodItems(hits []any) []any {
	var periods []string
	for _, w := range r.askedWord {
		if calendarWords[w.Lower] {
			periods = append(periods, w.Lower)
		}
	}
	if len(hits) < 2 || len(periods) == 0 {
		return nil
	}
	spelled, _ := partition(hits, hits, func(item any) bool {
		obj, _ := item.([]field)
		return !slices.ContainsFunc(periods, func(p string) bool {
			return !slices.ContainsFunc(obj, func(f field) bool {
				s, ok := f.val.(string)
				if w, isDate := parseWhen(s); isDate && w.month {
					s = w.format()
				}
				return ok && slices.ContainsFunc(lang.ScanWords(s), func(w lang.Word) bool { return w.Lower == p })
			})
		})
	})
	return spelled
}

// tellingItems returns the records of arr, a list of noun, that carry, in their values
// (nested ones included), a word the request uses that some records carry and others do not:
// "luna" or "dog" among two pets, "car" among two policies. Words of the called tool, light
// nouns and numbers tell nothing. The words that name the request's subject ("the electric"
// of "is the electric bill paid") decide before the others (a bill that is paid). Nil when no
// such word is asked.
func (r renderer) tellingItems(arr []any, noun string) []any {
	if r.scoped || r.negates() || len(arr) < 2 {
		return nil
	}
	subject := r.subjectTerms(noun)
	if len(subject) > 0 {
		if hits := r.tellingBy(arr, subject); len(hits) > 0 {
			return hits
		}
		// A month every record holds a date in ("the october statement", one paid in October)
		// names the record that is for it, before the request's other words pick another.
		if hits := r.spelledPeriodItems(arr); len(hits) > 0 && len(hits) < len(arr) && slices.ContainsFunc(subject, func(t string) bool { return calendarWords[t] }) {
			return hits
		}
	}
	if subject == nil {
		if before := r.earlierRecords(arr, noun); len(before) > 0 {
			return before
		}
	}
	return r.tellingBy(arr, r.askedTerm)
}

// earlierRecords returns the records of arr a follow-up that names no thing of its own ("how
// much is that gonna cost me" after "...get my camera out of pawn") is about: those its
// earlier request names, narrowed by its own words when they tell some of them apart. A word
// of its own that another record happens to hold in its details ("sale costs") does not take
// it elsewhere. It returns nil, leaving the follow-up's own words to say which, when they
// name a record (see namesOwnRecord) or say which by place ("the next one"), when the
// earlier words said which by place (their terms cannot tell it), and when those name none
// or all of the records.
func (r renderer) earlierRecords(arr []any, noun string) []any {
	if r.earlierTerm == nil || r.scoped || r.negates() || len(arr) < 2 || r.saysWhich() {
		return nil
	}
	earlier := r.earlierRequest()
	if earlier.saysWhich() || r.namesOwnRecord(arr) {
		return nil
	}
	before := earlier.tellingItems(arr, noun)
	if len(before) == 0 || len(before) == len(arr) {
		return nil
	}
	if len(before) > 1 {
		if hits := r.tellingBy(before, r.askedTerm); len(hits) > 0 {
			return hits
		}
	}
	return before
}

// saysWhich reports whether the request says which record by its place among them: the
// next, the latest, the largest or the smallest.
func (r renderer) saysWhich() bool {
	return slices.ContainsFunc(r.askedWord, func(w lang.Word) bool {
		return nextWords[w.Lower] || latestWords[w.Lower] || mostWords[w.Lower] || leastWords[w.Lower]
	})
}

// namesOwnRecord reports whether a term of the request is what heads some of arr's records (in
// a name or a title), the whole of one of their values ("sesame" of allergens wheat, egg and
// sesame) or a field only they have ("whats the code" of the one booking with a voucher
// code), and not all of them: the request names those records. A state ("due", "paid")
// names none: it says how a record stands.
func (r renderer) namesOwnRecord(arr []any) bool {
	named, keys := make([]map[string]bool, 0, len(arr)), make([]map[string]bool, 0, len(arr))
	for _, item := range arr {
		obj, _ := item.([]field)
		set := map[string]bool{}
		if h := r.headField(obj); h >= 0 {
			addTerms(set, obj[h].val.(string))
		}
		wholeValues(item, set)
		named, keys = append(named, set), append(keys, keyTerms(item))
	}
	// A field's name may be a light noun ("code"): only the records that have it tell.
	return slices.ContainsFunc(r.askedTerm, func(t string) bool {
		return !r.generic(t) && splits(t, named) || !r.tool[t] && !lang.IsNumberTerm(t) && splits(t, keys)
	})
}

// wholeValues adds to set the term of each string value in v, however deep, that is one term
// alone, leaving out states.
func wholeValues(v any, set map[string]bool) {
	switch x := v.(type) {
	case []field:
		for _, f := range x {
			if !stateKeys[lastWord(lang.Humanise(f.key))] {
				wholeValues(f.val, set)
			}
		}
	case []any:
		for _, c := range x {
			wholeValues(c, set)
		}
	case string:
		if ts := lang.Terms(x); len(ts) == 1 {
			set[ts[0]] = true
		}
	}
}

// subjectTerms are the terms of the words that name what the request is about: those after
// "the", "my" and the like, up to a word of the list's noun, the called tool or the agent's
// trade, a little word ("has the kettle i ordered shipped" is about the kettle) or a past
// participle, which says what is asked of it ("is my february leave approved").
func (r renderer) subjectTerms(noun string) []string {
	nounTerms := lang.Terms(noun)
	ws := r.askedWord
	var out []string
	for i := 1; i < len(ws); i++ {
		if _, ok := subjectOpeners[ws[i-1].Lower]; !ok {
			continue
		}
		for j := i; j < len(ws) && j < i+maxOwnedWords; j++ {
			w := strings.TrimSuffix(ws[j].Lower, "'s")
			ts := lang.Terms(w)
			if len(ts) != 1 || lang.IsStopword(w) || frameWords[w] || strings.HasSuffix(w, "ed") || r.tool[ts[0]] || r.domain[ts[0]] ||
				slices.Contains(nounTerms, ts[0]) || lang.IsLightNoun(ts[0]) && !calendarWords[ts[0]] {
				break
			}
			out = append(out, ts[0])
		}
	}
	return out
}

// tellingBy is tellingItems by the request terms asked.
func (r renderer) tellingBy(arr []any, asked []string) []any {
	values := recordTerms(arr)
	keys, keysOf, tops := keyTerms(arr), make([]map[string]bool, len(arr)), make([]map[string]bool, len(arr))
	for i, item := range arr {
		keysOf[i] = keyTerms(item)
		// A word of the agent's trade deep in a record ("lab" of an order's location, the
		// Clearpath Labs) says nothing of which record it is; one of its own values does
		// ("service": "water" of "the water bill").
		var own []any
		obj, _ := item.([]field)
		for _, f := range obj {
			if s, ok := f.val.(string); ok {
				own = append(own, s)
			}
		}
		top := valueTerms(own)
		tops[i] = top
		maps.DeleteFunc(values[i], func(t string, _ bool) bool { return r.domain[t] && !top[t] })
	}
	// A word only some records have a member for ("guest passes left" of the one permit with
	// "passes") tells those records apart, as a value some records carry does.
	// A word some records hold as a value and the others only as a key ("day skipper" of a
	// course so named, beside another course's "skipper" field) names the former: the others
	// merely have a field by that name.
	named := func(t string) bool {
		return keys[t] && !r.tool[t] && !lang.IsLightNoun(t) && !lang.IsNumberTerm(t) && splits(t, values) && valueNotKey(t, values, keysOf)
	}
	someKey := func(t string) bool {
		return !r.tool[t] && !lang.IsLightNoun(t) && !lang.IsNumberTerm(t) && splits(t, keysOf) && !named(t)
	}
	tells := func(t string) bool { return r.telling(t, values, keys) || someKey(t) || named(t) }
	if r.earlierTerm != nil && !slices.ContainsFunc(asked, tells) {
		asked = r.earlierTerm // "how do i cancel it" after "...for spotify": the earlier words say which
	}
	// The records that carry the most of the telling words: "has the garmin strap shipped"
	// is about the strap, not about another order that has shipped.
	var hits []any
	most := 0
	for i, item := range arr {
		n := 0
		for _, t := range asked {
			// A word a record holds as a value of its own ("day skipper", the course's
			// name) says more of which record it is than a field some records have ("start"
			// of another course's dates): it counts twice. One deeper in it ("turn" of a
			// tilt and turn window among an order's items) counts as the field does.
			if (r.telling(t, values, keys) || named(t)) && values[i][t] && splits(t, values) {
				n += 1 + b2i(tops[i][t])
			} else if someKey(t) && keysOf[i][t] {
				n++
			}
		}
		switch {
		case n == 0 || n < most:
		case n > most:
			hits, most = []any{item}, n
		default:
			hits = append(hits, item)
		}
	}
	if len(hits) > 0 {
		return hits
	}
	// No record uses the request's own word; one whose kind is clearly the closest in meaning
	// is the one meant ("my power bill" among electricity, water and internet).
	kinds := make([]map[string]bool, len(arr))
	for i, item := range arr {
		var kind []any
		obj, _ := item.([]field)
		for _, f := range obj {
			if categoryKeys[lastWord(lang.Humanise(f.key))] {
				kind = append(kind, f.val)
			}
		}
		kinds[i] = valueTerms(kind)
	}
	for _, t := range asked {
		if r.generic(t) || lang.IsStopword(t) {
			continue
		}
		if i := closestRecord(t, kinds, recordCloseness); i >= 0 {
			return []any{arr[i]}
		}
	}
	return nil
}

// valueNotKey reports whether no record that holds t as a value (values) also has it as a key
// (keysOf).
func valueNotKey(t string, values, keysOf []map[string]bool) bool {
	for i := range values {
		if values[i][t] && keysOf[i][t] {
			return false
		}
	}
	return true
}

// splits reports whether some of the records' sets hold t and some do not: t tells them apart.
func splits(t string, sets []map[string]bool) bool {
	return slices.ContainsFunc(sets, func(s map[string]bool) bool { return s[t] }) &&
		slices.ContainsFunc(sets, func(s map[string]bool) bool { return !s[t] })
}

// generic reports whether term t names no record by itself: a word of the called tool or
// of the agent's trade, a light noun or a number.
func (r renderer) generic(t string) bool {
	return r.tool[t] || r.domain[t] || lang.IsLightNoun(t) || lang.IsNumberTerm(t)
}

// telling reports whether request term t may say which record is meant: some record's values
// use it, it names no field (asked "how do i cancel", a record's "cancel" instructions say
// nothing about which record), and it is no word of the called tool, light noun or number. A
// month or weekday is light to routing but names the records dated in it.
func (r renderer) telling(t string, values []map[string]bool, keys map[string]bool) bool {
	if r.tool[t] || lang.IsLightNoun(t) && !calendarWords[t] || lang.IsNumberTerm(t) || keys[t] {
		return false
	}
	return slices.ContainsFunc(values, func(v map[string]bool) bool { return v[t] })
}

// valueTerms returns the terms of every string value in v, however deep; a date adds the
// name of its month, by which people name it ("my february leave").
func valueTerms(v any) map[string]bool {
	// Sized for the values (a record's value holds a term or two) rather than grown through
	// four or five doublings: counting them allocates nothing.
	n := 0
	eachString(v, func(string) { n++ })
	into := make(map[string]bool, 2*n)
	seen := make(map[string]bool, n) // records repeat their values ("delivered"): each is read once
	eachString(v, func(s string) {
		if seen[s] {
			return
		}
		seen[s] = true
		if w, ok := parseWhen(s); ok {
			s += " " + dateWords(w.t)
		}
		addTerms(into, s)
		for _, c := range codeTerms(s) {
			into[c] = true
		}
	})
	return into
}

// dateWords are the words people name day d by besides its digits: its month written out and
// shortened ("december", "dec"), and its day of the month as an ordinal ("the 19th").
func dateWords(d time.Time) string {
	month := d.Month().String()
	return month + " " + month[:3] + " " + ordinal(d.Day())
}

// ordinal writes n as an ordinal number: 1st, 2nd, 3rd, 11th, 22nd.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// recordTerms returns the value terms of each record of arr (see valueTerms).
func recordTerms(arr []any) []map[string]bool {
	out := make([]map[string]bool, len(arr))
	for i, item := range arr {
		out[i] = valueTerms(item)
	}
	return out
}

// addTerms adds the terms of text to set.
func addTerms(set map[string]bool, text string) {
	lang.EachWord(text, func(w lang.Word) {
		var buf [4]string // a word's terms: one, or one for each part of a hyphenated word
		for _, t := range lang.AppendTerms(buf[:0], w.Lower) {
			set[t] = true
		}
	})
}

// heldTerms returns the terms of every value and key in v: all the words data holds.
func heldTerms(v any) map[string]bool {
	held := valueTerms(v)
	keys := keyTerms(v)
	maps.Copy(held, keys)
	for t := range keys {
		if verb := verbOf(t); verb != "" {
			held[verb] = true // a "last_payment" holds when one last paid
		}
	}
	return held
}

// requestTerms are the terms of a request, its codes and ampersand names included (codeTerms).
func requestTerms(s string) []string {
	return append(lang.Terms(s), codeTerms(s)...)
}

// codeTerms returns the words of s written with marks between letters and digits that people
// type without them, squashed: a code ("I-9", "A-10177": i9, a10177) or a name joined
// by an ampersand ("AT&T", "M&S": att, ms), whose letters the terms of s would lose.
func codeTerms(s string) []string {
	if !strings.ContainsAny(s, "0123456789&") {
		return nil // most text: no word of it has a digit or an ampersand
	}
	var out []string
	for w := range strings.FieldsSeq(s) {
		if !strings.ContainsAny(w, "0123456789&") {
			continue // a plain word of a text holding a code elsewhere ("Pegasus 41")
		}
		c := squash(w)
		code := strings.ContainsAny(c, "0123456789") && strings.Trim(c, "0123456789") != ""
		if len(c) > 1 && c != strings.ToLower(w) && (code || strings.Contains(w, "&")) {
			out = append(out, c)
		}
	}
	return out
}

// eachString calls fn with every string value in v, however deep, in order.
func eachString(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case []field:
		for _, f := range x {
			eachString(f.val, fn)
		}
	case []any:
		for _, c := range x {
			eachString(c, fn)
		}
	}
}

// eachKey calls fn with every key in v, however deep, in order.
func eachKey(v any, fn func(string)) {
	switch x := v.(type) {
	case []field:
		for _, f := range x {
			fn(f.key)
			eachKey(f.val, fn)
		}
	case []any:
		for _, c := range x {
			eachKey(c, fn)
		}
	}
}

// subjectOpeners open the noun phrase that names what a request is about.
var subjectOpeners = map[string]string{"the": "the", "my": "your", "our": "your", "his": "his", "her": "her",
	"their": "their", "a": "", "an": "", "any": ""}

// unmatchedSubject returns the thing a request names that no record of arr is about, as
// the user put it ("the socks", "your hamster"), or "", and whether it was named as one
// thing ("the", "my") rather than any ("any shots"). The thing is the word right after the
// opener; it is not one when a record's values, the called tool or the list's keys use it
// (then it says which field, not which record), or a record's value is it written otherwise
// ("the f150" and an F-150).
func (r renderer) unmatchedSubject(arr []any, noun string) (string, bool) {
	if r.scoped || r.negates() || len(arr) == 0 {
		return "", false
	}
	nounTerms := lang.Terms(noun)
	values, each := heldTerms(arr), recordTerms(arr) // each record's value words, for closeness
	ws := r.askedWord
	for i := 1; i < len(ws); i++ {
		opener, ok := subjectOpeners[ws[i-1].Lower]
		if !ok && !copulas[ws[i-1].Lower] && !r.forWhich(ws, i, nounTerms) {
			continue // "when is dune due back": the word after "is" is the subject too
		}
		word := strings.TrimSuffix(ws[i].Lower, "'s")
		ts := lang.Terms(word)
		if len(ts) != 1 || lang.IsStopword(word) || mostWords[word] || leastWords[word] || nextWords[word] || latestWords[word] || i+1 < len(ws) && ws[i+1].Lower == "of" {
			continue // "my share of the crown" names what of the crown, not a thing; "the next one" which one
		}
		t := ts[0]
		if values[t] || r.around[t] || slices.Contains(nounTerms, t) || r.generic(t) ||
			!r.elsewhere[t] && (claimed(t, each) || closestRecord(t, each, recordCloseness) >= 0) || nearAny(t, r.domain, tradeCloseness) || misspells(word, r.domain) {
			continue
		}
		// The thing's name runs on to the list's own noun or a word of the trade: "a disney
		// plus subscription" is disney plus.
		phrase := []string{ws[i].Text}
		for j := i + 1; j < len(ws) && j < i+maxOwnedWords && !strings.HasSuffix(ws[j-1].Lower, "'s"); j++ {
			w := ws[j].Lower
			wt := lang.Terms(w)
			if len(wt) != 1 || lang.IsStopword(w) || phraseEnds[w] || frameWords[w] || timeNouns[w] || strings.HasSuffix(w, "ed") || r.tool[wt[0]] || r.domain[wt[0]] || slices.Contains(nounTerms, wt[0]) {
				break
			}
			phrase = append(phrase, ws[j].Text)
		}
		phrase = phrase[:thingEnd(ws, i, i+len(phrase))-i]
		name := strings.TrimSuffix(strings.Join(phrase, " "), "'s")
		if opener == "" {
			return name, false
		}
		return opener + " " + name, true
	}
	return "", false
}

// squash lower-cases s and keeps only its letters and digits.
func squash(s string) string {
	return strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return unicode.ToLower(c)
		}
		return -1
	}, s)
}

// forWhich reports whether ws[i] follows the list's noun or a word of the called tool and
// "for" or "in": "taylor" in "do i have tickets for taylor swift" says which tickets, "default"
// in "are any of my loans in default" which loans, but not "progress" (generalStates).
func (r renderer) forWhich(ws []lang.Word, i int, nounTerms []string) bool {
	return i >= 2 && (ws[i-1].Lower == "for" || ws[i-1].Lower == "in" && !generalStates[ws[i].Lower]) && slices.ContainsFunc(lang.Terms(ws[i-2].Lower), func(t string) bool {
		return r.tool[t] || slices.Contains(nounTerms, t)
	})
}

// keyTerms returns the terms of every key in v, however deep.
func keyTerms(v any) map[string]bool {
	into := map[string]bool{}
	seen := map[string]bool{} // a list's records repeat their keys: each is read once
	eachKey(v, func(key string) {
		if !seen[key] {
			seen[key] = true
			addTerms(into, lang.Humanise(key))
		}
	})
	return into
}

// namedItems returns the records of arr that mention every word the request names a thing
// by: its words that are not the called tool's ("order" for list_recent_orders), light nouns
// or numbers. It returns nil when the request names no thing.
func (r renderer) namedItems(arr []any, itemTerms func() [][]string) []any {
	// A list the service chose by the call's own words ("coupons for headphones") may hold
	// what applies to anything; and "other than the headphones" names what not to show.
	if r.scoped || r.negates() {
		return nil
	}
	if hits := r.statedItems(arr); len(hits) > 0 {
		return hits
	}
	var named []string
	for _, t := range r.askedTerm {
		if !r.tool[t] && !lang.IsLightNoun(t) && !lang.IsNumberTerm(t) {
			named = append(named, t)
		}
	}
	if len(named) == 0 {
		return nil
	}
	hits, _ := carryingAll(arr, itemTerms(), named)
	return hits
}

// carryingAll splits arr, whose records have itemTerms, into those that carry every one of
// words and the others, each in arr's order.
func carryingAll(arr []any, itemTerms [][]string, words []string) (hits, rest []any) {
	return partition(arr, itemTerms, func(ts []string) bool {
		return !slices.ContainsFunc(words, func(t string) bool { return !slices.Contains(ts, t) })
	})
}

// statedItems returns the records of arr that hold something the request states (see
// [statements]), when some do and others do not; nil otherwise.
func (r renderer) statedItems(arr []any) []any {
	hits, rest := partition(arr, arr, r.stated().in)
	if len(rest) == 0 {
		return nil
	}
	return hits
}

// statements are what a request states that may name a record, read from it once for all the
// records it is held against: numbers, which a record holds as an amount of money however
// deep ("why was i charged 75 bucks") or, with three digits or more, as a word of a value
// ("the card ending 4425" of "**** 4425"; "my 2 bills" counts, and "Suite 2" is no bill).
type statements struct {
	amounts []float64
	words   map[string]bool // the numbers as written: true for those long enough to name
	whole   map[string]bool // little words that name a record whose value is that word alone
}

// stated reads the request's statements.
func (r renderer) stated() statements {
	st := statements{words: map[string]bool{}, whole: map[string]bool{}}
	for _, m := range statedNumber.FindAllString(r.asked, -1) {
		if x, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(m, "$"), ",", ""), 64); err == nil && x > 0 {
			st.amounts = append(st.amounts, x)
			st.words[m] = len(m) >= minCodeDigits
		}
	}
	// A little word the terms leave out is stated too when a value is that word alone: "my
	// right hearing aid" of the one whose "ear" is "right". A shorter one ("all", "on") is no
	// value's name.
	for _, w := range r.askedWord {
		st.whole[w.Lower] = lang.IsStopword(w.Lower) && len(w.Lower) >= minWholeValueLetters
	}
	return st
}

// in reports whether v holds one of the statements.
func (st statements) in(v any) bool {
	held := false
	eachAmount(v, func(x float64) {
		held = held || slices.ContainsFunc(st.amounts, func(s float64) bool { return math.Abs(s-x) < 0.005 })
	})
	eachString(v, func(s string) {
		held = held || st.whole[strings.ToLower(strings.TrimSpace(s))] || slices.ContainsFunc(strings.Fields(s), func(w string) bool { return st.words[w] })
	})
	return held
}

// minWholeValueLetters: see stated.
const minWholeValueLetters = 4

// minCodeDigits: a shorter number the request states counts or measures rather than names.
const minCodeDigits = 3

// statedNumber is a number as a request states it: "75", "$1,245.00".
var statedNumber = regexp.MustCompile(`\$?\b\d[\d,]*(?:\.\d+)?\b`)

// eachAmount calls fn with every amount object's amount in v ({"amount": 75, "currency":
// "USD"}), however deep.
func eachAmount(v any, fn func(float64)) {
	switch x := v.(type) {
	case []field:
		if n, _, ok := moneyObject(x); ok {
			if f, err := n.Float64(); err == nil {
				fn(f)
			}
			return
		}
		for _, f := range x {
			eachAmount(f.val, fn)
		}
	case []any:
		for _, c := range x {
			eachAmount(c, fn)
		}
	}
}

// matchesOfCall splits a list the service chose by the call's text arguments into the records
// that carry every word of them that tells records apart (one some records have and others
// lack) and the others. With no such word, all are hits.
func (r renderer) matchesOfCall(arr []any, itemTerms func() [][]string) (hits, rest []any) {
	if !r.scoped || len(arr) < 2 || r.negates() {
		return arr, nil
	}
	its := itemTerms()
	var telling []string
	for _, t := range r.argTerms {
		n := 0
		for _, ts := range its {
			if slices.Contains(ts, t) {
				n++
			}
		}
		if n > 0 && n < len(arr) && !lang.IsLightNoun(t) && !lang.IsNumberTerm(t) {
			telling = append(telling, t)
		}
	}
	if len(telling) == 0 {
		return arr, nil
	}
	return carryingAll(arr, its, telling)
}

// echoedItems returns the records of arr one of whose string members is, as a whole, a text
// argument of the call (the kind "Vacation" for "leave_type": "vacation"), or nil.
func (r renderer) echoedItems(arr []any) []any {
	if !r.scoped {
		return nil
	}
	hits, _ := partition(arr, arr, func(item any) bool {
		obj, _ := item.([]field)
		return slices.ContainsFunc(obj, func(f field) bool { s, ok := f.val.(string); return ok && r.echoed(s) })
	})
	return hits
}

// negates reports whether the request says what it does not want: "other than the headphones".
func (r renderer) negates() bool {
	return slices.ContainsFunc(strings.Fields(r.asked), func(w string) bool { return negators[strings.Trim(w, ",.?!")] })
}

// askedFirst returns a list too long to show whole with the records that name a word of the
// request first, the others after them, each in the service's order: asked whether points pay
// for "the hotel", the reply shows the hotel night rather than "and 2 more".
func (r renderer) askedFirst(arr []any, itemTerms func() [][]string) []any {
	if len(r.askedTerm) == 0 {
		return arr
	}
	hits, rest := partition(arr, itemTerms(), func(ts []string) bool {
		return slices.ContainsFunc(ts, func(t string) bool { return slices.Contains(r.askedTerm, t) })
	})
	if len(hits) == 0 || len(rest) == 0 {
		return arr
	}
	return append(hits, rest...)
}

// partition splits arr into the records whose counterpart in of (the record itself, or what
// was read of it, such as its terms) satisfies keep and the others, each in arr's order.
func partition[T any](arr []any, of []T, keep func(T) bool) (hits, rest []any) {
	for i, item := range arr {
		if keep(of[i]) {
			hits = append(hits, item)
		} else {
			rest = append(rest, item)
		}
	}
	return hits, rest
}

// thingEnd is where the name of a thing that starts at ws[start] and runs to ws[end-1] really
// ends: before the particle of a phrasal verb ("my deposit" of "did they give my deposit
// back", "when is dune due back"), and before a verb, which says what is asked of the thing:
// the last of two words after do ("what did the doctor say about it") or the word before a
// preposition left at the end ("whats my 401k contribution set at").
func thingEnd(ws []lang.Word, start, end int) int {
	for end-start >= 2 {
		switch {
		case route.ParticleOf(ws, end-1) || verbParticles[ws[end-1].Lower] && end == len(ws):
		case end-start == 2 && doSubject(ws, start) && (end == len(ws) || closesThing(ws[end].Lower)):
		case end == len(ws)-1 && (scopePreps[ws[end].Lower] || lang.IsStopword(ws[end].Lower)):
			// A preposition or particle left alone at the end ("whats my contribution set
			// at", "was the lamp paid out") follows a verb; "back" may follow the thing
			// ("did i get my deposit back").
		default:
			return end
		}
		end--
	}
	return end
}

// closesThing reports whether w, after a thing's name, ends it: a preposition, a particle or
// another word of no content.
func closesThing(w string) bool {
	return scopePreps[w] || verbParticles[w] || lang.IsStopword(w)
}

// doSubject reports whether the words from ws[start] are the subject of a question with do:
// "do" right before them, or before the article or possessive that opens them ("what did the
// doctor say"), not a thing named after the verb ("do i have tickets for taylor swift").
func doSubject(ws []lang.Word, start int) bool {
	return start >= 1 && doLeads[ws[start-1].Lower] ||
		start >= 2 && subjectOpener(ws[start-1].Lower) && doLeads[ws[start-2].Lower]
}
