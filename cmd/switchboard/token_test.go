package main

import (
	"bytes"
	"strings"
	"testing"

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
