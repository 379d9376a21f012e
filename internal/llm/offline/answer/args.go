package answer

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// argSource is the request text that arguments are taken from. Words taken by one
// parameter are not offered to the next.
type argSource struct {
	text  string
	words []lang.Word
	used  []bool
	vocab ToolVocab
	// keepUnits is set for a second try when every word of a request was tool vocabulary:
	// words that only the parameters' descriptions use are then the user's own.
	keepUnits bool
}

// ToolVocab are the stems that describe the tools rather than what is asked about: those of
// the prompt and the tools' names and descriptions, and those only the parameters'
// descriptions use ("bags" in "2 bags of kibble" is the unit, not the product; but "running
// shoes" in an example of a query is what the user may well be looking for).
type ToolVocab struct {
	tools, units map[string]bool
}

// newArgSource reads arguments from text, whose words are ws; it only reads ws.
func newArgSource(text string, ws []lang.Word, vocab ToolVocab) *argSource {
	return &argSource{text: text, words: ws, used: make([]bool, len(ws)), vocab: vocab}
}

// markSpan marks every word inside text[start:end] as used.
func (a *argSource) markSpan(start, end int) {
	for i, w := range a.words {
		if w.Start < end && w.End > start {
			a.used[i] = true
		}
	}
}

// ExtractArgs fills a tool's arguments from the request. primary is the part of the
// request meant for this tool; secondary (the whole request, with any earlier turn it
// quotes) is consulted only for required parameters that primary cannot fill. Optional
// parameters with nothing to fill them are left out.
func ExtractArgs(schema any, primary, secondary string, domain ToolVocab) map[string]any {
	params := ParamsOf(schema)
	slices.SortStableFunc(params, func(a, b Param) int { return int(kindOf(a)) - int(kindOf(b)) })
	args := map[string]any{}
	src := newArgSource(primary, lang.ScanWords(primary), domain)
	var alt *argSource
	if secondary != "" && secondary != primary {
		alt = newArgSource(secondary, lang.ScanWords(secondary), domain)
	}
	for _, p := range params {
		v, ok := src.extract(p)
		if !ok && p.required && alt != nil {
			v, ok = alt.extract(p)
		}
		if !ok && p.required && kindOf(p) == kindPlace && alt != nil {
			// A follow-up that names no place ("how much is it a night") is about the place of
			// the record it leans on: the earlier request's own words name it ("my boston
			// trip"), where the follow-up's words would only be read as one.
			v, ok = alt.content(false)
		}
		if !ok && p.required {
			v, ok = src.bestEffort(p)
		}
		if ok {
			args[p.Name] = v
		}
	}
	return args
}

// extract takes a value for p from the words no earlier parameter took, as p's kind is found.
func (a *argSource) extract(p Param) (any, bool) {
	switch kindOf(p) {
	case kindEnum:
		return a.enumValue(p.enum)
	case kindFlight:
		return a.flight()
	case kindID:
		return a.identifier()
	case kindNumber:
		return a.number(p.Type == "integer", countsMoney(p))
	case kindPlace:
		return a.place()
	case kindDate:
		return a.date()
	case kindText:
		if opts := p.listedOptions(); opts != nil {
			return a.enumValue(opts)
		}
		v, ok := a.content(false)
		if ex, named := a.enumValue(p.examples()); named && (!ok || !slices.Contains(lang.Terms(v.(string)), lang.Stem(ex.(string)))) {
			// The request names a value the description gives as an example ("e.g. clubhouse")
			// that its free words left out as the tools' own: that is the value, not the rest
			// ("am i allowed to put a bouncy castle outside the clubhouse").
			return ex, true
		}
		if ok {
			return v, ok
		}
		a.keepUnits = true
		defer func() { a.keepUnits = false }()
		return a.content(false)
	}
	return nil, false
}

