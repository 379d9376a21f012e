package offline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// renderer turns decoded JSON data into prose. It knows no schema: keys are humanised,
// lists are shortened, numbers and dates are formatted.
type renderer struct {
	listLimit int
}

// maxFacts bounds how many scalar facts one object contributes.
const maxFacts = 8

func (r renderer) data(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []any:
		return r.list("", v)
	case []field:
		return r.object(v)
	}
	return capitalise(scalar("", v)) + "."
}

// object renders scalar members as one sentence ("The points balance is 12,400 and the
// tier is Gold.") and lists of objects as short bulleted lists after it.
func (r renderer) object(obj []field) string {
	if len(obj) == 1 {
		if arr, ok := obj[0].val.([]any); ok {
			return r.list(obj[0].key, arr)
		}
	}
	var facts, blocks []string
	r.collect("", obj, 0, &facts, &blocks)
	var out []string
	if len(facts) > 0 {
		if len(facts) > maxFacts {
			facts = facts[:maxFacts]
		}
		out = append(out, capitalise(joinAnd(facts))+".")
	}
	out = append(out, blocks...)
	return strings.Join(out, "\n")
}

func (r renderer) collect(prefix string, obj []field, depth int, facts, blocks *[]string) {
	for _, f := range obj {
		key := strings.TrimSpace(prefix + " " + humanise(f.key))
		if key == "" {
			key = "value" // keys made only of separators
		}
		switch v := f.val.(type) {
		case nil:
		case string:
			if s := tidyString(v); s != "" {
				*facts = append(*facts, fact(key, s))
			}
		case bool:
			*facts = append(*facts, flagName(key)+": "+scalar(key, v))
		case json.Number:
			*facts = append(*facts, fact(key, scalar(key, v)))
		case []any:
			switch {
			case len(v) == 0:
				*facts = append(*facts, "there are no "+key)
			case allScalars(v):
				verb := " are "
				if len(v) == 1 {
					verb = " is "
				}
				*facts = append(*facts, "the "+key+verb+r.scalarList(key, v))
			default:
				*blocks = append(*blocks, r.list(key, v))
			}
		case []field:
			if depth < 1 {
				r.collect(key, v, depth+1, facts, blocks)
			}
		}
	}
}

// list renders an array: scalars inline, objects as up to listLimit bullets.
func (r renderer) list(key string, arr []any) string {
	noun := humanise(key)
	if noun == "" {
		noun = "results"
	}
	if len(arr) == 0 {
		return "I didn't find any " + noun + "."
	}
	if allScalars(arr) {
		return capitalise(noun) + ": " + r.scalarList(key, arr) + "."
	}
	head := fmt.Sprintf("I found %d %s:", len(arr), noun)
	if len(arr) == 1 {
		head = "I found 1 " + singular(noun) + ":"
	}
	lines := []string{head}
	for i, item := range arr {
		if i == r.listLimit {
			lines = append(lines, fmt.Sprintf("- and %d more", len(arr)-i))
			break
		}
		if s := r.item(item); s != "" {
			lines = append(lines, "- "+s)
		}
	}
	return strings.Join(lines, "\n")
}

func (r renderer) scalarList(key string, arr []any) string {
	var items []string
	for i, v := range arr {
		if i == r.listLimit {
			items = append(items, fmt.Sprintf("%d more", len(arr)-i))
			break
		}
		if s := scalar(key, v); s != "" {
			items = append(items, s)
		}
	}
	return joinAnd(items)
}

// itemFields bounds the details shown beside a list item's head.
const itemFields = 3

