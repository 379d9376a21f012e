package definitions

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

// AnswerTemplate is a tool's compiled `answer`: a Go text/template whose dot is the tool's
// payload as JSON values (objects are map[string]any, lists []any, numbers float64). Besides
// the text/template builtins it may call:
//
//	money X [CUR]    an amount in the user's locale: "$1,234.50", "1.234,50 €". X is a number,
//	                 a numeric string, or an object with amount and currency; CUR (an ISO code)
//	                 is the currency when X carries none, else USD.
//	number X         a number with the locale's digit grouping: "12,450".
//	date X           an ISO date or timestamp in the locale's style: "Dec 18, 2026", "18 Dec 2026";
//	                 a timestamp's time of day, unless midnight, and its zone when it has one.
//	list XS [FIELD]  the items (or each item's FIELD) as words: "a, b and c".
//	matching XS      the records of XS whose text shares a word with the user's question and
//	                 not with every record ("the socks", "Rex"), a word only in parentheses
//	                 counting half ("(wrong size)"); empty when none does. A
//	                 follow-up quoting its earlier request ([EarlierMarker]) is read by its
//	                 own words when they name a record of the payload.
//	about XS         matching XS, or all of XS when the question names none of them.
//	asks WORD...     whether the question uses one of the words (singular or plural).
//	plural N ONE MANY  "1 order", "3 orders".
//	first N XS       the first N items.
//	sortby FIELD XS  the records by FIELD, smallest first: numbers and money by value, text
//	                 (ISO dates too) in order; records without it last.
//	cap              the upper bound the question puts on an amount ("under 300", "below
//	                 $250", "up to 1.5k"), or nil when it puts none.
//	atmost FIELD XS  the records of XS whose FIELD (a number or money) is at most cap; all of
//	                 XS when the question puts no bound.
//	words X          a machine value as words: "in_transit" reads "in transit".
//	or X Y           the builtin: Y when X is empty.
//	question         the user's question.
//
// A template that refers to a key its payload lacks fails: validation runs each template over
// the agent's fixtures, so a misspelt key is found before a user meets it.
type AnswerTemplate struct {
	tmpl *template.Template // as parsed; only ever cloned
	src  Source
	// bound are clones of tmpl whose helpers read the render they are lent to (*boundAnswer):
	// cloning the template and binding a fresh set of helpers on every render cost a turn
	// more than running it.
	bound sync.Pool
}

// boundAnswer is a clone of an answer template, lent to one Render at a time: its helpers
// answer for render, set for the length of that call.
type boundAnswer struct {
	tmpl   *template.Template
	render *answerRender
}

// EarlierMarker is how a request that follows up an earlier one may quote it, at its end:
// "can I cancel it? (earlier: any deals on running shoes?)". The offline model writes requests
// so, and answer templates read a request's own words before what it quotes.
const EarlierMarker = " (earlier: "

// AnswerInput is what an answer is rendered for: the user's question and locale ("en-US",
// "de-DE"; empty means en-US).
type AnswerInput struct {
	Question string
	Locale   string
}

// AnswerError is a template that does not parse or does not run, located at the line of the
// template in its definition file.
type AnswerError struct {
	Source  Source
	Message string
}

func (e *AnswerError) Error() string { return e.Source.String() + ": " + e.Message }

// templateErr matches text/template's "template: NAME:LINE[:COL]: message".
var templateErr = regexp.MustCompile(`^template: [^:]*:(\d+)(?::\d+)?: (.*)$`)

// locate turns a text/template error into an [AnswerError] at the template's line in its file.
func (t Tool) locate(err error) error {
	src := t.AnswerSource
	msg := err.Error()
	if m := templateErr.FindStringSubmatch(msg); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > 0 && src.Line > 0 {
			src.Line += n - 1
		}
		msg = m[2]
	}
	return &AnswerError{Source: src, Message: msg}
}

// AnswerTemplate compiles the tool's answer. It returns nil and no error when the tool has
// none, and an [*AnswerError] when the template does not parse.
func (t Tool) AnswerTemplate() (*AnswerTemplate, error) {
	if strings.TrimSpace(t.Answer) == "" {
		return nil, nil
	}
	tmpl, err := template.New(t.Name).Option("missingkey=error").Funcs(answerFuncs(&boundAnswer{})).Parse(t.Answer)
	if err != nil {
		return nil, t.locate(err)
	}
	return &AnswerTemplate{tmpl: tmpl, src: t.AnswerSource}, nil
}

// Render states payload (JSON bytes, or any value that encodes to JSON) through the template
// for in. Surrounding space is trimmed and runs of blank lines are folded, so templates may
// be laid out freely. The error is an [*AnswerError].
func (a *AnswerTemplate) Render(payload any, in AnswerInput) (string, error) {
	data, err := jsonValue(payload)
	if err != nil {
		return "", &AnswerError{Source: a.src, Message: "payload is not JSON: " + err.Error()}
	}
	bound, err := a.lend()
	if err != nil {
		return "", &AnswerError{Source: a.src, Message: err.Error()}
	}
	bound.render = newAnswerRender(in, data)
	var b strings.Builder
	err = bound.tmpl.Execute(&b, data)
	bound.render = nil
	a.bound.Put(bound)
	if err != nil {
		return "", Tool{AnswerSource: a.src}.locate(err)
	}
	return tidy(b.String()), nil
}