// bestEffort fills a required parameter that nothing matched.
func (a *argSource) bestEffort(p Param) (any, bool) {
	switch kindOf(p) {
	case kindEnum:
		return p.enum[0], true
	case kindBool:
		return false, true
	case kindNumber:
		return nil, false
	case kindOther:
		if p.Type == "array" {
			return []any{}, true
		}
		return map[string]any{}, true
	case kindPlace:
		// The tools' own words name no place: "which hotel am i at" asks no hotel search in
		// a city called "hotel".
		return a.content(false)
	}
	if v, ok := a.content(true); ok {
		return v, true
	}
	if t := strings.TrimSpace(a.text); t != "" {
		return t, true
	}
	return nil, false
}

func (a *argSource) enumValue(values []string) (any, bool) {
	have := map[string]bool{}
	addTerms(have, a.text)
	for _, v := range values {
		ts := lang.Terms(v)
		if len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return !have[t] }) {
			return v, true
		}
	}
	return nil, false
}

// flightNumber is an airline code and a number: "UA123", "UA 123", "B6 417", "ua123".
var flightNumber = regexp.MustCompile(`\b(?:([A-Z]{2}|[A-Z][0-9]|[0-9][A-Z]) ?([0-9]{1,4})|([a-z]{2})([0-9]{1,4}))\b`)

func (a *argSource) flight() (any, bool) {
	for _, m := range flightNumber.FindAllStringSubmatchIndex(a.text, -1) {
		if a.spanUsed(m[0], m[1]) {
			continue
		}
		code := strings.ToUpper(strings.ReplaceAll(a.text[m[0]:m[1]], " ", ""))
		a.markSpan(m[0], m[1])
		return code, true
	}
	return nil, false
}

func (a *argSource) spanUsed(start, end int) bool {
	for i, w := range a.words {
		if a.used[i] && w.Start < end && w.End > start {
			return true
		}
	}
	return false
}

// isoDate finds a date written for machines, in a request or inside a text value.
var isoDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// identifier returns the first id-looking word: letters and digits mixed ("A1234",
// "ORD-77"), or else three or more digits.
func (a *argSource) identifier() (any, bool) {
	pick := -1
	for i, w := range a.words {
		if a.used[i] || !strings.ContainsFunc(w.Text, unicode.IsDigit) || isoDate.MatchString(w.Text) {
			continue
		}
		if strings.ContainsFunc(w.Text, unicode.IsLetter) {
			pick = i
			break
		}
		if pick < 0 && len(strings.ReplaceAll(w.Text, "-", "")) >= 3 {
			pick = i
		}
	}
	if pick < 0 {
		return nil, false
	}
	a.used[pick] = true
	return strings.TrimSuffix(a.words[pick].Text, "'s"), true
}

// number returns the first free number in the text: "5000", "5,000", "$12.50", "5k". An
// amount of money ("$25") is taken only when money is set: a parameter counting points or
// nights is not filled with a price.
func (a *argSource) number(integer, money bool) (any, bool) {
	s := a.text
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || (i > 0 && isAlnum(s[i-1])) {
			continue
		}
		if !money && i > 0 && strings.ContainsAny(s[i-1:i], currencySigns) {
			continue
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ',' || s[j] == '.') {
			j++
		}
		end := j
		for end > i && (s[end-1] == ',' || s[end-1] == '.') {
			end--
		}
		mult := 1.0
		if j < len(s) && (s[j] == 'k' || s[j] == 'K') && (j+1 == len(s) || !isAlnum(s[j+1])) {
			mult, j = 1000, j+1
		}
		if j < len(s) && isAlnum(s[j]) || a.spanUsed(i, end) {
			i = j
			continue
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(s[i:end], ",", ""), 64)
		if err != nil {
			i = j
			continue
		}
		a.markSpan(i, j)
		f *= mult
		if integer {
			return int64(f), true
		}
		return f, true
	}
	return nil, false
}

// currencySigns are the one-byte signs written before an amount of money.
const currencySigns = "$"

