package answer

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// fact is one scalar member of an object, read for people: a label (the humanised key, or
// "" when the value reads on its own) and the formatted value.
type fact struct {
	label string
	text  string
	money bool // an amount of money: the price slot of a list item
	date  bool // a date or timestamp
	plain bool // money under a one-word key with a currency: the amount says it all
	// source is a seller-like member ("merchant", "store"): "at Nike" in a list item.
	source bool
	// opens and closes pair facts into one phrase: "20% off" or "from Mar 3" opens,
	// "until Nov 27" closes, giving "20% off until Nov 27".
	opens, closes bool
	list          bool // a list of things ("glass bottles and dogs")
	// timing is a time of day ("08:00") or a list of dates ("installation dates"): with the
	// dates, what a question when asks for, though no single date to weigh against them.
	timing bool
	// key is the member's own name when the label no longer says it ("deadline" read as
	// "until Mar 1"): a question still names the fact by it.
	key string
}

// named is what names the fact: its label, and its member's own name when that differs.
func (f fact) named() string {
	return strings.TrimSpace(f.label + " " + f.key)
}

// namedBy counts the terms of what names f that asked holds for.
func (f fact) namedBy(asked func(term string) bool) int {
	n := 0
	for _, t := range lang.Terms(f.named()) {
		n += b2i(asked(t))
	}
	return n
}

// namedByVerb counts the terms of what names f, nouns in -ment, whose verbs asked holds for
// ("can i pay by card" names the payment methods).
func (f fact) namedByVerb(asked func(term string) bool) int {
	n := 0
	for _, t := range lang.Terms(f.named()) {
		n += b2i(verbOf(t) != "" && asked(verbOf(t)))
	}
	return n
}

// verbOf returns the stem of the verb a noun stem in -ment is made of ("payment", "pay"),
// or "".
func verbOf(t string) string {
	v, ok := strings.CutSuffix(t, "ment")
	if !ok || len(v) < 3 {
		return ""
	}
	if ts := lang.Terms(v); len(ts) == 1 {
		return ts[0]
	}
	return ""
}

// phrase renders the fact as it reads in a sentence: "6 passes left", "due Mar 3".
func (f fact) phrase() string {
	switch {
	case f.label == "":
		return f.text
	case f.text == "":
		return f.label
	case remainderWords[lastWord(f.label)] && strings.Trim(f.text, "0123456789.,") == "":
		return f.text + " " + f.label // "6 passes left", not "passes left 6"
	case unitWords[lastWord(f.label)] && strings.Trim(f.text, "0123456789.,") == "":
		// "used this year 2 days", not "used this year days 2": the unit follows its number.
		unit := lastWord(f.label)
		head := strings.TrimSpace(strings.TrimSuffix(f.label, unit))
		if f.text == "1" {
			unit = strings.TrimSuffix(unit, "s")
		}
		return strings.TrimSpace(head + " " + f.text + " " + unit)
	}
	return f.label + " " + f.text
}

// phrases renders facts in order, pairing an opening fact with the closing one after it.
func phrases(facts []fact) []string {
	var parts []string
	for i := 0; i < len(facts); i++ {
		p := facts[i].phrase()
		if facts[i].opens && i+1 < len(facts) && facts[i+1].closes {
			i++
			closing := facts[i]
			if closing.label == facts[i-1].label {
				closing.label = "" // "rehearsal from 19:30 until 21:30": the label is said once
			}
			p += " " + closing.phrase()
		}
		parts = append(parts, p)
	}
	return parts
}

// scope carries what the facts of one object read against: the currency in force.
type scope struct {
	currency string
	item     bool // a list item's facts, whose objects no caller reads as prefixed facts
	depth    int  // how deep in objects these facts sit
}