// lend takes a bound clone of the template from the pool, or makes one.
func (a *AnswerTemplate) lend() (*boundAnswer, error) {
	if b, ok := a.bound.Get().(*boundAnswer); ok {
		return b, nil
	}
	tmpl, err := a.tmpl.Clone()
	if err != nil {
		return nil, err
	}
	b := &boundAnswer{}
	b.tmpl = tmpl.Funcs(answerFuncs(b))
	return b, nil
}

// jsonValue decodes payload into plain JSON values.
func jsonValue(payload any) (any, error) {
	var raw []byte
	switch p := payload.(type) {
	case json.RawMessage:
		raw = p
	case []byte:
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

var blankLines = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)

// tidy trims trailing space from lines and folds blank-line runs that template actions leave.
// Once lines are trimmed, a run is three line breaks in a row: most answers have none, and
// skip the pattern.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	s = strings.Join(lines, "\n")
	if strings.Contains(s, "\n\n\n") {
		s = blankLines.ReplaceAllString(s, "\n\n")
	}
	return strings.TrimSpace(s)
}

// answerRender is what the helpers read during one render: the question, its locale and the
// payload, and what the question's words are taken to name, worked out when first asked.
type answerRender struct {
	in   AnswerInput
	data any
	loc  locale

	read  bool            // q, heard and used are set
	q     map[string]bool // the words that may name a record
	heard string          // the part of the question its helpers read
	used  map[string]bool // every word heard
}

func newAnswerRender(in AnswerInput, data any) *answerRender {
	return &answerRender{in: in, data: data, loc: parseLocale(in.Locale)}
}

// words returns the question's words that may name a record, and the part of the question
// heard. A follow-up that quotes its earlier request ("and the fitbit? (earlier: did i get
// my refund for the keyboard)") is about what its own words name, when they name a record of
// the payload: decided once, so that a template calling matching record by record does not
// pick the earlier thing too.
func (r *answerRender) words() (q map[string]bool, heard string) {
	if !r.read {
		r.read = true
		r.q, r.heard = questionWords(r.in.Question), r.in.Question
		if own, _, quoted := strings.Cut(r.in.Question, EarlierMarker); quoted {
			if ow := questionWords(own); namesRecord(r.data, ow) {
				r.q, r.heard = ow, own
			}
		}
		// asks reads every word heard: "next" and "last" never name a record, so they are
		// not among q, yet a template may well ask whether they were said.
		r.used = map[string]bool{}
		for w := range eachTextWord(r.heard) {
			r.used[w] = true
		}
	}
	return r.q, r.heard
}

// answerFuncs are the helpers of b's template, each reading the render b is lent to.
func answerFuncs(b *boundAnswer) template.FuncMap {
	matching := func(v any) []any {
		q, _ := b.render.words()
		return matchingRecords(items(v), q)
	}
	heard := func() string {
		_, h := b.render.words()
		return h
	}
	return template.FuncMap{
		"money":    func(v any, cur ...string) string { return b.render.loc.money(v, cur...) },
		"number":   func(v any) string { return b.render.loc.number(v) },
		"date":     func(v any) string { return b.render.loc.date(v) },
		"list":     func(v any, field ...string) string { return b.render.loc.list(v, field...) },
		"matching": matching,
		"about": func(v any) []any {
			if m := matching(v); len(m) > 0 {
				return m
			}
			return items(v)
		},
		"asks": func(words ...string) bool {
			b.render.words()
			for _, w := range words {
				for t := range eachTextWord(w) {
					if b.render.used[t] {
						return true
					}
				}
			}
			return false
		},
		"plural": func(n any, one, many string) string {
			f, _ := toFloat(n)
			if f == 1 {
				return b.render.loc.number(f) + " " + one
			}
			return b.render.loc.number(f) + " " + many
		},
		"first": func(n int, v any) []any {
			xs := items(v)
			return xs[:min(max(n, 0), len(xs))]
		},
		"last": func(n int, v any) []any {
			xs := items(v)
			return xs[len(xs)-min(max(n, 0), len(xs)):]
		},
		"where":    where,
		"question": func() string { return b.render.in.Question },
		"codes":    func() []string { return references(heard()) },
		"words":    words,
		"sortby":   sortBy,
		"cap": func() any {
			if f, ok := questionCap(heard()); ok {
				return f
			}
			return nil
		},
		"atmost": func(field string, v any) []any {
			if f, ok := questionCap(heard()); ok {
				return atMost(field, f, v)
			}
			return items(v)
		},
	}
}

// items is v as a list: a list itself, nothing for nil, or a one-item list.
func items(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	default:
		return []any{x}
	}
}

// errNotNumber is returned by toFloat for a value that is not a number.
var errNotNumber = errors.New("not a number")

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case json.Number:
		return x.Float64()
	case string:
		return strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(x), ",", ""), 64)
	}
	return 0, fmt.Errorf("%w: %v", errNotNumber, v)
}
