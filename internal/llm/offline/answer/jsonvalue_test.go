package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// tokenDecoded is decodeOrdered as encoding/json's token stream gives it, the reference
// decodeOrdered must agree with.
func tokenDecoded(text string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	v, err := tokenValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errJSONShape
	}
	return v, nil
}

// tokenValue decodes the next value of dec, depth objects and arrays deep.
func tokenValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, errJSONShape
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	var obj []field
	arr := []any{}
	for dec.More() {
		var k string
		if d == '{' {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k = kt.(string)
		}
		v, err := tokenValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		obj, arr = append(obj, field{key: k, val: v}), append(arr, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if d == '{' {
		if obj == nil {
			obj = []field{}
		}
		return obj, nil
	}
	return arr, nil
}

// jsonTexts are the texts both decoders read: the shapes results take, escapes, text that is
// not UTF-8, nesting at and past the limit, and text that is no JSON.
var jsonTexts = []string{
	`{"status":"ok","data":{"orders":[{"id":"A-1","total":{"amount":42.5,"currency":"USD"},"shipped":true,"note":null}]}}`,
	` [ 1 , -2.5e+3 , 0.001E-2 , "x" , { } , [ ] , true , false , null ] `,
	`"plain"`, `17`, `{}`, `[]`, "{\"a\" :\t\"b\" ,\r\n\"a\":2}",
	`{"q":"say \"hi\"\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800 x"}`,
	`{"café":"crème brûlée","€":"\u20ac"}`,
	"{\"bad\":\"\xff\xfe\"}", "\"\xc3\"",
	strings.Repeat("[", maxJSONDepth) + "1" + strings.Repeat("]", maxJSONDepth),
	strings.Repeat("[", maxJSONDepth+1) + "1" + strings.Repeat("]", maxJSONDepth+1),
	strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
	``, ` `, `{`, `{"a":}`, `{"a":1,}`, `[1 2]`, `1 2`, `{} {}`, `tru`, `nul`, `01`, `1.`, `-`,
	`{"a":"b"`, `"unterminated`, "\"ctl\x01\"", `{1:2}`, `[1,]`, `'a'`, `\u0041`,
}

// TestDecodeOrderedAsTokens: decodeOrdered reads every text as encoding/json's tokens do, and
// fails on every text they fail on.
func TestDecodeOrderedAsTokens(t *testing.T) {
	for _, text := range jsonTexts {
		checkDecodedAsTokens(t, text)
	}
}

// FuzzDecodeOrdered checks decodeOrdered against encoding/json's tokens on any text.
func FuzzDecodeOrdered(f *testing.F) {
	for _, text := range jsonTexts {
		f.Add(text)
	}
	f.Fuzz(checkDecodedAsTokens)
}

// checkDecodedAsTokens fails t when decodeOrdered reads text otherwise than tokenDecoded.
func checkDecodedAsTokens(t *testing.T, text string) {
	want, wantErr := tokenDecoded(text)
	got, err := decodeOrdered(text)
	if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("decodeOrdered(%q) = %#v, %v; tokens give %#v, %v", text, got, err, want, wantErr)
	}
}

// BenchmarkDecodeOrdered decodes a result in the agent team's shape, with encoding/json's
// tokens (the reference) and as decodeOrdered does.
func BenchmarkDecodeOrdered(b *testing.B) {
	const text = `{"status":"ok","data":{"offers":[` +
		`{"id":"OF-1","title":"Trail runners 20% off","category":"running shoes","discount_pct":20,"valid_until":"2026-12-31"},` +
		`{"id":"OF-2","title":"Free socks with any running shoe","category":"running shoes","discount_pct":0,"valid_until":"2026-12-15"},` +
		`{"id":"OF-3","title":"Road shoes clearance","category":"running shoes","discount_pct":35,"valid_until":"2026-12-07"}]}}`
	for name, decode := range map[string]func(string) (any, error){"tokens": tokenDecoded, "reader": decodeOrdered} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
