package ccs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeEnvelopeTwice is DecodeEnvelope as it was before it read the envelope in one pass:
// every top-level key checked first (checkTopLevelKeysTwice), then the whole envelope decoded
// again. The differential tests hold DecodeEnvelope to it.
func decodeEnvelopeTwice(data []byte) (*RawResponse, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: envelope is not a JSON object", ErrMalformed)
	}
	if err := checkTopLevelKeysTwice(trimmed); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var env RawResponse
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after envelope", ErrMalformed)
	}
	return &env, nil
}

// foldedPrincipal is the principal key as [foldKey] gives it.
var foldedPrincipal = foldKey("principal")

func checkTopLevelKeysTwice(obj []byte) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	seen := map[string]bool{}
	var repeated string
	badPrincipal := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		key, _ := tok.(string)
		folded := foldKey(key)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		switch {
		case folded == foldedPrincipal:
			if seen[folded] || key != "principal" || len(v) == 0 || v[0] != '"' {
				badPrincipal = true
			}
		case seen[folded] && repeated == "":
			repeated = key
		}
		seen[folded] = true
	}
	if badPrincipal {
		return ErrEnvelopePrincipal
	}
	if repeated != "" {
		return fmt.Errorf("%w: key %q appears twice", ErrMalformed, repeated)
	}
	return nil
}

// differentialSeeds are envelopes on which reading once and reading twice could part: values
// of the wrong type before and after a bad principal or a repeated key, truncation, trailing
// data, nulls, and keys matched by case folding.
var differentialSeeds = []string{
	okEnvelope,
	`{"status":1,"principal":2}`,
	`{"status":1,"status":"ok","principal":"alice"}`,
	`{"partial":[{"critical":"yes"}],"principal":"alice","principal":"bob"}`,
	`{"partial":[{"critical":1e999}],"principal":"alice"}`,
	`{"status":"ok","principal":"alice"`,
	`{"status":"ok","principal":7`,
	`{"status":1,"principal":"alice"`,
	`{"status":"ok","principal":"alice"}{}`,
	`{"status":"ok","principal":"alice"} x`,
	`{"status":1,"principal":"alice"} x`,
	`{"status":"ok","principal":"alice",}`,
	`{"status":"ok","principal":"alice"]`,
	`{"payload":null,"partial":null,"cache_meta":null,"status":null,"principal":"alice"}`,
	`{"PAYLOAD":{"a":1},"Cache_Meta":{"cached":true,"CACHED":false},"ſignature":"s","principal":"alice"}`,
	`{"\u212Aey":1,"key":2,"principal":"alice"}`,
	`{"kEy":1,"status":"ok","KEY":[1,2],"principal":"alice"}`,
	`{"principal":"al\u0069ce","x":{"principal":"bob"}}`,
	` {"principal":"alice"} `,
	`{}`,
	`{"principal":"alice","cache_meta":[]}`,
	`{"principal":"alice","partial":{}}`,
	"{\"principal\":\"alice\",\"status\":\"\xff\"}",
	"{\"st\xffatus\":1,\"principal\":\"alice\"}",
	`{"payload":{"a":"}\"]","b":[1,{"c":"\\"}]},"principal":"alice","x":"\u0070"}`,
	`{"princ\u0069pal":"alice","st\u0061tus":"ok","status":"error"}`,
	`{"n":-1.5e+3,"t":true,"f":false,"z":null,"principal":"alice","e":[],"o":{}}`,
	"{\"principal\"\t:\r\n\"alice\" ,\n\"\u017ftatus\" : 1 }",
	`{"":1,"":2,"principal":"alice"}`,
}

// TestDecodeEnvelopeReadsOnceAsTwice holds DecodeEnvelope to the reading in two passes it
// replaced, on inputs where the two could part.
func TestDecodeEnvelopeReadsOnceAsTwice(t *testing.T) {
	for _, s := range differentialSeeds {
		compareDecoders(t, []byte(s))
	}
}

func FuzzDecodeEnvelopeReadsOnceAsTwice(f *testing.F) {
	for _, s := range differentialSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(compareDecoders)
}

// compareDecoders fails when DecodeEnvelope and decodeEnvelopeTwice disagree on data: on
// whether it is an envelope, on which sentinel refuses it, or on what it holds.
func compareDecoders(t *testing.T, data []byte) {
	got, gotErr := DecodeEnvelope(data)
	want, wantErr := decodeEnvelopeTwice(data)
	for _, sentinel := range []error{ErrMalformed, ErrEnvelopePrincipal} {
		if errors.Is(gotErr, sentinel) != errors.Is(wantErr, sentinel) {
			t.Fatalf("DecodeEnvelope(%q) = %v, want %v", data, gotErr, wantErr)
		}
	}
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("DecodeEnvelope(%q) = %v, want %v", data, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("DecodeEnvelope(%q) (-two passes +one):\n%s", data, diff)
	}
}

// BenchmarkDecodeEnvelope reads a demo-sized envelope in one pass and, for comparison, in the
// two it replaced.
func BenchmarkDecodeEnvelope(b *testing.B) {
	data := []byte(`{"status":"ok","principal":"user-4f1c2a","domain_type":"offer_list","enricher_id":"offers.search",` +
		`"version":"1.2.0","payload":{"query":"running shoes","matched_query":true,"offers":[{"id":"o1","title":"Trail runner",` +
		`"price":89.5,"currency":"EUR"},{"id":"o2","title":"Road runner","price":74,"currency":"EUR"}]},` +
		`"cache_meta":{"cached":false,"cacheable":true,"ttl":"5m0s","key":"offers.search:2f9a"}}`)
	for _, d := range []struct {
		name   string
		decode func([]byte) (*RawResponse, error)
	}{{"one pass", DecodeEnvelope}, {"two passes", decodeEnvelopeTwice}} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
