package principal

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDevSigner(t *testing.T) {
	secret := RandomSecret()
	tests := []struct {
		name    string
		sub     string
		ttl     time.Duration
		advance time.Duration
		want    outcome
	}{
		{"fresh", "bob", time.Hour, 0, outcome{Principal: "bob"}},
		{"default ttl still valid after a day minus a minute", "bob", 0, DefaultDevTTL - time.Minute, outcome{Principal: "bob"}},
		{"expired", "bob", time.Minute, time.Minute + DefaultLeeway + time.Second, outcome{Err: "ErrExpired"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			s, err := NewDevSigner(secret, "switchboard-dev", "switchboard", WithClock(clk.Now))
			if err != nil {
				t.Fatalf("NewDevSigner() = %v", err)
			}
			tok, err := s.Mint(tt.sub, tt.ttl)
			if err != nil {
				t.Fatalf("Mint() = %v", err)
			}
			clk.Advance(tt.advance)
			p, err := s.Verifier().Verify(t.Context(), tok)
			if diff := cmp.Diff(tt.want, outcomeOf(p, err)); diff != "" {
				t.Errorf("Verify(Mint()) mismatch (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
}

func TestDevSignerTokenFailsElsewhere(t *testing.T) {
	a, err := NewDevSigner(RandomSecret(), "switchboard-dev", "switchboard")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewDevSigner(RandomSecret(), "switchboard-dev", "switchboard")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := a.Mint("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verifier().Verify(t.Context(), tok); sentinelName(err) != "ErrBadSignature" {
		t.Errorf("Verify(token of another dev secret) = %v, want ErrBadSignature", err)
	}
}

func TestDevSignerRejects(t *testing.T) {
	s, err := NewDevSigner(RandomSecret(), "iss", "aud")
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"", "alice\nbob"} {
		if _, err := s.Mint(sub, time.Hour); err == nil {
			t.Errorf("Mint(%q) = nil error, want an error", sub)
		}
	}
	for _, tc := range []struct {
		secret   []byte
		iss, aud string
	}{
		{[]byte("short"), "iss", "aud"},
		{RandomSecret(), "", "aud"},
		{RandomSecret(), "iss", ""},
	} {
		if _, err := NewDevSigner(tc.secret, tc.iss, tc.aud); sentinelName(err) != "ErrConfig" {
			t.Errorf("NewDevSigner(%d-byte secret, %q, %q) = %v, want ErrConfig", len(tc.secret), tc.iss, tc.aud, err)
		}
	}
}

func TestRandomSecret(t *testing.T) {
	a, b := RandomSecret(), RandomSecret()
	if len(a) != minSecretLen {
		t.Errorf("len(RandomSecret()) = %d, want %d", len(a), minSecretLen)
	}
	if bytes.Equal(a, b) {
		t.Error("RandomSecret() returned the same bytes twice")
	}
}