// countsMoney reports whether a number parameter is an amount of money: its name says so
// ("max_price", "budget") or its description names a currency.
func countsMoney(p Param) bool {
	desc := strings.ToLower(p.Desc)
	return slices.ContainsFunc(strings.Fields(strings.ToLower(lang.Humanise(p.Name))), func(w string) bool { return moneyWords[w] || budgetWords[w] }) ||
		strings.ContainsAny(desc, currencySigns+"€£") || slices.ContainsFunc(strings.Fields(desc), func(w string) bool { return currencyNames[strings.Trim(w, ".,;:()")] })
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// place returns a place name: capitalised words after "in", "to", "at"..., or plain words
// there ("hotels in paris", "hotels in new york"), or else any capitalised name in the text.
func (a *argSource) place() (any, bool) {
	if v, ok := a.placeAfter(placePrepositions); ok {
		return v, true
	}
	if v, ok := a.placeAfter(forPlaces); ok {
		return v, true
	}
	for i := range a.words {
		if v, ok := a.nameAt(i, true); ok {
			return v, true
		}
	}
	return nil, false
}

// placeAfter returns the first place name after a word of leads, capitalised or not.
func (a *argSource) placeAfter(leads map[string]bool) (any, bool) {
	for i, w := range a.words {
		if !leads[w.Lower] || i+1 >= len(a.words) {
			continue
		}
		if v, ok := a.nameAt(i+1, true); ok {
			return v, true
		}
		if v, ok := a.nameAt(i+1, false); ok {
			return v, true
		}
	}
	return nil, false
}

// nameAt returns up to three words starting at word i that can name a place, capitalised
// ones only when capitals is set. Typed in lower case, a name of several words ("new york",
// "san francisco") is taken whole: its first word alone names another place or none.
func (a *argSource) nameAt(i int, capitals bool) (string, bool) {
	var parts []string
	for j := i; j < len(a.words) && j < i+3; j++ {
		w := a.words[j]
		if j > i && a.text[a.words[j-1].End:w.Start] != " " {
			break
		}
		if a.used[j] || capitals && !isCapitalised(w.Text) || w.Lower == "i" || lang.IsStopword(w.Lower) ||
			calendarWords[w.Lower] || a.isDomain(w.Lower) || strings.ContainsFunc(w.Text, unicode.IsDigit) {
			break
		}
		if capitals {
			parts = append(parts, w.Text)
			continue
		}
		if j > i && (timeNouns[w.Lower] || j+1 < len(a.words) && timeNouns[a.words[j+1].Lower]) {
			break // "in paris last night": the words after the name say when
		}
		parts = append(parts, lang.Capitalise(w.Text))
	}
	if len(parts) == 0 {
		return "", false
	}
	for j := i; j < i+len(parts); j++ {
		a.used[j] = true
	}
	return strings.Join(parts, " "), true
}

func isCapitalised(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// date returns an ISO date or a relative day ("tomorrow", "next friday").
func (a *argSource) date() (any, bool) {
	if m := isoDate.FindStringIndex(a.text); m != nil && !a.spanUsed(m[0], m[1]) {
		a.markSpan(m[0], m[1])
		return a.text[m[0]:m[1]], true
	}
	for i, w := range a.words {
		if a.used[i] || !calendarWords[w.Lower] {
			continue
		}
		a.used[i] = true
		if i > 0 && (a.words[i-1].Lower == "next" || a.words[i-1].Lower == "this") {
			a.used[i-1] = true
			return a.words[i-1].Lower + " " + w.Lower, true
		}
		return w.Lower, true
	}
	return nil, false
}

// content returns the request's free words, as written: what the user asks about rather
// than how. Words that describe the tools themselves ("offers" for a tool that searches
// offers) are left out, unless keepDomain is set or nothing else is left.
func (a *argSource) content(keepDomain bool) (any, bool) {
	var idx []int
	for i, w := range a.words {
		switch { // the words left out, each for why
		case i >= 1 && people[w.Lower] && possessives[a.words[i-1].Lower]:
			// "a laptop for my daughter", "my daughter needs a laptop": who, not what
		case lang.IsDigits(w.Lower) && lang.PriceLimitBefore(a.words, i):
			// "under 600": a limit on the price, not words of the product
		case i+2 < len(a.words) && a.words[i+1].Lower == "than" && lang.IsDigits(a.words[i+2].Lower) && lang.PriceLimitBefore(a.words, i+2):
			// the "less" of "less than 100"
		case a.used[i] || lang.IsStopword(w.Lower) || fillers[w.Lower] || noise[w.Lower] || shorthand[w.Lower]:
		case actionVerbs[w.Lower] && (i == 0 || verbLeads[a.words[i-1].Lower] || a.words[i-1].Lower == "please") ||
			i > 0 && (userLeads[a.words[i-1].Lower] || subjectPronouns[a.words[i-1].Lower]):
			// "can I cancel it?", "what would I pay": the act asked, not what to search for
		case frameWords[w.Lower] || priceWords[w.Lower]:
			// "what is left", "what does it cost": how the question asks, not about what
		case measureWords[w.Lower]:
			// "a new pair of running shoes" is a search for running shoes
		case (mostWords[w.Lower] || leastWords[w.Lower] || rankWords[w.Lower]) && !(i+1 < len(a.words) && actionVerbs[a.words[i+1].Lower]):
			// "the best deal on headphones": how to pick among what is found, not what to
			// find. Before a verb it is part of a name ("deals at best buy").
		case timeNouns[w.Lower] && i > 0 && timeDeterminers[a.words[i-1].Lower]:
			// "deals on tvs this week" is a search for tvs: the week says when
		case generalStates[w.Lower] && i > 0 && a.words[i-1].Lower == "in":
			// "is it in stock": whether the thing is held at all, not what it is
		case calendarWords[w.Lower]:
			// "any deals today", "hotels for friday": the day says when, not what
		case timeNouns[w.Lower] && i > 0 && rateLeads[a.words[i-1].Lower],
			rateLeads[w.Lower] && i+1 < len(a.words) && timeNouns[a.words[i+1].Lower]:
			// "how much is it a night", "per week": the unit a price is asked per
		case !keepDomain && a.isDomain(w.Lower):
		default:
			idx = append(idx, i)
		}
	}
	idx = a.withoutSeller(idx)
	if len(idx) == 0 {
		return nil, false
	}
	parts := make([]string, len(idx))
	for k, i := range idx {
		a.used[i] = true
		parts[k] = strings.TrimSuffix(a.words[i].Text, "'s")
	}
	return strings.Join(parts, " "), true
}

// maxSellerWords is how many words a seller's name at the end of a request may have.
const maxSellerWords = 3

// withoutSeller drops the words of idx after a word of sellerLeads that ends the request with
// a name (at most maxSellerWords words), when words before it are kept or point back: "how
// much are the bose speakers at best buy" asks for the speakers, at a seller the tools may
// not know by name; "deals at best buy" names nothing else, so the seller is what is searched
// for; "stuck at the office all week, any deals on headphones" names no seller.
func (a *argSource) withoutSeller(idx []int) []int {
	pointed := false // "is it in stock at best buy": the thing is the one pointed back at
	for k, i := range idx {
		from := 0
		if k > 0 {
			from = idx[k-1] + 1
		}
		for j := from; j < i; j++ {
			pointed = pointed || backPointers[a.words[j].Lower]
			if sellerLeads[a.words[j].Lower] && (k > 0 || pointed) && len(a.words)-1-j <= maxSellerWords {
				return idx[:k]
			}
		}
	}
	return idx
}

// isDomain reports whether every term of a word is tool vocabulary: the word says how, not what.
func (a *argSource) isDomain(lower string) bool {
	ts := lang.AppendTerms(nil, lower)
	return len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool {
		return !a.vocab.tools[t] && (a.keepUnits || !a.vocab.units[t])
	})
}
