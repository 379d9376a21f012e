package answer

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// Param is one property of a tool's JSON-schema parameters.
type Param struct {
	Name     string
	Type     string // "string", "integer", "number", "boolean", "array", "object"; "" when unset
	Desc     string
	enum     []string
	required bool
}

// ParamsOf reads the properties of a JSON schema. Parameters is usually a map[string]any;
// anything else that marshals to JSON is accepted too. The result is sorted by name.
func ParamsOf(schema any) []Param {
	m, ok := schema.(map[string]any)
	if !ok && schema != nil {
		raw, err := json.Marshal(schema)
		if err != nil || json.Unmarshal(raw, &m) != nil {
			return nil
		}
	}
	props, _ := m["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	// Read on every call of a sub-agent, several times: one allocation for the list, and the
	// few required names searched rather than put in a map.
	required := stringsOf(m["required"])
	out := make([]Param, 0, len(props))
	for name, v := range props {
		p := Param{Name: name, required: slices.Contains(required, name)}
		if spec, ok := v.(map[string]any); ok {
			p.Type, _ = spec["type"].(string)
			p.Desc, _ = spec["description"].(string)
			p.enum = stringsOf(spec["enum"])
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// stringsOf returns the strings of a schema's list, decoded from JSON ([]any) or built in Go
// ([]string).
func stringsOf(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// NeedsArguments reports whether a tool's parameters require any argument.
func NeedsArguments(schema any) bool {
	return slices.ContainsFunc(ParamsOf(schema), func(p Param) bool { return p.required })
}

// listedOptions returns the values a text parameter's description lists, lower-cased, when
// it opens with a list of at least three short ones ("Vacation, sick leave or floating
// holiday; omit for all"): the parameter then takes one of them or nothing, never other words
// of the request. Nil otherwise.
func (p Param) listedOptions() []string {
	head, _, _ := strings.Cut(p.Desc, ";")
	head = strings.TrimSuffix(strings.TrimSpace(head), ".")
	items, last, ok := strings.Cut(head, " or ")
	if !ok || strings.Contains(last, " or ") {
		return nil
	}
	opts := append(strings.Split(items, ","), last)
	for i, o := range opts {
		opts[i] = strings.ToLower(strings.TrimSpace(o))
		if n := len(strings.Fields(opts[i])); n == 0 || n > maxOptionWords {
			return nil
		}
	}
	if len(opts) < 3 {
		return nil
	}
	return opts
}

// examples returns the one-word values a parameter's description gives as examples, lower-
// cased: "clubhouse" and "pool" of "Only bookings of this amenity, e.g. clubhouse or pool; omit
// for all". Nil when it gives none.
func (p Param) examples() []string {
	_, after, _, ok := exampleValues(p.Desc)
	if !ok {
		return nil
	}
	var out []string
	for _, item := range strings.Split(strings.ReplaceAll(after, " or ", ","), ",") {
		if ws := lang.ScanWords(item); len(ws) == 1 {
			out = append(out, ws[0].Lower)
		}
	}
	return out
}

// exampleValues splits a parameter's description around the values it gives as examples,
// from "e.g." or "such as" to the next ";" or the end.
func exampleValues(desc string) (before, values, after string, ok bool) {
	i := strings.Index(desc, "e.g.")
	lead := len("e.g.")
	if i < 0 {
		i, lead = strings.Index(desc, "such as"), len("such as")
	}
	if i < 0 {
		return desc, "", "", false
	}
	values, after, _ = strings.Cut(desc[i+lead:], ";")
	return desc[:i], values, after, true
}

// WithoutExampleValues returns a parameter's description without the values it gives as
// examples ("what the user is shopping for, e.g. running shoes" keeps "what the user is
// shopping for, "): they are what users may ask for, not words of the tool's.
func WithoutExampleValues(desc string) string {
	before, _, after, ok := exampleValues(desc)
	if !ok {
		return desc
	}
	return before + after
}

// paramKind says how a value for a parameter is looked for in the request.
type paramKind int

// Kinds in extraction order: the most specific patterns take their words first.
const (
	kindEnum paramKind = iota
	kindFlight
	kindID
	kindNumber
	kindPlace
	kindDate
	kindBool
	kindText
	kindOther // arrays and objects: only filled when required
)

// kindOf tells a parameter's kind by its type, enum and name ("flight", "order_id", "city").
func kindOf(p Param) paramKind {
	name := strings.ToLower(p.Name)
	switch {
	case len(p.enum) > 0:
		return kindEnum
	case p.Type == "integer" || p.Type == "number":
		return kindNumber
	case p.Type == "boolean":
		return kindBool
	case p.Type == "array" || p.Type == "object":
		return kindOther
	case strings.Contains(name, "flight"):
		return kindFlight
	case isIDName(p.Name):
		return kindID
	case containsAny(name, "city", "location", "destination", "place", "town", "country", "region", "origin", "where", "near"):
		return kindPlace
	case containsAny(name, "date", "day", "when"):
		return kindDate
	}
	return kindText
}

// isIDName reports whether a parameter holds an identifier: "id", "order_id", "orderId",
// "confirmation_number", "booking_ref", "citation_no".
func isIDName(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case lower == "id", strings.HasSuffix(lower, "_id"), strings.HasSuffix(lower, "-id"), strings.HasSuffix(lower, "_no"):
		return true
	case len(name) > 2 && strings.HasSuffix(name, "Id"), strings.HasSuffix(name, "ID"), strings.HasSuffix(name, "No"):
		return true
	}
	return containsAny(lower, "number", "reference", "_ref", "code", "confirmation")
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}