// facts classifies the scalar members of obj, in order, leaving out skip (a list item's
// head, or -1) and everything that only echoes the request or serves machines. The
// currency it returns is the one in force for obj's children.
func (r renderer) facts(obj []field, sc scope, skip int) ([]fact, string) {
	cur, curAt := sc.currency, slices.IndexFunc(obj, func(f field) bool { return currencyOf(f) != "" })
	if curAt >= 0 {
		cur = currencyOf(obj[curAt])
	}
	money := moneyMembers(obj, cur)
	lengths := map[string]bool{}
	nested := false
	for _, f := range obj {
		switch v := f.val.(type) {
		case []any:
			lengths[strconv.Itoa(len(v))] = true
			nested = true
		case []field:
			nested = true
		}
	}
	if len(money) == 0 && !nested {
		curAt = -1 // nothing here or below is priced in it: the currency is a fact of its own
	}

	var out []fact
	for i, f := range obj {
		if i == skip || i == curAt {
			continue // a currency is shown through the amounts it qualifies
		}
		label := cmp.Or(lang.Humanise(f.key), "value") // "value" for keys made only of separators
		switch v := f.val.(type) {
		case string:
			if fc, ok := r.stringFact(f.key, label, v); ok {
				out = append(out, fc)
			}
		case json.Number:
			// An echo of the call, an id for machines and the size of a list shown anyway go.
			if !r.echoes[normNumber(v)] && !r.hidesID(f.key, label, v.String()) && !(countWords[lastWord(label)] && lengths[v.String()]) {
				out = append(out, numberFact(f.key, label, v, cur, money[i]))
			}
		case bool:
			if !bookkeepingWords[strings.Fields(label)[0]] {
				out = append(out, fact{label: flagText(label, v)})
			}
		case []any:
			if len(v) > 0 && allScalars(v) { // lists of records and empty lists read as lists
				// A list of dates ("installation dates") is as much a date as one is.
				out = append(out, fact{label: label, text: r.scalarList(f.key, v), list: true, timing: allDates(v)})
			}
		case []field:
			if amount, code, ok := moneyObject(v); ok {
				// {"payout": {"amount": 2400, "currency": "USD"}} is the payout, $2,400.00.
				per := perOf(v)
				text := strings.Join(append([]string{formatMoney(amount, code)}, per...), " per ")
				fc := fact{label: label, text: text, money: true, plain: priceLabels[label]}
				if len(per) > 0 {
					fc.key = "per " + per[0] // "what do extra hours cost" names a rate per hour
				}
				out = append(out, fc)
			} else if !sc.item || r.showIDs || len(v) == 1 || r.names(label) || r.namesKeyIn(v) || r.asksWhen() && holdsDate(v) {
				// An object's objects read as prefixed facts, however deep: "last top up on
				// Oct 30". In a list item only for the one record asked about ("cancel how
				// Settings > Subscriptions"), an object of one member ("dentist Dr. Osei") or
				// one the request names ("the registration"), or names a member of ("the
				// deductible" of each device's loss and damage cover).
				if sc.depth < maxNesting {
					inner, _ := r.facts(v, scope{currency: cur, depth: sc.depth + 1}, -1)
					out = appendPrefixed(out, label, inner)
				}
			}
		}
	}
	return out, cur
}

// appendPrefixed appends to out the facts of an inner object, each labelled with the
// object's label before its own ("flight" and "gate" make "flight gate").
func appendPrefixed(out []fact, label string, inner []fact) []fact {
	for _, fc := range inner {
		if fc.label == "" {
			fc.label = label
		} else {
			fc.label = label + " " + fc.label
		}
		out = append(out, fc)
	}
	return out
}

// moneyObject reads an object that is an amount and its currency, and nothing else but
// what the amount is per ("per": "hour", see perOf).
func moneyObject(obj []field) (amount json.Number, code string, ok bool) {
	if len(obj) != 2+len(perOf(obj)) {
		return "", "", false
	}
	for _, f := range obj {
		switch v := f.val.(type) {
		case json.Number:
			if !amountLabels[lang.Humanise(f.key)] {
				return "", "", false
			}
			amount = v
		default:
			if f.key == "per" {
				continue
			}
			if code = currencyOf(f); code == "" {
				return "", "", false
			}
		}
	}
	return amount, code, amount != "" && code != ""
}

// perOf returns the unit a money object's amount is for, as a member "per" says it ("day"),
// in a slice of none or one.
func perOf(obj []field) []string {
	for _, f := range obj {
		if s, ok := f.val.(string); ok && f.key == "per" && strings.TrimSpace(s) != "" {
			return []string{strings.TrimSpace(s)}
		}
	}
	return nil
}

