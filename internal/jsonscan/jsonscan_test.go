package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestValueEnd(t *testing.T) {
	tests := []struct{ text, value string }{
		{` "x\"y" , "z"`, `"x\"y"`},
		{`"a\\" ]`, `"a\\"`},
		{"\t[1, {\"c\":\"]\"}] ,2", `[1, {"c":"]"}]`},
		{`{"a":{"b":[]}}`, `{"a":{"b":[]}}`},
		{` -1.5e3 ,`, `-1.5e3`},
		{"true}", "true"},
		{"null\n]", "null"},
		{"7", "7"},
	}
	for _, tt := range tests {
		start := SkipSpace(tt.text, 0)
		if got := tt.text[start:ValueEnd(tt.text, start)]; got != tt.value {
			t.Errorf("the value at the start of %q = %q, want %q", tt.text, got, tt.value)
		}
		b := []byte(tt.text)
		if got := string(b[start:ValueEnd(b, SkipSpace(b, 0))]); got != tt.value {
			t.Errorf("the value at the start of %q, as bytes = %q, want %q", tt.text, got, tt.value)
		}
	}
}

// Unquote reads a string as encoding/json does, escapes and bad bytes included.
func TestUnquote(t *testing.T) {
	for _, quoted := range []string{`""`, `"plain"`, `"say \"hi\"\n"`, `"caf\u00e9"`, `"café"`, "\"bad \xff byte\"", `"\ud83d\ude00"`, "\"\uFFFD\""} {
		var want string
		if err := json.Unmarshal([]byte(quoted), &want); err != nil {
			t.Fatalf("json.Unmarshal(%q): %v", quoted, err)
		}
		for _, got := range []func() (string, error){
			func() (string, error) { return Unquote(quoted) },
			func() (string, error) { return Unquote([]byte(quoted)) },
		} {
			if s, err := got(); err != nil || s != want {
				t.Errorf("Unquote(%q) = %q, %v; want %q", quoted, s, err, want)
			}
		}
	}
	// A plain string is a part of the text it was given, not a copy.
	if n := testing.AllocsPerRun(10, func() { _, _ = Unquote(`"plain café"`) }); n != 0 {
		t.Errorf("Unquote of a plain string allocated %v times, want 0", n)
	}
}
