package ccs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/principal"
)

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(okEnvelope), "alice")
	f.Add([]byte(`{"status":"partial","principal":"bob","domain_type":"offer_list","enricher_id":"offers.search","version":"1.0.0-rc.1","payload":{"offers":[{"title":1}]},"partial":[{"source":"s","critical":true,"reason":"r"}]}`), "bob")
	f.Add([]byte(`{"status":"ok","principal":"alice","version":"2.0.0","payload":null,"signature":"zz"}`), "alice")
	f.Add([]byte(`{"payload": 1e999}`), "")
	f.Add([]byte(`[]`), "alice")
	f.Add([]byte(``), "alice")
	f.Add([]byte(`{"status":"ok","principal":"bob","PRINCIPAL":"alice","version":"1.0.0","payload":{}}`), "alice")
	f.Add([]byte(`{"status":"error","principal":"alice","version":"1.0.0","status":"ok"}`), "alice")
	f.Add([]byte(`{"status":"ok","principal":["alice"],"version":"1.0.0"}`), "alice")
	f.Add([]byte(`{"status":"error","principal":"alice","version":"1.0.0","\u017ftatus":"ok"}`), "alice")
	f.Add([]byte("{\"status\":\"ok\",\"principal\":\"alice\",\"version\":\"2.0.0\",\"ver\u017fion\":\"1.0.0\"}"), "alice")
	f.Add([]byte(`{"\u212Aey":1,"key":2,"status":"ok","principal":"alice","version":"1.0.0"}`), "alice")
	key := []byte("fuzz-key")
	reg := NewRegistry()
	if err := Register[testOffers](reg, "offer_list", "offers.search"); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte, invoking string) {
		env, err := DecodeEnvelope(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEnvelopePrincipal) {
				t.Fatalf("DecodeEnvelope() error = %v, want %v or %v", err, ErrMalformed, ErrEnvelopePrincipal)
			}
			return
		}
		// What was decoded is all the envelope said: no two keys the decoder could take for
		// the same field (strings.EqualFold is how it matches them), a principal that is a
		// string (or absent), and every field that a reader matching keys exactly would
		// see is the one the check sees.
		names := topLevelKeys(t, data)
		for i, a := range names {
			for _, b := range names[:i] {
				if strings.EqualFold(a, b) {
					t.Fatalf("decoded an envelope with keys %q and %q", b, a)
				}
			}
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(data, &keys) == nil {
			if p, ok := keys["principal"]; ok && len(p) > 0 && p[0] != '"' {
				t.Fatalf("decoded an envelope whose principal is %s", p)
			}
			for name, got := range map[string]string{"status": env.Status, "principal": env.Principal,
				"version": env.Version, "domain_type": env.DomainType, "enricher_id": env.EnricherID, "signature": env.Signature} {
				var want string
				if json.Unmarshal(keys[name], &want) == nil && keys[name] != nil && got != want {
					t.Fatalf("decoded %s = %q, want %q as the envelope spells it", name, got, want)
				}
			}
		}
		for _, opts := range []CheckOptions{{}, {SigningKey: key}} {
			v := Check(env, principal.Principal(invoking), opts)
			if v.Usable() && (env.Principal != invoking || invoking == "") {
				t.Fatalf("Check() = %+v for envelope principal %q, invoking %q", v, env.Principal, invoking)
			}
			if v.Usable() && env.Status != StatusOK && env.Status != StatusPartial {
				t.Fatalf("Check() = %+v for status %q", v, env.Status)
			}
		}
		if _, err := reg.Decode(env); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnregistered) {
			t.Fatalf("Decode() error = %v, want a documented sentinel", err)
		}
		if _, err := Unwrap[testOffers](reg, env); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnregistered) {
			t.Fatalf("Unwrap() error = %v, want a documented sentinel", err)
		}
		// A signature we make ourselves must verify, whatever the envelope holds.
		if sig, err := Sign(env, key); err == nil {
			env.Signature = sig
			if err := VerifySignature(env, key); err != nil {
				t.Fatalf("VerifySignature(own signature) = %v", err)
			}
		}
	})
}

// TestCheckNeverUsesForeignPrincipal is a property test: whatever the rest of the envelope says
// (status, version, signature, partial), an envelope whose principal differs from the invoking
// one is never usable.
func TestCheckNeverUsesForeignPrincipal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	principals := []string{"", "alice", "bob", "Alice", "alice ", "al\u200bice", "carol"}
	statuses := []string{StatusOK, StatusPartial, StatusError, "", "OK", "unknown"}
	versions := []string{"1.0.0", "1.4.2-rc.1", "2.0.0", "0.9.0", "", "1.x"}
	key := []byte("prop-key")
	pick := func(s []string) string { return s[rng.IntN(len(s))] }

	for i := range 20000 {
		env := &RawResponse{
			Status:     pick(statuses),
			Principal:  pick(principals),
			DomainType: pick([]string{"offer_list", "coupon_list", ""}),
			EnricherID: "offers.search",
			Version:    pick(versions),
			Payload:    json.RawMessage(fmt.Sprintf(`{"n":%d}`, rng.IntN(100))),
		}
		if rng.IntN(3) == 0 {
			env.Partial = []FailedSource{{Source: "s", Critical: rng.IntN(2) == 0}}
		}
		var opts CheckOptions
		if rng.IntN(2) == 0 {
			opts.SigningKey = key
			if rng.IntN(4) > 0 {
				sig, err := Sign(env, key)
				if err != nil {
					t.Fatal(err)
				}
				env.Signature = sig
			}
		}
		if rng.IntN(2) == 0 {
			opts.SupportedMajor = map[string]int{env.DomainType: rng.IntN(3)}
		}
		invoking := principal.Principal(pick(principals))

		v := Check(env, invoking, opts)
		if v.Usable() && (env.Principal != string(invoking) || invoking == "") {
			t.Fatalf("case %d: Check() = %+v for envelope principal %q, invoking %q", i, v, env.Principal, invoking)
		}
		if env.Principal != string(invoking) && v.Reason != ReasonPrincipalMismatch && v.Reason != ReasonBadSignature {
			t.Fatalf("case %d: Check() reason = %q for a foreign principal, want %q or %q", i, v.Reason, ReasonPrincipalMismatch, ReasonBadSignature)
		}
	}
}

// topLevelKeys lists the keys of the JSON object data, repeats included, as written.
func topLevelKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("decoded an envelope that is not an object: %v", err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("decoded an envelope whose keys do not parse: %v", err)
		}
		name, _ := tok.(string)
		names = append(names, name)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("decoded an envelope whose values do not parse: %v", err)
		}
	}
	return names
}
