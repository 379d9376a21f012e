package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/principal"
)

// token reads the auth settings serve reads, environment overrides included: a token minted
// for a dev server whose issuer and audience come from SWITCHBOARD_AUTH_* is one it accepts,
// and with SWITCHBOARD_AUTH_MODE=jwt there is no dev server to mint for.
func TestTokenAppliesAuthEnvironment(t *testing.T) {
	environ := envMap(map[string]string{
		devSecretEnv:                testSecret,
		"SWITCHBOARD_AUTH_ISSUER":   "https://id.example.test/",
		"SWITCHBOARD_AUTH_AUDIENCE": "chat-test",
	})
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"token", "--sub", "bob"}, &out, &errOut, environ); code != 0 {
		t.Fatalf("token = exit %d: %s", code, errOut.String())
	}
	v, err := principal.NewVerifier(principal.VerifierConfig{
		Issuer: "https://id.example.test/", Audience: "chat-test", HS256Secret: []byte(testSecret),
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(t.Context(), strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("Verify(token) = %v, want the token of bob for the configured issuer and audience", err)
	}
	if p != "bob" {
		t.Errorf("Verify(token) = %q, want bob", p)
	}

	out.Reset()
	errOut.Reset()
	jwt := envMap(map[string]string{devSecretEnv: testSecret, "SWITCHBOARD_AUTH_MODE": "jwt"})
	if code := run(t.Context(), []string{"token", "--sub", "bob"}, &out, &errOut, jwt); code != 2 {
		t.Errorf("token with SWITCHBOARD_AUTH_MODE=jwt = exit %d, want 2; stdout %q", code, out.String())
	}
}

// A dev server whose config names auth.hs256_secret_env signs with that variable's secret,
// not the dev secret: token mints with the same one.
func TestTokenUsesConfiguredSecret(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "switchboard.yaml")
	if err := os.WriteFile(cfg, []byte("auth: {mode: dev, hs256_secret_env: TEAM_DEV_SECRET}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const teamSecret = "team-dev-secret-team-dev-secret-team-dev-secret"
	environ := envMap(map[string]string{devSecretEnv: testSecret, "TEAM_DEV_SECRET": teamSecret})
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"token", "--sub", "bob", "--config", cfg}, &out, &errOut, environ); code != 0 {
		t.Fatalf("token = exit %d: %s", code, errOut.String())
	}
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := principal.NewVerifier(principal.VerifierConfig{Issuer: c.Auth.Issuer, Audience: c.Auth.Audience, HS256Secret: []byte(teamSecret)})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v.Verify(t.Context(), strings.TrimSpace(out.String())); err != nil || p != "bob" {
		t.Errorf("Verify(token) with the configured secret = %q, %v, want bob", p, err)
	}
}

// --sub " alice " minted a token for " alice ", another user than the alice the chat page's
// dev sign-in (which trims) and the demo's fixtures know; token trims the name as it does.
func TestTokenTrimsTheUserName(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"token", "--sub", " alice "}, &out, &errOut, envMap(map[string]string{devSecretEnv: testSecret})); code != 0 {
		t.Fatalf("token = exit %d: %s", code, errOut.String())
	}
	c := config.Default()
	v, err := principal.NewVerifier(principal.VerifierConfig{Issuer: c.Auth.Issuer, Audience: c.Auth.Audience, HS256Secret: []byte(testSecret)})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v.Verify(t.Context(), strings.TrimSpace(out.String())); err != nil || p != "alice" {
		t.Errorf("Verify(token --sub \" alice \") = %q, %v, want alice", p, err)
	}
}
