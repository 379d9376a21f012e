package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// scrubJSONTokens is scrubJSON as it was, token by token through json.Decoder; the
// differential tests hold scrubJSON to it. It re-encodes the JSON value raw with every string scrubbed until nothing in it
// matches, keeping its structure and the order of object keys; a string that lost a match is
// also trimmed of the blanks left around it. Numbers, booleans and nulls pass unchanged.
func (sc *scrubber) scrubJSONTokens(raw []byte) (json.RawMessage, int, error) {
	if !json.Valid(raw) {
		return nil, 0, errNotOneValue
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(raw))
	// For each open container: whether it is an object, and how many keys and values it
	// has had, which decides the separator before the next one.
	type open struct {
		object bool
		n      int
	}
	var stack []open
	scrubbed := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		closing := tok == json.Delim('}') || tok == json.Delim(']')
		if len(stack) > 0 && !closing {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out.WriteByte(':')
			case top.n > 0:
				out.WriteByte(',')
			}
			top.n++
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			if closing {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, open{object: t == '{'})
			}
		case string:
			// Until nothing matches: removing one match can join its neighbours into
			// another ("HTTP principal_mismatch500"). Each pass that matches shortens the
			// string, so this ends. What a removed trace leaves is line breaks and
			// indentation, hence the trim.
			clean := t
			for {
				c, n := sc.scrub(clean)
				if n == 0 {
					break
				}
				clean = strings.TrimSpace(c)
				scrubbed += n
			}
			b, err := json.Marshal(clean)
			if err != nil {
				return nil, 0, err
			}
			out.Write(b)
		case json.Number:
			out.WriteString(t.String())
		case bool:
			if t {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), scrubbed, nil
}

// scrubSeeds are components on which walking the bytes and reading tokens could part:
// escapes, characters json.Marshal escapes, non-UTF-8 bytes, blanks, and strings that
// match.
var scrubSeeds = []string{
	`{"type":"points_balance","data":{"points":12450,"note":"goroutine 1 [running]:"}}`,
	`[1,"a",{"b":[null,true,false,{}],"c":[]},-0.5e-3]`,
	`"principal_mismatch"`,
	`["HTTP principal_mismatch500 Internal Server Error", " ok "]`,
	`{"a":1,"a":2}`,
	` {"x" : "\u003cb\u003e"} `,
	`{"<k>":"a & b","\/":"\u2028\u2029 \u00e9 é \ud83d\ude00 \ud800"}`,
	"[\"\xff\xfe\",\"ok\u2028\",\"\x7f\",\"\uFFFD\"]",
	`{"offers":[{"id":"o1","title":"Trail runner","price":89.5,"currency":"EUR","url":"https://shop.example/o1?a=1&b=2"}]}`,
	"\t[ 1 ,\n 2 ,\r\"offers.search failed\" ]\n",
	`["\"quoted\\ back\\\"slash\"","\b\f\n\r\t"]`,
	`1e999`,
	`"a"`,
	`["a<b","c>d","e&f"]`,
}

// TestScrubJSONWalksAsTokens holds scrubJSON to the token by token reading it replaced.
func TestScrubJSONWalksAsTokens(t *testing.T) {
	for _, s := range scrubSeeds {
		compareScrubJSON(t, []byte(s))
	}
}

func FuzzScrubJSONWalksAsTokens(f *testing.F) {
	for _, s := range scrubSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(compareScrubJSON)
}

var referenceScrubber = func() *scrubber {
	sc, err := newScrubber([]string{"offers.search"})
	if err != nil {
		panic(err)
	}
	return sc
}()

// compareScrubJSON fails when scrubJSON and scrubJSONTokens disagree on raw.
func compareScrubJSON(t *testing.T, raw []byte) {
	got, gotN, gotErr := referenceScrubber.scrubJSON(raw)
	want, wantN, wantErr := referenceScrubber.scrubJSONTokens(raw)
	if string(got) != string(want) || gotN != wantN || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("scrubJSON(%q) = %q, %d, %v; token by token %q, %d, %v", raw, got, gotN, gotErr, want, wantN, wantErr)
	}
}

// BenchmarkScrubJSON guards a demo-sized offer list by walking its bytes and, for comparison,
// token by token.
func BenchmarkScrubJSON(b *testing.B) {
	raw := []byte(`{"type":"offer_list","data":{"query":"running shoes","offers":[` +
		`{"id":"o1","title":"Trail runner","price":89.5,"currency":"EUR","merchant":"Northwind","rating":4.5},` +
		`{"id":"o2","title":"Road runner","price":74,"currency":"EUR","merchant":"Contoso","rating":4.1},` +
		`{"id":"o3","title":"Track spike","price":120,"currency":"EUR","merchant":"Fabrikam","rating":3.9}]}}`)
	for _, s := range []struct {
		name string
		fn   func([]byte) (json.RawMessage, int, error)
	}{{"walk", referenceScrubber.scrubJSON}, {"tokens", referenceScrubber.scrubJSONTokens}} {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.fn(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
