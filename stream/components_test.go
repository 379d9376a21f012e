package stream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGuardComponents(t *testing.T) {
	trace := "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\n" +
		"github.com/acme/ccs.(*Enricher).Points(0xc000123456, {0x1a2b3c, 0x4})\n\t/srv/ccs/points.go:88 +0x1d"
	big := func(n int) json.RawMessage {
		return json.RawMessage(`{"type":"offer_list","data":{"blob":"` + strings.Repeat("x", n) + `"}}`)
	}
	tests := []struct {
		name string
		in   []json.RawMessage
		want []string
	}{
		{
			name: "plain component passes byte for byte",
			in:   []json.RawMessage{json.RawMessage(`{"type":"points_balance","data":{"points":12450,"tier":"gold","ok":true,"gift":null,"list":[1,2.5,-3e2]}}`)},
			want: []string{`{"type":"points_balance","data":{"points":12450,"tier":"gold","ok":true,"gift":null,"list":[1,2.5,-3e2]}}`},
		},
		{
			name: "stack trace in a payload field",
			in:   []json.RawMessage{json.RawMessage(`{"type":"points_balance","data":{"points":1,"note":` + quote(t, trace) + `}}`)},
			want: []string{`{"type":"points_balance","data":{"points":1,"note":""}}`},
		},
		{
			name: "internal codes and enricher ids in values and keys",
			in:   []json.RawMessage{json.RawMessage(`{"type":"offer_list","data":{"why":"principal_mismatch from offers.search","HTTP 503 Service Unavailable":[{"x":"status: error"}]}}`)},
			want: []string{`{"type":"offer_list","data":{"why":"from","":[{"x":""}]}}`},
		},
		{
			name: "a component that is not one JSON value is dropped",
			in:   []json.RawMessage{json.RawMessage(`{"type":`), json.RawMessage(`1 2`), json.RawMessage(`{"type":"ok"}`)},
			want: []string{`{"type":"ok"}`},
		},
		{
			name: "components are kept in order up to the cap",
			in:   []json.RawMessage{big(30 << 10), big(30 << 10), big(30 << 10), json.RawMessage(`{"type":"small"}`)},
			want: []string{string(big(30 << 10)), string(big(30 << 10))},
		},
		{
			name: "one component over the cap leaves none",
			in:   []json.RawMessage{big(770 << 10), json.RawMessage(`{"type":"small"}`)},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out recorderSink
			g := NewGuard(&out, GuardConfig{Forbidden: []string{"offers.search"}})
			g.Publish(ReplyCompleted{Text: "Here is your balance.", Components: tt.in})
			if len(out.evs) != 1 {
				t.Fatalf("events = %v, want one reply.completed", out.evs)
			}
			rc := out.evs[0].(ReplyCompleted)
			if rc.Text != "Here is your balance." {
				t.Errorf("ReplyCompleted.Text = %q, want the text unchanged", rc.Text)
			}
			var got []string
			total := 0
			for _, c := range rc.Components {
				if !json.Valid(c) {
					t.Errorf("component %s is not valid JSON", c)
				}
				got = append(got, string(c))
				total += len(c)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReplyCompleted.Components mismatch (-want +got):\n%.2000s", diff)
			}
			if total > MaxComponentBytes {
				t.Errorf("components total %d bytes, want at most %d", total, MaxComponentBytes)
			}
		})
	}
}

func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzScrubJSON checks that guarding a component never panics, yields one JSON value of the
// same shape (only strings change) and is stable: guarding it again changes nothing.
func FuzzScrubJSON(f *testing.F) {
	f.Add([]byte(`{"type":"points_balance","data":{"points":12450,"note":"goroutine 1 [running]:"}}`))
	f.Add([]byte(`[1,"a",{"b":[null,true,false,{}],"c":[]},-0.5e-3]`))
	f.Add([]byte(`"principal_mismatch"`))
	f.Add([]byte(`["HTTP principal_mismatch500 Internal Server Error", " ok "]`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(` {"x" : "\u003cb\u003e"} `))
	sc, err := newScrubber([]string{"offers.search"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		clean, _, err := sc.scrubJSON(raw)
		if err != nil {
			if json.Valid(raw) {
				t.Fatalf("scrubJSON(%q) = %v for valid JSON", raw, err)
			}
			return
		}
		if !json.Valid(clean) {
			t.Fatalf("scrubJSON(%q) = %q, not valid JSON", raw, clean)
		}
		if shape(t, raw) != shape(t, clean) {
			t.Fatalf("scrubJSON(%q) = %q changed the shape", raw, clean)
		}
		again, n, err := sc.scrubJSON(clean)
		if err != nil || string(again) != string(clean) {
			t.Fatalf("scrubJSON(scrubJSON(%q)) = %q, %d, %v; want it unchanged", raw, again, n, err)
		}
	})
}

// shape renders a JSON value with every string replaced by "s".
func shape(t *testing.T, raw []byte) string {
	t.Helper()
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return b.String()
		}
		if _, ok := tok.(string); ok {
			tok = "s"
		}
		b.WriteString(strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(string(mustJSON(t, tok)), "\n", ""), " ", "")))
		b.WriteByte(' ')
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	if d, ok := v.(json.Delim); ok {
		return []byte(d.String())
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
