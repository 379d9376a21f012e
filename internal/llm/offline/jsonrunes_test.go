package offline

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// jsonRunes must count exactly what json.Marshal writes, for every value a tool schema holds.
func TestJSONRunesMatchesMarshal(t *testing.T) {
	var allBytes strings.Builder
	for b := 0; b < 256; b++ {
		allBytes.WriteByte(byte(b))
	}
	values := []any{
		nil, true, false, "", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff",
		"<b>&amp;</b>", "line\u2028sep\u2029", "héllo wörld ✓ 日本語 🚀", "bad \xff\xfe utf8", allBytes.String(),
		0.0, 1.0, -2.5, 1e20, 1e21, 123456789.0, 1e-6, 1e-7, 5e-324, math.MaxFloat64, math.Copysign(0, -1), 3.14159,
		0, 42, -7, []string{}, []string{"a", "b"}, []any{}, []any{1.0, "x", nil, []any{true}},
		map[string]any{}, map[string]any{"<key>": "v"},
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"request": map[string]any{"type": "string", "description": "The user's request, in their words & yours."},
				"limit":   map[string]any{"type": "integer", "minimum": 1.0, "maximum": 50.0},
				"tags":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "enum": []any{"a", "b"}},
			},
			"required":             []string{"request"},
			"additionalProperties": false,
		},
	}
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%#v): %v", v, err)
		}
		got, ok := jsonRunes(v)
		if want := utf8.RuneCount(raw); !ok || got != want {
			t.Errorf("jsonRunes(%#v) = %d, %v; json.Marshal writes %d runes: %s", v, got, ok, want, raw)
		}
	}
}

// Types outside a schema's are left to json.Marshal.
func TestJSONRunesDeclinesOtherTypes(t *testing.T) {
	for _, v := range []any{struct{ A int }{1}, map[string]int{"a": 1}, math.Inf(1), math.NaN(), []any{struct{}{}}} {
		if _, ok := jsonRunes(v); ok {
			t.Errorf("jsonRunes(%#v) ok, want it declined", v)
		}
	}
}

func FuzzJSONRunes(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\x1f", "<>&", "\u2028", "\xff", "日本"} {
		f.Add(s, 1.5)
	}
	f.Fuzz(func(t *testing.T, s string, x float64) {
		v := map[string]any{s: []any{s, x}}
		raw, err := json.Marshal(v)
		got, ok := jsonRunes(v)
		if err != nil {
			if ok {
				t.Fatalf("jsonRunes(%#v) ok, but json.Marshal fails: %v", v, err)
			}
			return
		}
		if want := utf8.RuneCount(raw); !ok || got != want {
			t.Fatalf("jsonRunes(%#v) = %d, %v; json.Marshal writes %d runes", v, got, ok, want)
		}
	})
}

// promptTokens counts what the text of the prompt and its tools' JSON would hold.
func TestPromptTokensCountsThePromptAsText(t *testing.T) {
	agents := append([]agentFixture{gardenAgent}, conciergeAgents...)
	messages := routeMessages(orchestratorPrompt(3, agents...), "any deals on <headphones> & cables? ✓")
	tools := askTools(agents...)
	var b strings.Builder
	for _, m := range messages {
		for _, p := range m.Parts {
			if text, ok := p.(llms.TextContent); ok {
				b.WriteString(text.Text)
			}
		}
	}
	for _, tool := range tools {
		raw, err := json.Marshal(tool.Function.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(tool.Function.Name + tool.Function.Description + string(raw))
	}
	if got, want := promptTokens(messages, tools), estimateTokens(b.String()); got != want {
		t.Errorf("promptTokens = %d, want %d", got, want)
	}
}

// runeCount counts as utf8.RuneCountInString does, an invalid byte as one rune, on either
// side of the eight-byte steps too.
func TestRuneCount(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefg", "abcdefgh", "abcdefghi", "where is my parcel, it’s late", "✓✓✓✓✓✓✓✓✓",
		"abcdefg✓abcdefgh", "\xff\xfe abcdefgh \xe2\x80", "😀 caf\u00e9 \u2028 abcdefghijklmnop\x80",
		strings.Repeat("tool description ", 40) + "é",
	} {
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkRuneCount counts the runes of a prompt-sized text.
func BenchmarkRuneCount(b *testing.B) {
	s := strings.Repeat("Shopping assistant: finds deals, coupons and the lowest price of a product. ", 60)
	for b.Loop() {
		runeCount(s)
	}
}
