package telemetry

import (
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// Test credentials, shaped like the real thing but never valid anywhere.
const (
	testJWT        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1LTQyIn0.c2lnbmF0dXJlLW5vdC1yZWFs"
	testOpenAI     = "sk-proj-AbCdEfGhIjKlMnOpQrStUv0123456789"
	testAnthropic  = "sk-ant-api03-ZyXwVuTsRqPoNmLkJiHg-9876543210"
	testGoogle     = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
	testRegistered = "corp-internal-key-7f3a9c"
)

func TestRedactorString(t *testing.T) {
	r := NewRedactor(testRegistered, "", "ab", "DACT")
	tests := []struct {
		name, in, want string
	}{
		{"plain text kept", "routing to ask_shop with 2 intents", "routing to ask_shop with 2 intents"},
		{"hostnames are not JWTs", "calling api.openai.com/v1", "calling api.openai.com/v1"},
		{"jwt", "session " + testJWT + " expired", "session [REDACTED] expired"},
		{"bearer keeps scheme", "Authorization: Bearer abcdefgh12345678", "Authorization: [REDACTED] [REDACTED]"},
		{"lowercase bearer", "got bearer abcdefgh12345678.", "got bearer [REDACTED]"},
		{"prose bearer kept", "the bearer of bad news", "the bearer of bad news"},
		{"openai key", "key=" + testOpenAI, "key=[REDACTED]"},
		{"anthropic key", "using " + testAnthropic + " now", "using [REDACTED] now"},
		{"sk inside a word kept", "risk-assessment-framework-v2", "risk-assessment-framework-v2"},
		{"google key", "?key=" + testGoogle, "?key=[REDACTED]"},
		{"registered secret", "x" + testRegistered + "y", "x[REDACTED]y"},
		{"registered twice", testRegistered + " and " + testRegistered, "[REDACTED] and [REDACTED]"},
		{"too short secret ignored", "ab cd", "ab cd"},
		{"marker substring ignored", "DACTYL", "DACTYL"},
		{"dsn password", "host=db user=sb password=hunter22 sslmode=off", "host=db user=sb password=[REDACTED] sslmode=off"},
		{"json password", `{"password":"hunter22","user":"u"}`, `{"password":"[REDACTED]","user":"u"}`},
		{"query token", "/cb?token=abc123&state=x", "/cb?token=[REDACTED]&state=x"},
		{"max_tokens kept", "max_tokens=1024", "max_tokens=1024"},
		{"url password", "postgres://sb:s3cr3t@db:5432/sb", "postgres://sb:[REDACTED]@db:5432/sb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.String(tt.in)); diff != "" {
				t.Errorf("String(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestRedactorStringNeverRespellsSecret(t *testing.T) {
	// Replacing the first occurrence leaves "[REDACTED]" followed by "xy", and the marker's
	// last two bytes plus "xy" spell the secret again.
	r := NewRedactor("D]xy")
	got := r.String("D]xyxy")
	if strings.Contains(got, "D]xy") {
		t.Errorf("String() = %q, still contains the secret", got)
	}
}

func TestSafeStringUsesShapesOnly(t *testing.T) {
	if got, want := SafeString("tok "+testJWT), "tok [REDACTED]"; got != want {
		t.Errorf("SafeString() = %q, want %q", got, want)
	}
	if got, want := SafeString(testRegistered), testRegistered; got != want {
		t.Errorf("SafeString() = %q, want %q", got, want)
	}
}

func TestSecretKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"Authorization", true},
		{"authorization", true},
		{"token", true},
		{"access_token", true},
		{"idToken", true},
		{"api_key", true},
		{"apikey", true},
		{"APIKey", true},
		{"x-api-key", true},
		{"OPENAI_API_KEY", true},
		{"private_key", true},
		{"client_secret", true},
		{"db.password", true},
		{"credentials", true},
		{"Set-Cookie", true},
		{"envelope_signature", true},
		{"key", false},
		{"monkey", false},
		{"max_tokens", false},
		{"tokenizer", false},
		{"turn_id", false},
		{"agent", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := SecretKey(tt.key); got != tt.want {
				t.Errorf("SecretKey(%q) = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

// A pattern is skipped for a string without what its matches hold: that test may never say
// no where the pattern matches. Strings built from pieces of every shape, in every case and
// with the runes that fold into ASCII letters (ſ, the Kelvin sign), at every position.
func TestValuePatternsHoldWhatTheyMatch(t *testing.T) {
	pieces := []string{"", " ", "x", "=", ":", "\t", "'", `"`, "@", "/", "://", "u:p@h", ".", "-",
		"eyJ", "eyJabc.def.ghi", "bearer ", "BeArEr\t", "BEARER", "abcdefgh12345678", "sk-", "sk-0123456789abcdefXYZ",
		"AIza", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "password", "PASSWORD", "pa\u017f\u017fword", "to\u212aen",
		"api_key", "Api-Key", "secret", "credentials", "authorization", "passwd"}
	var n int
	var build func(prefix string, depth int)
	build = func(prefix string, depth int) {
		for _, p := range valuePatterns {
			if p.re.MatchString(prefix) && !p.holds(prefix) {
				t.Errorf("%q matches %s, but its test says it cannot", prefix, p.re)
			}
		}
		n++
		if depth == 0 {
			return
		}
		for _, piece := range pieces {
			build(prefix+piece, depth-1)
		}
	}
	build("", 3)
	if n < 10000 {
		t.Fatalf("only %d strings tried", n)
	}
}

// containsFold finds "bearer" as (?i) does only if none of its letters folds to a rune
// outside ASCII.
func TestBearerFoldsWithinASCII(t *testing.T) {
	for _, c := range "bearer" {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f > unicode.MaxASCII {
				t.Errorf("%q folds to %q: containsFold would miss it", c, f)
			}
		}
	}
}

// Every secret shape is removed wherever it stands in a value: alone, first, last, inside,
// beside another, and after a long run of text no pattern matches.
func TestRedactorStringSecretsInEveryPosition(t *testing.T) {
	r := NewRedactor(testRegistered)
	secrets := map[string]string{ // what the text says: the secret it carries
		testJWT:                        testJWT,
		"Bearer abcdefgh12345678":      "abcdefgh12345678",
		"bEaReR\tabcdefgh12345678":     "abcdefgh12345678",
		testOpenAI:                     testOpenAI,
		testAnthropic:                  testAnthropic,
		testGoogle:                     testGoogle,
		"password=hunter22":            "hunter22",
		"pa\u017f\u017fword: hunter22": "hunter22",
		"API_KEY='hunter22'":           "hunter22",
		"postgres://sb:s3cr3t@db/sb":   "s3cr3t",
		testRegistered:                 testRegistered,
	}
	long := strings.Repeat("routing to ask_shop with 2 intents; ", 40)
	for text, secret := range secrets {
		for _, in := range []string{text, text + " tail", "head " + text, "head " + text + " tail",
			long + text, text + " " + testJWT, "(" + text + ")\n" + long} {
			if got := r.String(in); strings.Contains(got, secret) {
				t.Errorf("String(%.60q...) = %.80q..., still holds %q", in, got, secret)
			}
		}
	}
}

// BenchmarkRedactorString redacts the string values of a request's log lines: none holds a
// secret.
func BenchmarkRedactorString(b *testing.B) {
	r := NewRedactor(testRegistered)
	values := []string{"http", "POST", "/v1/turns", "event stream ended", "turn_01a22622faebed8373e73925",
		"shopping and rewards", "Which running shoes are on sale, and how many points do I have?"}
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range values {
			r.String(v)
		}
	}
}
