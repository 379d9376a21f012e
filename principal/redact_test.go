package principal

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRedact(t *testing.T) {
	const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	const unsignedJWT = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9."
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"bare jwt", "token " + jwt + " rejected", "token [REDACTED] rejected"},
		{"unsigned jwt", "got " + unsignedJWT, "got [REDACTED]"},
		{"authorization header", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED]"},
		{"opaque bearer value", `headers={"authorization":"bearer s3cr3t-Opaque_value=="}`, `headers={"authorization":"bearer [REDACTED]"}`},
		{"jwt in a url", "GET /v1/turns/t1/events?token=" + jwt + "&x=1", "GET /v1/turns/t1/events?token=[REDACTED]&x=1"},
		{"two tokens", jwt + " and " + jwt, "[REDACTED] and [REDACTED]"},
		{"host names untouched", "dial api.example.com: 10.0.0.1.8080 v1.2.3", "dial api.example.com: 10.0.0.1.8080 v1.2.3"},
		{"file names untouched", "read principal.go.orig failed", "read principal.go.orig failed"},
		// Errs on the safe side: the word after "bearer" is always treated as a credential.
		{"prose after bearer", "the bearer of bad news", "the bearer [REDACTED] bad news"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Redact(tt.in)); diff != "" {
				t.Errorf("Redact(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestRedactRemovesMintedTokens(t *testing.T) {
	s, err := NewDevSigner(RandomSecret(), "iss", "aud")
	if err != nil {
		t.Fatal(err)
	}
	session, err := s.Mint("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := NewTurnTokens(RandomSecret(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{session, turns.Mint("turn-1", "alice")} {
		line := "events_url=/v1/turns/turn-1/events?token=" + tok
		got := Redact(line)
		for _, seg := range strings.Split(tok, ".") {
			if strings.Contains(got, seg) {
				t.Errorf("Redact(%q) = %q, still holds segment %q", line, got, seg)
			}
		}
	}
}
