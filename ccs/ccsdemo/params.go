package ccsdemo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// errInvalidParams is answered as 400 invalid_params: the caller sent a request this enricher
// cannot serve (a required parameter missing, or of the wrong type).
var errInvalidParams = errors.New("invalid params")

// stringParam returns params[name] trimmed. A missing or blank required parameter, or a
// non-string value, is errInvalidParams.
func stringParam(params map[string]any, name string, required bool) (string, error) {
	v, ok := params[name]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("%w: %s is required", errInvalidParams, name)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %s must be a string", errInvalidParams, name)
	}
	s = strings.TrimSpace(s)
	if s == "" && required {
		return "", fmt.Errorf("%w: %s is required", errInvalidParams, name)
	}
	return s, nil
}

// intParam returns params[name] as a non-negative integer, accepting a JSON number or a numeric
// string (LLMs send both); ok is false when the parameter is absent.
func intParam(params map[string]any, name string) (n int, ok bool, err error) {
	v, present := params[name]
	if !present || v == nil {
		return 0, false, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case string:
		p, perr := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if perr != nil {
			return 0, false, fmt.Errorf("%w: %s must be a number", errInvalidParams, name)
		}
		f = p
	default:
		return 0, false, fmt.Errorf("%w: %s must be a number", errInvalidParams, name)
	}
	if f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return 0, false, fmt.Errorf("%w: %s must be a non-negative integer", errInvalidParams, name)
	}
	return int(f), true, nil
}

// stopWords are dropped from search queries: they say nothing about what the user wants.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "any": true, "some": true, "on": true, "for": true, "of": true,
	"me": true, "my": true, "i": true, "to": true, "in": true, "and": true, "or": true, "with": true,
	"deal": true, "deals": true, "offer": true, "offers": true, "sale": true, "sales": true,
	"show": true, "find": true, "get": true, "want": true, "need": true, "buy": true, "new": true,
	"good": true, "best": true, "cheap": true, "price": true, "prices": true, "discount": true,
}

// words splits s into lower-case search terms without stop words, folding plurals so that
// "shoes" finds "shoe" and "watches" finds "watch".
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem folds an English plural to its singular: "es" after a hissing sound (watches, boxes,
// glasses), "ies" to "y" (batteries), otherwise a final "s" but not "ss" (dress).
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, suffix := range []string{"ches", "shes", "sses", "xes", "zes"} {
		if strings.HasSuffix(w, suffix) {
			return w[:len(w)-2]
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// score counts how many query terms occur among the terms of text. A name written as one word
// or two ("hydroflask" and "Hydro Flask", "air pods" and "AirPods") is the same name: two
// adjacent terms of either side, joined, match a term of the other.
func score(query []string, text string) int {
	terms := words(text)
	have := make(map[string]bool)
	for i, w := range terms {
		have[w] = true
		if i > 0 {
			have[terms[i-1]+w] = true
		}
	}
	n := 0
	for i, q := range query {
		switch {
		case have[q]:
			n++
		case i > 0 && !have[query[i-1]] && have[query[i-1]+q]:
			n += 2 // both halves of the name
		}
	}
	return n
}

// normalize folds a name for loose equality: lower case, letters and digits only.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