// stringFact reads a text member; false when it is blank, echoes the call or is a hidden id.
func (r renderer) stringFact(key, label, v string) (fact, bool) {
	s := strings.Join(strings.Fields(v), " ")
	if s == "" || r.echoed(s) || r.hidesID(key, label, s) {
		return fact{}, false
	}
	if w, ok := parseWhen(s); ok {
		fc := dateFact(label, w.format())
		fc.date = true
		return fc, true
	}
	if isHour(s) {
		// A time of day reads by its key as a date does: "from 08:00", "until 10:00".
		fc := dateFact(label, s)
		fc.timing = true
		return fc, true
	}
	fc := fact{label: label, text: tidyString(s)}
	switch {
	case bareWords[label]:
		fc.label = ""
	case sourceWords[lastWord(label)]:
		fc.source = true
	}
	return fc, true
}

// dateFact reads a date by what its key says about it: an end ("until Nov 27"), a start
// ("from Mar 3"), a day ("on Mar 3"), or else its own label ("departs Mar 3").
func dateFact(label, date string) fact {
	switch {
	case endWords[label]:
		return fact{text: "until " + date, closes: true, key: label}
	case startWords[label]:
		return fact{text: "from " + date, opens: true, key: label}
	case dayWords[label]:
		return fact{text: "on " + date, key: label}
	}
	return fact{label: label, text: date}
}

// numberFact reads a number member as money (isMoney, in cur), a percentage or a plain number.
func numberFact(key, label string, v json.Number, cur string, isMoney bool) fact {
	words := strings.Fields(label)
	switch {
	case isMoney:
		text := formatMoney(v, cur)
		if cur == "" {
			return fact{label: label, text: text, money: true} // no currency: the label says what it is
		}
		// "price per night" -> "120.00 EUR per night"; a bare "price" needs no label.
		if per := strings.Index(label, " per "); per > 0 && moneyWords[lastWord(label[:per])] {
			return fact{text: text + label[per:], money: true, key: label}
		}
		return fact{label: label, text: text, money: true, plain: len(words) == 1}
	case isPercent(words):
		var rest []string
		discount := false
		for _, w := range words {
			discount = discount || discountWord[w]
			if !percentWords[w] {
				rest = append(rest, w)
			}
		}
		if discount {
			return fact{text: formatNumber(v) + "% off", opens: true}
		}
		return fact{label: strings.Join(rest, " "), text: formatNumber(v) + "%"}
	}
	return fact{label: label, text: scalar(key, v)}
}

func isPercent(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return percentWords[w] })
}

// moneyMembers marks the numeric members of obj that are amounts: those named like money,
// and, beside a currency, the only other number when nothing is named like money.
func moneyMembers(obj []field, cur string) map[int]bool {
	out := map[int]bool{}
	var plain []int
	for i, f := range obj {
		n, ok := f.val.(json.Number)
		if !ok || isIdentifierKey(f.key) || isIDKey(f.key) {
			continue
		}
		words := strings.Fields(lang.Humanise(f.key))
		if len(words) == 0 || isPercent(words) {
			continue
		}
		if p := slices.Index(words, "per"); p > 0 {
			words = words[:p] // "price per night": the money word comes before "per"
		}
		w := words[len(words)-1]
		named := cur != "" && moneyWords[w] || pricedWords[w] && !isWhole(n)
		switch {
		case named:
			out[i] = true
		case cur != "" && !countWords[w]:
			plain = append(plain, i)
		}
	}
	if len(out) == 0 && len(plain) == 1 {
		out[plain[0]] = true
	}
	return out
}

// isWhole reports whether n has no fraction: a whole "cost" with no currency is more likely
// points than money, so it is left as a plain number.
func isWhole(n json.Number) bool {
	_, err := n.Int64()
	return err == nil
}

// isCurrencyKey reports whether a key names a currency: "currency", "currency_code".
func isCurrencyKey(key string) bool {
	return slices.Contains(strings.Fields(lang.Humanise(key)), "currency")
}

// currencyOf returns the currency code a member states ("currency": "usd" is USD), or "".
func currencyOf(f field) string {
	if !isCurrencyKey(f.key) {
		return ""
	}
	return currencyCode(f.val)
}

// isIDKey reports whether a key names an identifier: "id", "order_id", "offerId".
func isIDKey(key string) bool {
	return lastWord(lang.Humanise(key)) == "ID"
}

