package principal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// twoPassClaims decodes claims as sessionClaims did before it read them once: every key the
// decoder would match to exp, nbf or iat checked in a map first, then the claims decoded. It
// is the reference the one pass must agree with.
func twoPassClaims(data []byte) (jwt.RegisteredClaims, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return jwt.RegisteredClaims{}, err
	}
	for name, v := range raw {
		for _, dated := range []string{"exp", "nbf", "iat"} {
			if strings.EqualFold(name, dated) && !isJSONNumber(v) {
				return jwt.RegisteredClaims{}, fmt.Errorf("%w: %s claim is not a number", ErrMalformed, dated)
			}
		}
	}
	var c jwt.RegisteredClaims
	err := json.Unmarshal(data, &c)
	return c, err
}

// claimsSeeds are payloads where the one pass could part from the two: repeated keys in
// either order, keys in other cases, dates of every JSON type, a date after a claim of the
// wrong type, and payloads that are not objects.
var claimsSeeds = []string{
	`{"sub":"alice","exp":1900000000,"nbf":1700000000,"iat":1700000000,"iss":"i","aud":["a","b"],"jti":"j"}`,
	`{"exp":"1900000000","exp":1900000000}`,
	`{"exp":1900000000,"exp":"1900000000"}`,
	`{"exp":1900000000,"EXP":"1900000000"}`,
	`{"eXp":"1900000000","exp":1900000000}`,
	`{"exp":1900000000,"exp":1700000000}`, `{"exp":"","exp":0}`,
	`{"exp":1900000000.5,"Nbf":-1,"IAT":0}`,
	`{"exp":null}`, `{"nbf":true}`, `{"iat":{"a":1}}`, `{"exp":[1]}`, `{"exp":""}`,
	`{"sub":5,"exp":"1"}`, `{"exp":"1","sub":5}`, `{"sub":5,"exp":1}`,
	`{"aud":"a","AUD":["b"],"Sub":"x","sub":"y"}`,
	`{"exp":1e400}`, `{"exp":-1e3}`,
	`null`, `[]`, `"x"`, `1`, `{}`, `{"exp":1}}`, `{"exp":`,
}

// One pass refuses all the two passes refused, and decodes what they took to the same claims;
// it refuses more only where a repeated date key held something other than a number before its
// last value, which the two passes' map never saw.
func TestSessionClaimsAgreeWithTwoPasses(t *testing.T) {
	for _, seed := range claimsSeeds {
		checkClaimsAgree(t, []byte(seed))
	}
}

func FuzzSessionClaimsAgreeWithTwoPasses(f *testing.F) {
	for _, seed := range claimsSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkClaimsAgree)
}

func checkClaimsAgree(t *testing.T, data []byte) {
	want, wantErr := twoPassClaims(data)
	var got sessionClaims
	err := json.Unmarshal(data, &got)
	if err == nil && wantErr != nil {
		t.Fatalf("%s: one pass took what two passes refused: %v", data, wantErr)
	}
	if err != nil && wantErr == nil {
		// Stricter only where the map kept a repeated key's last value and missed an
		// earlier one that is no number.
		if !repeatsADateNotANumber(data) {
			t.Fatalf("%s: one pass refused what two passes took: %v", data, err)
		}
		return
	}
	// Both refusing is enough: Verify classifies every error of decoding claims as malformed.
	if err == nil {
		if diff := cmp.Diff(want, got.RegisteredClaims); diff != "" {
			t.Fatalf("%s: claims differ (-two passes +one):\n%s", data, diff)
		}
	}
}

// repeatsADateNotANumber reports whether the object data gives a key the decoder matches to
// exp, nbf or iat a value that is no number, anywhere among its keys, repeats included.
func repeatsADateNotANumber(data []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		for _, dated := range []string{"exp", "nbf", "iat"} {
			if key, _ := tok.(string); strings.EqualFold(key, dated) && !isJSONNumber(v) {
				return true
			}
		}
	}
	return false
}

// Verify refuses a signed token that gives a date claim anything but a number, wherever the
// key stands and however often it repeats, and reads a repeated number's last value.
func TestVerifyReadsDatesOnce(t *testing.T) {
	k := keys()
	v := newTestVerifier(t, VerifierConfig{HS256Secret: k.secret})
	later, earlier := t0.Add(time.Hour).Unix(), t0.Add(-time.Hour).Unix()
	base := fmt.Sprintf(`"iss":%q,"aud":%q,"sub":"alice","iat":%d`, testIssuer, testAudience, t0.Add(-time.Minute).Unix())
	tests := []struct{ name, payload, want string }{
		{"valid", fmt.Sprintf(`{%s,"exp":%d}`, base, later), "alice"},
		{"a string before the number", fmt.Sprintf(`{"exp":"%d",%s,"exp":%d}`, later, base, later), "ErrMalformed"},
		{"a string after the number", fmt.Sprintf(`{"exp":%d,%s,"exp":"%d"}`, later, base, later), "ErrMalformed"},
		{"a string in another case", fmt.Sprintf(`{"exp":%d,%s,"ExP":"%d"}`, later, base, later), "ErrMalformed"},
		{"nbf an object", fmt.Sprintf(`{%s,"exp":%d,"nbf":{"t":%d}}`, base, later, earlier), "ErrMalformed"},
		{"iat a list", fmt.Sprintf(`{%s,"exp":%d,"IAT":[%d]}`, base, later, earlier), "ErrMalformed"},
		{"the last exp counts", fmt.Sprintf(`{%s,"exp":%d,"exp":%d}`, base, later, earlier), "ErrExpired"},
		{"the last exp counts, in any case", fmt.Sprintf(`{%s,"exp":%d,"EXP":%d}`, base, earlier, later), "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := outcome{Err: tt.want}
			if tt.want == "alice" {
				want = outcome{Principal: "alice"}
			}
			p, err := v.Verify(t.Context(), signRawHS256(k.secret, tt.payload))
			if diff := cmp.Diff(want, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
}

// signRawHS256 signs payload, JSON text as it stands (repeated keys and all), with HS256.
func signRawHS256(secret []byte, payload string) string {
	enc := base64.RawURLEncoding
	signed := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(payload))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(signed))
	return signed + "." + enc.EncodeToString(mac.Sum(nil))
}

// BenchmarkVerify verifies a session token as the server's dev auth signs it (HS256).
func BenchmarkVerify(b *testing.B) {
	k := keys()
	v, err := NewVerifier(VerifierConfig{Issuer: testIssuer, Audience: testAudience, HS256Secret: k.secret, Now: func() time.Time { return t0 }})
	if err != nil {
		b.Fatal(err)
	}
	token := sign(b, jwt.SigningMethodHS256, k.secret, validClaims(), nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(b.Context(), token); err != nil {
			b.Fatal(err)
		}
	}
}