// item renders one list element: its name-like field, then a few other scalar fields.
func (r renderer) item(v any) string {
	obj, ok := v.([]field)
	if !ok {
		if arr, ok := v.([]any); ok {
			return r.scalarList("", arr)
		}
		return scalar("", v)
	}
	head := headField(obj)
	var details []string
	for i, f := range obj {
		if i == head || len(details) == itemFields || strings.EqualFold(f.key, "id") {
			continue // a bare id names the item for machines, not for people
		}
		switch f.val.(type) {
		case string, json.Number, bool:
			if s := scalar(f.key, f.val); s != "" {
				details = append(details, humanise(f.key)+": "+s)
			}
		}
	}
	switch {
	case head < 0:
		return strings.Join(details, ", ")
	case len(details) == 0:
		return scalar(obj[head].key, obj[head].val)
	}
	return scalar(obj[head].key, obj[head].val) + " (" + strings.Join(details, ", ") + ")"
}

// headField picks the member that names a list item: a name- or title-like key, or else
// the first non-empty string. -1 when there is none.
func headField(obj []field) int {
	for i, f := range obj {
		k := strings.ToLower(f.key)
		if s, ok := f.val.(string); ok && s != "" &&
			(k == "name" || k == "title" || k == "label" || k == "headline" ||
				strings.HasSuffix(k, "_name") || strings.HasSuffix(k, "_title") || strings.HasSuffix(k, "Name")) {
			return i
		}
	}
	for i, f := range obj {
		if s, ok := f.val.(string); ok && s != "" {
			return i
		}
	}
	return -1
}

func allScalars(arr []any) bool {
	for _, v := range arr {
		switch v.(type) {
		case []any, []field:
			return false
		}
	}
	return true
}

// fact states one scalar member: "the tier is Gold", "the pending points are 250",
// "expires on Mar 1, 2026" (a key ending in a preposition reads on into its value).
func fact(key, value string) string {
	words := strings.Fields(key)
	if len(words) == 0 {
		return value
	}
	last := words[len(words)-1]
	switch {
	case prepositions[last]:
		return key + " " + value
	case len(last) > 3 && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us"):
		return "the " + key + " are " + value
	}
	return "the " + key + " is " + value
}

var identifierWords = setOf("year", "code", "number", "id", "no", "zip", "postcode", "pin")

var prepositions = setOf("on", "at", "until", "by", "in", "from", "to", "since", "before", "after", "for")

// scalar formats a scalar value; key (humanised or raw, may be "") tells numbers that are
// codes or years apart from quantities.
func scalar(key string, v any) string {
	switch v := v.(type) {
	case string:
		return tidyString(v)
	case json.Number:
		for _, w := range strings.Fields(humanise(key)) {
			if identifierWords[strings.ToLower(w)] {
				return v.String() // 2026 as a year, 40213 as an order number
			}
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

// formatNumber groups thousands and keeps at most two decimals.
func formatNumber(n json.Number) string {
	if i, err := n.Int64(); err == nil {
		return groupThousands(strconv.FormatInt(i, 10))
	}
	f, err := n.Float64()
	if err != nil {
		return n.String()
	}
	s := strconv.FormatFloat(f, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	whole, frac, _ := strings.Cut(s, ".")
	if frac != "" {
		return groupThousands(whole) + "." + frac
	}
	return groupThousands(whole)
}

func groupThousands(s string) string {
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

// tidyString formats timestamps and dates for people and turns snake_case values
// ("in_transit") into words.
func tidyString(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Format("Jan 2, 2006 at 15:04")
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format("Jan 2, 2006")
	}
	if isSnakeWord(s) {
		return strings.ReplaceAll(s, "_", " ")
	}
	return s
}

func isSnakeWord(s string) bool {
	if !strings.Contains(s, "_") {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLower(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// humanise turns an identifier ("points_balance", "pointsBalance", "points.balance")
// into lower-case words.
func humanise(id string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range id {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		switch w {
		case "id", "url", "uri":
			words[i] = strings.ToUpper(w)
		}
	}
	return strings.Join(words, " ")
}

// flagName drops an "is"/"has" prefix from a boolean's key: "is refundable" -> "refundable".
func flagName(key string) string {
	for _, p := range []string{"is ", "has ", "can "} {
		if rest, ok := strings.CutPrefix(key, p); ok {
			return rest
		}
	}
	return key
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

func capitalise(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
