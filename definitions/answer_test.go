package definitions_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

// toolHead is a sub_agent with one tool whose keys continue from line 9.
const toolHead = `kind: sub_agent
id: support
description: Answers order and refund questions for the user.
status_events: {}
tools:
  - name: get_returns
    enricher: returns.list
    domain_type: return_list
    description: The user's returns and their refunds.
`

func TestAnswerTemplateProblems(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // "line: message fragment"
	}{
		{name: "valid block", yaml: toolHead + "    answer: |\n      {{range .returns}}{{.item}}{{end}}\n"},
		{name: "error on the template's second line", yaml: toolHead + "    answer: |\n      Returns:\n      {{range .returns}}{{price .item}}{{end}}\n",
			want: []string{`12: tool get_returns: answer: function "price" not defined`}},
		{name: "unknown function", yaml: toolHead + "    answer: \"{{price .x}}\"\n",
			want: []string{`10: tool get_returns: answer: function "price" not defined`}},
		{name: "empty example", yaml: toolHead + "    examples: [\"where is my refund\", \"  \"]\n",
			want: []string{`10: tool get_returns: examples: entry 2 is empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := definitions.Parse("support.yaml", []byte(tt.yaml))
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Parse() problems = %q, want %q", got, tt.want)
			}
			for i, w := range tt.want {
				line, frag, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], "support.yaml:"+line+": ") || !strings.Contains(got[i], frag) {
					t.Errorf("Parse() problem %d = %q, want line %s and %q", i, got[i], line, frag)
				}
			}
		})
	}
}

func TestAnswerRender(t *testing.T) {
	payload := []byte(`{"member": "Alice", "tier": "Silver", "points": 2550, "balance": {"amount": 1234.5, "currency": "EUR"},
		"expires": "2026-12-18", "offers": [{"name": "A", "price": {"amount": 30, "currency": "USD"}}, {"name": "X"},
		{"name": "B", "price": {"amount": 12.5, "currency": "USD"}}], "returns": [
		{"item": "Wool hiking socks", "refund": 18, "status": "refund issued"},
		{"item": "Trail running shoes", "refund": 120, "status": "in transit"}],
		"orders": [{"id": "A-10177", "item": "Strap"}, {"id": "A-10198", "item": "Socks"}],
		"exchanges": [{"item": "Trail runners (wrong size)"}, {"item": "Rain jacket"}]}`)
	tests := []struct {
		name, tmpl, question, locale, want string
	}{
		{name: "money and number en-US", tmpl: `{{.tier}} with {{number .points}} points; {{money .balance}}; {{money .points}}`,
			want: "Silver with 2,550 points; €1,234.50; $2,550.00"},
		{name: "money and date de-DE", tmpl: `{{money .balance}} bis {{date .expires}}`, locale: "de-DE",
			want: "1.234,50 € bis 18.12.2026"},
		{name: "date en-GB", tmpl: `{{date .expires}}`, locale: "en_GB", want: "18 Dec 2026"},
		{name: "date en-US", tmpl: `{{date .expires}}`, want: "Dec 18, 2026"},
		{name: "timestamp keeps its time", tmpl: `{{date "2026-11-28T19:30"}}`, locale: "en-GB", want: "28 Nov 2026 19:30"},
		{name: "matching picks the socks", question: "did i get my refund for the socks?",
			tmpl: `{{range matching .returns}}{{.item}}: {{money .refund}}{{end}}`, want: "Wool hiking socks: $18.00"},
		{name: "matching reads a follow-up's own words first", question: "and the shoes? (earlier: did i get my refund for the socks)",
			tmpl: `{{list (matching .returns) "item"}}`, want: "Trail running shoes"},
		{name: "matching reads quoted words when the own ones name nothing", question: "is it back yet? (earlier: did i get my refund for the socks)",
			tmpl: `{{list (matching .returns) "item"}}`, want: "Wool hiking socks"},
		{name: "a follow-up's own words hold for matching record by record", question: "and the shoes? (earlier: did i get my refund for the socks)",
			tmpl: `{{range .returns}}{{if matching .item}}{{.item}};{{end}}{{end}}`, want: "Trail running shoes;"},
		{name: "a parenthesis of the user's own is no quoted request", question: "my refund for the socks (and the shoes)?",
			tmpl: `{{list (matching .returns) "item"}}`, want: "Wool hiking socks and Trail running shoes"},
		{name: "a word a record holds only in parentheses names no record alone", question: "can i swap my socks for a bigger size",
			tmpl: `{{with matching .exchanges}}{{list . "item"}}{{else}}none{{end}}`, want: "none"},
		{name: "two words in parentheses name it", question: "the pair in the wrong size",
			tmpl: `{{with matching .exchanges}}{{list . "item"}}{{else}}none{{end}}`, want: "Trail runners (wrong size)"},
		{name: "a word outside the parentheses names it", question: "the trail runners",
			tmpl: `{{with matching .exchanges}}{{list . "item"}}{{else}}none{{end}}`, want: "Trail runners (wrong size)"},
		{name: "matching is empty when nothing is named", question: "where is my refund?",
			tmpl: `{{with matching .returns}}some{{else}}none{{end}}`, want: "none"},
		{name: "a reference typed without its dash names its record", question: "where's a10177",
			tmpl: `{{range .orders}}{{if matching .id}}{{.item}}{{end}}{{end}}`, want: "Strap"},
		{name: "codes are the references the question types", question: "is order A-99999 here, or b55902? (size 10, 3 pairs)",
			tmpl: `{{range codes}}[{{.}}]{{end}}`, want: "[A-99999][b55902]"},
		{name: "codes is empty when the question types none", question: "where is my order UA 837?",
			tmpl: `{{with codes}}some{{else}}none{{end}}`, want: "none"},
		{name: "atmost keeps the records under the question's bound", question: "anything under $20?",
			tmpl: `{{range atmost "price" .offers}}{{.name}};{{end}} {{cap}}`, want: "B; 20"},
		{name: "atmost reads a bound in thousands", question: "refunds up to 0.1k",
			tmpl: `{{list (atmost "refund" .returns) "item"}}`, want: "Wool hiking socks"},
		{name: "atmost is every record without a bound", question: "any offers?",
			tmpl: `{{len (atmost "price" .offers)}} {{with cap}}capped{{else}}uncapped{{end}}`, want: "3 uncapped"},
		{name: "about falls back to all", question: "where is my refund?",
			tmpl: `{{list (about .returns) "item"}}`, want: "Wool hiking socks and Trail running shoes"},
		{name: "asks", question: "When do my points expire?", tmpl: `{{if asks "expire" "expiry"}}{{date .expires}}{{end}}`,
			want: "Dec 18, 2026"},
		{name: "asks hears words that never name a record", question: "When is my next trip?",
			tmpl: `{{if asks "next"}}next{{end}}{{if asks "last"}}last{{end}}`, want: "next"},
		{name: "timestamp with an offset says its zone", tmpl: `{{date "2026-12-09T18:20:00+09:00"}}, {{date "2026-12-09T06:05:00Z"}}, {{date "2026-12-09T06:05:00-03:30"}}`,
			want: "Dec 9, 2026 18:20 UTC+9, Dec 9, 2026 06:05 UTC, Dec 9, 2026 06:05 UTC-3:30"},
		{name: "words", tmpl: `{{words "in_transit"}}, {{words "ON-TIME"}}, {{words "Out for delivery"}}, {{words 3}}`,
			want: "in transit, on time, Out for delivery, 3"},
		{name: "sortby numbers, money and text", tmpl: `{{list (sortby "refund" .returns) "item"}}; {{list (sortby "status" .returns) "item"}}; ` +
			`{{with first 1 (sortby "price" .offers)}}{{range .}}{{.name}}{{end}}{{end}}; {{list (sortby "nope" .returns) "item"}}`,
			want: "Wool hiking socks and Trail running shoes; Trail running shoes and Wool hiking socks; B; Wool hiking socks and Trail running shoes"},
		{name: "where picks by a field, letter case aside", tmpl: `{{list (where "status" "Refund Issued" .returns) "item"}}; {{len (where "status" "lost" .returns)}}; {{len (where "nope" "x" .returns)}}`,
			want: "Wool hiking socks; 0; 0"},
		{name: "last of a sorted list is the largest", tmpl: `{{range last 1 (sortby "refund" .returns)}}{{.item}}{{end}}; {{len (last 5 .returns)}}; {{len (last 0 .returns)}}`,
			want: "Trail running shoes; 2; 0"},
		{name: "plural and blank lines folded", tmpl: "{{plural (len .returns) \"return\" \"returns\"}}\n\n\n\nend  ",
			want: "2 returns\n\nend"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := definitions.Tool{Name: "t", Answer: tt.tmpl}.AnswerTemplate()
			if err != nil {
				t.Fatalf("AnswerTemplate() error = %v", err)
			}
			got, err := tmpl.Render(payload, definitions.AnswerInput{Question: tt.question, Locale: tt.locale})
			if err != nil {
				t.Fatalf("Render() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// matching keeps the records that share the most telling words with the question: "free
// shipping" is the free-shipping code, not every code that is free of something; records that
// share as many are all kept.
func TestMatchingRanks(t *testing.T) {
	payload := []byte(`{"coupons": [{"title": "Free shipping on any order", "code": "SHIPFREE"},
		{"title": "Buy two running socks, get a third free", "code": "SOCKS3"},
		{"title": "15% off running shoes", "code": "RUN15"}]}`)
	tmpl, err := definitions.Tool{Name: "t", Answer: `{{list (matching .coupons) "code"}}`}.AnswerTemplate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ question, want string }{
		{"got a code for free shipping?", "SHIPFREE"},
		{"anything free?", "SHIPFREE and SOCKS3"},
		{"a deal on running shoes", "RUN15"},
		{"running gear deals", "SOCKS3 and RUN15"},
		{"a code for my order", "SHIPFREE"},
		{"any codes?", ""},
	} {
		got, err := tmpl.Render(payload, definitions.AnswerInput{Question: tt.question})
		if err != nil || got != tt.want {
			t.Errorf("matching for %q = %q, %v; want %q", tt.question, got, err, tt.want)
		}
	}
}

func TestAnswerRenderMissingKey(t *testing.T) {
	tool := definitions.Tool{Name: "t", Answer: "Tier:\n{{.tier.nme}}", AnswerSource: definitions.Source{File: "rewards.yaml", Line: 20}}
	tmpl, err := tool.AnswerTemplate()
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Render([]byte(`{"tier": {"name": "Silver"}}`), definitions.AnswerInput{})
	var ae *definitions.AnswerError
	if !errors.As(err, &ae) {
		t.Fatalf("Render() error = %v, want an *AnswerError", err)
	}
	if ae.Source.Line != 21 || !strings.Contains(ae.Message, "nme") {
		t.Errorf("Render() error = %v, want line 21 naming nme", ae)
	}
}

// FuzzAnswerRender runs a template that uses every helper over arbitrary payloads, questions
// and locales (all come from outside: a CCS, a user, a client): it must never panic, and a
// failure must be an *AnswerError.
func FuzzAnswerRender(f *testing.F) {
	f.Add([]byte(`{"items": [{"name": "Socks", "price": {"amount": 12.5, "currency": "EUR"}, "on": "2026-12-01"}], "total": 3}`), "the socks?", "de-DE")
	f.Add([]byte(`{"items": "x", "total": "1,234.5"}`), "", "")
	f.Add([]byte(`[1, 2]`), "what", "en_GB")
	f.Add([]byte(`{"items": [null, 1, "a", []], "total": null}`), "a a a", "xx-YY-zz")
	tmpl, err := definitions.Tool{Name: "t", Answer: `{{with .items}}{{range about .}}{{money .}} {{date .}} {{number .}}{{end}}` +
		`{{list (matching .) "name"}}{{len (first 2 .)}}{{range sortby "price" .}}{{words .}}{{end}}{{end}}{{plural .total "x" "xs"}}{{if asks "socks"}}{{question}}{{end}}`}.AnswerTemplate()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, payload []byte, question, locale string) {
		_, err := tmpl.Render(payload, definitions.AnswerInput{Question: question, Locale: locale})
		var ae *definitions.AnswerError
		if err != nil && !errors.As(err, &ae) {
			t.Errorf("Render() error = %v (%T), want an *AnswerError", err, err)
		}
	})
}

// One template renders for many questions, one after another and at once: each render
// answers its own question, locale and payload, whatever ran before it or beside it, a
// failed render included.
func TestAnswerRenderKeepsRendersApart(t *testing.T) {
	tmpl, err := definitions.Tool{Name: "t", Answer: `{{list (about .returns) "item"}}|{{if asks "next"}}next{{end}}|{{money .refund}}|{{cap}}|{{question}}`}.AnswerTemplate()
	if err != nil {
		t.Fatal(err)
	}
	returns := `"returns": [{"item": "Wool hiking socks"}, {"item": "Trail running shoes"}]`
	cases := []struct {
		payload, question, locale, want string
	}{
		{`{` + returns + `, "refund": 18}`, "and the shoes? (earlier: my refund for the socks)", "",
			"Trail running shoes||$18.00|<no value>|and the shoes? (earlier: my refund for the socks)"},
		{`{` + returns + `, "refund": 1234.5}`, "next refund under 20 for the socks", "de-DE",
			"Wool hiking socks|next|1.234,50 $|20|next refund under 20 for the socks"},
		{`{"returns": [], "refund": 3}`, "", "en-GB", "||$3.00|<no value>|"},
		{`{"returns": []}`, "next", "", ""}, // fails: the payload has no refund
	}
	render := func(i int) error {
		c := cases[i%len(cases)]
		got, err := tmpl.Render([]byte(c.payload), definitions.AnswerInput{Question: c.question, Locale: c.locale})
		if c.want == "" {
			if err == nil {
				return fmt.Errorf("render %d: no error for a payload without refund", i)
			}
			return nil
		}
		if err != nil || got != c.want {
			return fmt.Errorf("render %d = %q, %v; want %q", i, got, err, c.want)
		}
		return nil
	}
	for i := range 3 * len(cases) {
		if err := render(i); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 8 {
				if err := render(g + i); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkAnswerRender renders a template that uses the question's words, as the demo
// agents' do, for a payload of a few records.
func BenchmarkAnswerRender(b *testing.B) {
	tmpl, err := definitions.Tool{Name: "t", Answer: `{{with matching .returns}}{{range .}}{{.item}}: {{money .refund}} ({{words .status}}){{end}}` +
		`{{else}}{{if asks "refund" "refunds"}}Your refunds:{{range .returns}}
- {{.item}}: {{money .refund}}, {{words .status}}{{end}}{{end}}{{end}}`}.AnswerTemplate()
	if err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"returns": [{"item": "Wool hiking socks", "refund": 18, "status": "refund_issued"},
		{"item": "Trail running shoes", "refund": 120, "status": "in_transit"}, {"item": "Rain jacket", "refund": 80, "status": "received"}]}`)
	in := definitions.AnswerInput{Question: "did i get my refund for the socks?"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Render(payload, in); err != nil {
			b.Fatal(err)
		}
	}
}
