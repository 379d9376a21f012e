package offline

import (
	"encoding/json"
	"slices"
	"strings"
)

// param is one property of a tool's JSON-schema parameters.
type param struct {
	name     string
	typ      string // "string", "integer", "number", "boolean", "array", "object"; "" when unset
	desc     string
	enum     []string
	required bool
}

// paramsOf reads the properties of a JSON schema. Parameters is usually a map[string]any;
// anything else that marshals to JSON is accepted too. The result is sorted by name.
func paramsOf(schema any) []param {
	m, ok := schema.(map[string]any)
	if !ok && schema != nil {
		raw, err := json.Marshal(schema)
		if err != nil || json.Unmarshal(raw, &m) != nil {
			return nil
		}
	}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	switch r := m["required"].(type) {
	case []any:
		for _, v := range r {
			if s, ok := v.(string); ok {
				required[s] = true
			}
		}
	case []string:
		for _, s := range r {
			required[s] = true
		}
	}
	var out []param
	for name, v := range props {
		p := param{name: name, required: required[name]}
		if spec, ok := v.(map[string]any); ok {
			p.typ, _ = spec["type"].(string)
			p.desc, _ = spec["description"].(string)
			switch e := spec["enum"].(type) {
			case []any:
				for _, x := range e {
					if s, ok := x.(string); ok {
						p.enum = append(p.enum, s)
					}
				}
			case []string:
				p.enum = e
			}
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b param) int { return strings.Compare(a.name, b.name) })
	return out
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

func kindOf(p param) paramKind {
	name := strings.ToLower(p.name)
	switch {
	case len(p.enum) > 0:
		return kindEnum
	case p.typ == "integer" || p.typ == "number":
		return kindNumber
	case p.typ == "boolean":
		return kindBool
	case p.typ == "array" || p.typ == "object":
		return kindOther
	case strings.Contains(name, "flight"):
		return kindFlight
	case isIDName(p.name):
		return kindID
	case containsAny(name, "city", "location", "destination", "place", "town", "country", "region", "origin", "where", "near"):
		return kindPlace
	case containsAny(name, "date", "day", "when"):
		return kindDate
	}
	return kindText
}

// isIDName reports whether a parameter holds an identifier: "id", "order_id", "orderId",
// "confirmation_number", "booking_ref".
func isIDName(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case lower == "id", strings.HasSuffix(lower, "_id"), strings.HasSuffix(lower, "-id"):
		return true
	case len(name) > 2 && strings.HasSuffix(name, "Id"), strings.HasSuffix(name, "ID"):
		return true
	}
	return containsAny(lower, "number", "reference", "_ref", "code", "confirmation")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
