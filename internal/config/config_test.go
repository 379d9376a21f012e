package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "switchboard.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		wantErr string // substring; empty means success
		check   func(t *testing.T, c Config)
	}{
		{name: "empty file is all defaults", body: "", check: func(t *testing.T, c Config) {
			if diff := cmp.Diff(Default(), c); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		}},
		{name: "models keep an offline default", body: "models:\n  fast: {provider: offline}\n", check: func(t *testing.T, c Config) {
			if c.Models["default"].Provider != "offline" || c.Models["fast"].Provider != "offline" {
				t.Errorf("models = %+v", c.Models)
			}
		}},
		{name: "turns and store", body: "turns: {deadline: 90s, cancel_on_disconnect: true}\nstore: {driver: memory}\n", check: func(t *testing.T, c Config) {
			if c.Turns.Deadline != 90*time.Second || !c.Turns.CancelOnDisconnect || c.Store.Driver != "memory" {
				t.Errorf("turns = %+v, store = %+v", c.Turns, c.Store)
			}
		}},
		{name: "limits on by default, one set, one off", body: "limits: {turns_running: 2, streams_per_turn: 0}\n", check: func(t *testing.T, c Config) {
			want := Limits{TurnsRunning: 2, TurnsPerMinute: 60, TurnsBurst: 20, StreamsPerPrincipal: 32, StreamsPerTurn: 0}
			if c.Limits != want {
				t.Errorf("limits = %+v, want %+v", c.Limits, want)
			}
		}},
		{name: "negative limit", body: "limits: {turns_per_minute: -1}\n", wantErr: "limits must be"},
		{name: "http timeouts", body: "http: {read_header_timeout: 2s, body_read_timeout: 3s, max_header_bytes: 8192}\n", check: func(t *testing.T, c Config) {
			if want := (HTTP{ReadHeaderTimeout: 2 * time.Second, BodyReadTimeout: 3 * time.Second, MaxHeaderBytes: 8192}); c.HTTP != want {
				t.Errorf("http = %+v, want %+v", c.HTTP, want)
			}
		}},
		{name: "tiny header cap", body: "http: {max_header_bytes: 100}\n", wantErr: "max_header_bytes"},
		{name: "unknown key names its line", body: "ccs: {url: embedded}\nmodles: {}\n", wantErr: "line 2"},
		{name: "api key in the file is refused", body: "models:\n  default: {provider: openai, model: m, api_key: sk-123}\n", wantErr: "api_key"},
		{name: "bad auth mode", body: "auth: {mode: magic}\n", wantErr: `auth mode "magic"`},
		{name: "jwt needs one key source", body: "auth: {mode: jwt, issuer: i, audience: a}\n", wantErr: "exactly one of"},
		{name: "bad store driver", body: "store: {driver: mysql}\n", wantErr: "store driver"},
		{name: "bad duration", body: "turns: {deadline: soon}\n", wantErr: "soon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(writeConfig(t, tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Load() error = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("Load() error = %v, want one mentioning %q", err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}

func TestApplyEnvValidatesModels(t *testing.T) {
	c, err := Load(writeConfig(t, "models:\n  default: {provider: openai}\n"))
	if err != nil {
		t.Fatalf("Load() = %v: models are checked once keys are resolved", err)
	}
	if err := c.ApplyEnv(func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("ApplyEnv() error = %v, want the invalid default model named", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); err == nil {
		t.Error("Load(missing) = nil error")
	}
}

func TestApplyEnv(t *testing.T) {
	c, err := Load(writeConfig(t, `models:
  default: {provider: openai, model: m, api_key_env: TEST_OPENAI_KEY}
ccs: {url: "http://ccs:8081", credential_env: TEST_CCS_TOKEN}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"TEST_OPENAI_KEY":                  "sk-from-env",
		"TEST_CCS_TOKEN":                   "ccs-token",
		"SWITCHBOARD_STORE_DRIVER":         "memory",
		"SWITCHBOARD_TURNS_DEADLINE":       "45s",
		"SWITCHBOARD_CANCEL_ON_DISCONNECT": "true",
		"SWITCHBOARD_DEV_SECRET":           "dev-secret-dev-secret-dev-secret-!!",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if err := c.ApplyEnv(lookup); err != nil {
		t.Fatalf("ApplyEnv() = %v", err)
	}
	got := []any{c.Models["default"].APIKey, c.CCS.Credential, c.Store.Driver, c.Turns.Deadline, c.Turns.CancelOnDisconnect, c.Auth.HS256Secret}
	want := []any{"sk-from-env", "ccs-token", "memory", 45 * time.Second, true, "dev-secret-dev-secret-dev-secret-!!"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestApplyEnvReportsEveryProblem(t *testing.T) {
	c, err := Load(writeConfig(t, `models:
  default: {provider: openai, model: m, api_key_env: MISSING_KEY}
ccs: {url: embedded, signing_key_env: MISSING_SIGNING}
`))
	if err != nil {
		t.Fatal(err)
	}
	err = c.ApplyEnv(func(k string) (string, bool) {
		if k == "SWITCHBOARD_TURNS_DEADLINE" {
			return "forever", true
		}
		return "", false
	})
	for _, want := range []string{"MISSING_KEY", "MISSING_SIGNING", "SWITCHBOARD_TURNS_DEADLINE"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ApplyEnv() error = %v, want it to name %s", err, want)
		}
	}
}

// FuzzLoad feeds arbitrary YAML to the loader: it must fail cleanly, never panic.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{"", "models: {default: {provider: offline}}", "auth: {mode: jwt}", "turns: [1, 2]", "a: &x [*x]", "ccs:\n  faults:\n    x: {latency: 1s}"} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = Load(path)
	})
}
