package principal

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func newTestTurnTokens(t *testing.T, key []byte, clk *clock) *TurnTokens {
	t.Helper()
	tt, err := NewTurnTokens(key, 0, WithClock(clk.Now))
	if err != nil {
		t.Fatalf("NewTurnTokens() = %v", err)
	}
	return tt
}

func TestTurnTokens(t *testing.T) {
	key := RandomSecret()
	tests := []struct {
		name    string
		mint    func(t *testing.T, clk *clock) string // runs at t0
		advance time.Duration
		turnID  string
		want    outcome
	}{
		{"valid", mintFor(key, "turn-1", "alice"), 0, "turn-1", outcome{Principal: "alice"}},
		{"valid until just before expiry", mintFor(key, "turn-1", "alice"), DefaultTurnTTL - time.Second, "turn-1", outcome{Principal: "alice"}},
		{"expired", mintFor(key, "turn-1", "alice"), DefaultTurnTTL + turnLeeway + time.Second, "turn-1", outcome{Err: "ErrExpired"}},
		{"wrong turn", mintFor(key, "turn-1", "alice"), 0, "turn-2", outcome{Err: "ErrWrongTurn"}},
		{"turn id prefix", mintFor(key, "turn-1", "alice"), 0, "turn-", outcome{Err: "ErrWrongTurn"}},
		{"empty turn id", mintFor(key, "turn-1", "alice"), 0, "", outcome{Err: "ErrWrongTurn"}},
		{"minted for an empty principal", mintFor(key, "turn-1", ""), 0, "turn-1", outcome{Err: "ErrMissingClaim"}},
		{"wrong key", mintFor(RandomSecret(), "turn-1", "alice"), 0, "turn-1", outcome{Err: "ErrBadSignature"}},
		{"tampered principal", func(t *testing.T, clk *clock) string {
			good := strings.Split(mintFor(key, "turn-1", "alice")(t, clk), ".")
			evil := strings.Split(mintFor(key, "turn-1", "mallory")(t, clk), ".")
			return good[0] + "." + evil[1] + "." + good[2]
		}, 0, "turn-1", outcome{Err: "ErrBadSignature"}},
		{"signed with the raw key, not the derived one", func(t *testing.T, clk *clock) string {
			return sign(t, jwt.SigningMethodHS256, key, jwt.MapClaims{
				"iss": turnIssuer, "aud": "turn:turn-1", "sub": "alice", "exp": t0.Add(time.Minute).Unix(),
			}, nil)
		}, 0, "turn-1", outcome{Err: "ErrBadSignature"}},
		{"session token from a dev signer sharing the key", func(t *testing.T, clk *clock) string {
			s, err := NewDevSigner(key, turnIssuer, "turn:turn-1", WithClock(clk.Now))
			if err != nil {
				t.Fatal(err)
			}
			tok, err := s.Mint("alice", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}, 0, "turn-1", outcome{Err: "ErrBadSignature"}},
		{"alg none", func(t *testing.T, clk *clock) string {
			return unsigned(t, map[string]any{"alg": "none"}, jwt.MapClaims{
				"iss": turnIssuer, "aud": "turn:turn-1", "sub": "alice", "exp": t0.Add(time.Minute).Unix(),
			})
		}, 0, "turn-1", outcome{Err: "ErrAlgorithm"}},
		{"garbage", func(*testing.T, *clock) string { return "garbage" }, 0, "turn-1", outcome{Err: "ErrMalformed"}},
		{"empty", func(*testing.T, *clock) string { return "" }, 0, "turn-1", outcome{Err: "ErrMissingToken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			token := tt.mint(t, clk)
			clk.Advance(tt.advance)
			p, err := newTestTurnTokens(t, key, clk).Verify(token, tt.turnID)
			if diff := cmp.Diff(tt.want, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify() mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
			if err != nil {
				assertReasonSafe(t, err, token)
			}
		})
	}
}

// mintFor returns a minter for a TurnTokens keyed by key, on the test's clock.
func mintFor(key []byte, turnID string, p Principal) func(*testing.T, *clock) string {
	return func(t *testing.T, clk *clock) string {
		return newTestTurnTokens(t, key, clk).Mint(turnID, p)
	}
}

func TestTurnTokenIsNotASessionToken(t *testing.T) {
	key := RandomSecret()
	clk := newClock()
	turn := newTestTurnTokens(t, key, clk).Mint("turn-1", "alice")
	// Even with the same secret and the turn's issuer and audience, the session verifier
	// must refuse it: the MAC key differs.
	v, err := NewVerifier(VerifierConfig{Issuer: turnIssuer, Audience: "turn:turn-1", HS256Secret: key, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), turn); sentinelName(err) != "ErrBadSignature" {
		t.Errorf("Verify(turn token) = %v, want ErrBadSignature", err)
	}
}

func TestNewTurnTokens(t *testing.T) {
	tests := []struct {
		name    string
		key     []byte
		ttl     time.Duration
		wantTTL time.Duration
		wantErr string
	}{
		{"short key", []byte("short"), time.Minute, 0, "ErrConfig"},
		{"default ttl", RandomSecret(), 0, DefaultTurnTTL, ""},
		{"custom ttl", RandomSecret(), time.Minute, time.Minute, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewTurnTokens(tt.key, tt.ttl)
			if diff := cmp.Diff(tt.wantErr, sentinelName(err)); diff != "" {
				t.Fatalf("NewTurnTokens() error mismatch (-want +got):\n%s", diff)
			}
			if err == nil && got.ttl != tt.wantTTL {
				t.Errorf("NewTurnTokens() ttl = %v, want %v", got.ttl, tt.wantTTL)
			}
		})
	}
}
