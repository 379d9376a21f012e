package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ccs-demo reads only the ccs section of the config it is given: the serve config of a
// deployment, whose model keys are not set where the demo CCS runs, must not stop it, while a
// ccs secret it names and cannot find still does. A cancelled context makes ccs-demo stop as
// soon as it listens.
func TestCCSDemoReadsOnlyTheCCSSection(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "switchboard.yaml")
	body := "models:\n  default: {provider: openai, model: gpt-4o-mini, api_key_env: TEST_UNSET_OPENAI_KEY}\n" +
		"ccs: {url: embedded, credential_env: TEST_CCS_TOKEN}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		env      map[string]string
		wantCode int
		wantErr  string
	}{
		{"model key unset", map[string]string{"TEST_CCS_TOKEN": "ccs-secret"}, 0, ""},
		{"ccs credential unset", nil, 1, "TEST_CCS_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			var out, errOut bytes.Buffer
			code := run(ctx, []string{"ccs-demo", "--addr", "127.0.0.1:0", "--config", cfg}, &out, &errOut, envMap(tt.env))
			if code != tt.wantCode || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("ccs-demo --config = %d, stderr %q; want %d naming %q", code, errOut.String(), tt.wantCode, tt.wantErr)
			}
		})
	}
}

// A listen address that cannot be used is named with its flag and what to do about it, for
// both listening commands; net.Listen's own error named neither the flag nor a remedy.
func TestListenErrorsNameTheFlag(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	env := envMap(map[string]string{"SWITCHBOARD_STORE_DRIVER": "memory"})
	// serve takes its address before it builds the service: a port in use is said first, not
	// after the definitions are read (these fail to load).
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "shop.yaml"), []byte("kind: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ccs-demo", "--addr", busy.Addr().String()}, []string{"--addr " + busy.Addr().String(), "another process already listens there"}},
		{[]string{"serve", "--dev", "--watch=false", "--agents", broken, "--addr", busy.Addr().String()}, []string{"--addr " + busy.Addr().String(), "another process already listens there"}},
		{[]string{"ccs-demo", "--addr", "nonsense"}, []string{`--addr "nonsense"`, "missing port", "write HOST:PORT"}},
		{[]string{"serve", "--dev", "--watch=false", "--addr", busy.Addr().String()}, []string{"--addr " + busy.Addr().String(), "another process already listens there"}},
	} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), tc.args, &out, &errOut, env)
		for _, w := range tc.want {
			if code != 1 || !strings.Contains(errOut.String(), w) {
				t.Errorf("%q = exit %d, stderr %q; want exit 1 and %q", tc.args, code, errOut.String(), w)
			}
		}
	}
}

// A broken fixture is named as --fixtures gives its folder, with its line; it was named
// relative to that folder ("ccsdemo: fixture x.json: ...").
func TestCCSDemoNamesABrokenFixture(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "garden.plants.json"), "{\n  \"domain_type\": [}\n")
	var out, errOut bytes.Buffer
	want := filepath.Join(dir, "garden.plants.json") + ":2: invalid character"
	if code := run(t.Context(), []string{"ccs-demo", "--addr", "127.0.0.1:0", "--fixtures", dir}, &out, &errOut, envMap(nil)); code != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("ccs-demo = %d, stderr %q; want 1 and %q", code, errOut.String(), want)
	}
}