// readableID reports whether an id is one people quote ("CLM-20931", "A1043"): short, with
// letters and digits, rather than a key for machines (a UUID, a long hash).
func readableID(s string) bool {
	if len(s) < 4 || len(s) > 12 {
		return false
	}
	letters, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '-' || c == '_':
		default:
			return false // lower-case hex and other marks read as machine keys
		}
	}
	return letters > 0 && digits > 0
}

// hidesID reports whether the value s of an id under key is left out: it names the record
// for machines, unless the request names it, asks for an id by the key's own words ("my
// member number" of a member_id), or asks for the one record a reply is about, whose id
// people quote ("CLM-20931").
func (r renderer) hidesID(key, label, s string) bool {
	if !isIDKey(key) || r.mentioned(s) || r.says(idAsks) && r.names(label) {
		return false
	}
	return !r.showIDs || !(readableID(s) && lang.Humanise(key) != "ID" || r.says(idAsks))
}

// mentioned reports whether the user's request names v, so that an id they asked about
// is shown rather than hidden.
func (r renderer) mentioned(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return len(v) >= 2 && strings.Contains(r.asked, v)
}

// asksWhen reports whether the request asks when something is: its dates are then what it
// names, nested ones included ("when is my blood draw", an order's appointment date), and
// so is asking the time ("what time will the fitters turn up").
func (r renderer) asksWhen() bool {
	return slices.ContainsFunc(r.askedWord, func(w lang.Word) bool { return w.Lower == "when" }) || r.saysPhrase(whenAsks)
}

// when reports whether f says when something is: a date or a time of day.
func (f fact) when() bool {
	return f.date || f.timing
}

// hourPattern is a time of day as data writes it: "08:00", "19:30", "8:00 am".
var hourPattern = regexp.MustCompile(`^(?:[01]?\d|2[0-3]):[0-5]\d(?: ?[ap]\.?m\.?)?$`)

// isHour reports whether s is a time of day. It is asked of every string a payload holds,
// most of which do not start with a digit and need no pattern run over them.
func isHour(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && isDigit(s[0]) && hourPattern.MatchString(strings.ToLower(s))
}

// allDates reports whether every value of arr is a date.
func allDates(arr []any) bool {
	for _, v := range arr {
		s, ok := v.(string)
		if _, isDate := parseWhen(s); !ok || !isDate {
			return false
		}
	}
	return len(arr) > 0
}

// asksDeadline reports whether the request asks how long one has to do something ("how
// long have i got to reply"): a record's deadline answers it, not its other dates.
func (r renderer) asksDeadline() bool {
	return r.saysPhrase(deadlineAsks)
}

// asksWhy reports whether the request asks for a reason ("how come the water bill went up"):
// the details of the records it is about give it.
func (r renderer) asksWhy() bool {
	return r.saysPhrase(reasonAsks)
}

// saysPhrase reports whether the request's words hold one of the phrases of list, each
// written in words without apostrophes ("why's" reads "whys").
func (r renderer) saysPhrase(list map[string]bool) bool {
	words := make([]string, len(r.askedWord))
	for i, w := range r.askedWord {
		words[i] = strings.ReplaceAll(w.Lower, "'", "")
	}
	joined := " " + strings.Join(words, " ") + " "
	for phrase := range list {
		if strings.Contains(joined, " "+phrase+" ") {
			return true
		}
	}
	return false
}

// deadline reports whether f is a date by which something must be done: "cure by", "due",
// "deadline".
func (f fact) deadline() bool {
	return f.date && deadlineWords[lastWord(f.named())]
}

// holdsDate reports whether some string value of v, however deep, is a date or a time of day.
func holdsDate(v any) bool {
	held := false
	eachString(v, func(s string) {
		_, ok := parseWhen(s)
		held = held || ok || isHour(s)
	})
	return held
}

// namesKeyIn reports whether the request names a word of a key in v, however deep, that is
// no light noun.
func (r renderer) namesKeyIn(v any) bool {
	named := false
	eachKey(v, func(key string) { named = named || r.names(lang.Humanise(key)) })
	return named
}

// names reports whether the request names a word of label that is no light noun: the user
// asked about that member.
func (r renderer) names(label string) bool {
	return slices.ContainsFunc(lang.Terms(label), func(t string) bool {
		return !lang.IsLightNoun(t) && slices.ContainsFunc(r.askedTerm, func(a string) bool { return a == t || lang.IsOtherForm(a, t) })
	})
}
