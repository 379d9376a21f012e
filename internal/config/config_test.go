package config

import (
	"os"
	"path/filepath"
	"reflect"
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
		{name: "unknown key names its line", body: "ccs: {url: embedded}\nmodles: {}\n", wantErr: `switchboard.yaml:2: unknown key "modles" (did you mean "models"?)`},
		{name: "swapped letters suggest the key", body: "store:\n  driver: sqlite\n  dns: x.db\n", wantErr: `switchboard.yaml:3: unknown key "dns" in store (did you mean "dsn"?)`},
		{name: "nested map keys are checked", body: "models:\n  fast:\n    provder: offline\n", wantErr: `switchboard.yaml:3: unknown key "provder" in models.fast (did you mean "provider"?)`},
		{name: "unclosed brace names its line", body: "turns: {}\nmodels:\n  default: {provider: offline\nstore:\n  driver: sqlite\n", wantErr: "switchboard.yaml:3: invalid YAML"},
		{name: "wrong type names the value", body: "turns:\n  cancel_on_disconnect: maybe\n", wantErr: `switchboard.yaml:2: "maybe" is not true or false`},
		{name: "limits on by default, one set, one off", body: "limits: {turns_running: 2, streams_per_turn: 0}\n", check: func(t *testing.T, c Config) {
			want := Limits{TurnsRunning: 2, TurnsPerMinute: 60, TurnsBurst: 20, StreamsPerPrincipal: 32, StreamsPerTurn: 0}
			if c.Limits != want {
				t.Errorf("limits = %+v, want %+v", c.Limits, want)
			}
		}},
		{name: "negative limit", body: "limits: {turns_per_minute: -1}\n", wantErr: "limits must be"},
		{name: "http timeouts", body: "http: {read_header_timeout: 2s, body_read_timeout: 3s, max_header_bytes: 8192}\n", check: func(t *testing.T, c Config) {
			if want := (HTTP{ReadHeaderTimeout: 2 * time.Second, BodyReadTimeout: 3 * time.Second, MaxHeaderBytes: 8192}); !reflect.DeepEqual(c.HTTP, want) {
				t.Errorf("http = %+v, want %+v", c.HTTP, want)
			}
		}},
		{name: "cors origins", body: "http: {cors_origins: [\"https://app.example.com\", \"http://localhost:3000\"]}\n", check: func(t *testing.T, c Config) {
			if want := []string{"https://app.example.com", "http://localhost:3000"}; !reflect.DeepEqual(c.HTTP.CORSOrigins, want) {
				t.Errorf("cors origins = %q, want %q", c.HTTP.CORSOrigins, want)
			}
		}},
		{name: "cors origin with a path", body: "http: {cors_origins: [\"https://app.example.com/chat\"]}\n", wantErr: "not an origin"},
		{name: "cors origin without a scheme", body: "http: {cors_origins: [\"app.example.com\"]}\n", wantErr: "not an origin"},
		{name: "cors origin with a wildcard host", body: "http: {cors_origins: [\"https://*.example.com\"]}\n", wantErr: "not an origin"},
		{name: "cors origin with the default port", body: "http: {cors_origins: [\"https://app.example.com:443\"]}\n", wantErr: "never matches"},
		{name: "cors origin in capitals", body: "http: {cors_origins: [\"https://App.example.com\"]}\n", wantErr: "never matches"},
		{name: "any cors origin with dev auth", body: "http: {cors_origins: [\"*\"]}\n", wantErr: "refused with dev auth"},
		{name: "any cors origin with jwt auth", body: "auth: {mode: jwt, issuer: https://id.example.com, audience: sb, jwks_url: https://id.example.com/jwks}\nhttp: {cors_origins: [\"*\"]}\n"},
		{name: "tiny header cap", body: "http: {max_header_bytes: 100}\n", wantErr: "max_header_bytes"},
		{name: "api key in the file is refused", body: "models:\n  default: {provider: openai, model: m, api_key: sk-123}\n", wantErr: "api_key"},
		{name: "bad auth mode", body: "auth: {mode: magic}\n", wantErr: `auth mode "magic"`},
		{name: "jwt needs one key source", body: "auth: {mode: jwt, issuer: i, audience: a}\n", wantErr: "exactly one of"},
		{name: "bad store driver", body: "store: {driver: mysql}\n", wantErr: "store driver"},
		{name: "bad duration", body: "turns: {deadline: soon}\n", wantErr: `switchboard.yaml:1: "soon" is not a duration`},
		{name: "breakers default on", body: "", check: func(t *testing.T, c Config) {
			if c.Breakers.ErrorThreshold != 5 || c.Breakers.Window != time.Minute || c.Breakers.HalfOpenAfter != 30*time.Second {
				t.Errorf("breakers = %+v, want 5 failures in 1m, probe after 30s", c.Breakers)
			}
		}},
		{name: "breakers, one key set", body: "breakers: {half_open_after: 10s}\n", check: func(t *testing.T, c Config) {
			if c.Breakers.ErrorThreshold != 5 || c.Breakers.Window != time.Minute || c.Breakers.HalfOpenAfter != 10*time.Second {
				t.Errorf("breakers = %+v, want the defaults but half_open_after 10s", c.Breakers)
			}
		}},
		{name: "negative breaker window", body: "breakers: {window: -1s}\n", wantErr: "breakers.error_threshold, window and half_open_after must be positive"},
		{name: "misspelt breaker key", body: "breakers:\n  treshold: 3\n", wantErr: `switchboard.yaml:2: unknown key "treshold" in breakers`},
		{name: "model fallbacks", body: "models:\n  fast: {provider: offline, fallback: [default]}\n", check: func(t *testing.T, c Config) {
			if got := c.Models["fast"].Fallback; !reflect.DeepEqual(got, []string{"default"}) {
				t.Errorf("models.fast.fallback = %q, want [default]", got)
			}
		}},
		{name: "unknown fallback alias", body: "models:\n  fast: {provider: offline, fallback: [slow]}\n", wantErr: `model "fast": fallback "slow" is not a configured model alias`},
		{name: "fallback cycle", body: "models:\n  a: {provider: offline, fallback: [b]}\n  b: {provider: offline, fallback: [a]}\n", wantErr: "fallbacks form a cycle: a -> b -> a"},
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

// A setting left at dev mode's default where production needs its own is named at start:
// PostgreSQL without a connection string (pgx would be handed SQLite's default file name), and
// jwt mode with the issuer of dev mode's tokens (every real token would be refused).
func TestApplyEnvNamesWhatIsMissing(t *testing.T) {
	key := filepath.Join(t.TempDir(), "key.pem")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		mention string // what the error must say, "" for none
	}{
		{"postgres driver alone", map[string]string{"SWITCHBOARD_STORE_DRIVER": "postgres"}, "needs a connection string"},
		{"postgres driver and dsn", map[string]string{"SWITCHBOARD_STORE_DRIVER": "postgres", "SWITCHBOARD_STORE_DSN": "postgres://sb@db:5432/switchboard"}, ""},
		{"jwt mode alone", map[string]string{"SWITCHBOARD_AUTH_MODE": "jwt", "SWITCHBOARD_AUTH_PUBLIC_KEY_FILE": key}, "needs auth.issuer"},
		{"jwt mode and issuer", map[string]string{"SWITCHBOARD_AUTH_MODE": "jwt", "SWITCHBOARD_AUTH_PUBLIC_KEY_FILE": key, "SWITCHBOARD_AUTH_ISSUER": "https://id.example.com/"}, ""},
		{"defaults", map[string]string{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			err := c.ApplyEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			for _, m := range []string{"needs a connection string", "needs auth.issuer"} {
				if got := err != nil && strings.Contains(err.Error(), m); got != (m == tc.mention) {
					t.Errorf("ApplyEnv(%v) = %v, want %q said: %v", tc.env, err, m, m == tc.mention)
				}
			}
		})
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

// In dev mode the secret auth.hs256_secret_env names is the one tokens are signed with, and
// SWITCHBOARD_DEV_SECRET only stands in when the config names none: `switchboard token`
// chooses so, and serve must agree with it or refuse every token it mints.
func TestDevSecretPrecedence(t *testing.T) {
	const named, dev = "named-secret-named-secret-named-secret", "dev-secret-dev-secret-dev-secret-!!"
	tests := []struct {
		name, file string
		env        map[string]string
		want       string
	}{
		{"hs256_secret_env and the dev secret", "auth: {mode: dev, hs256_secret_env: TEST_KEY}\n", map[string]string{"TEST_KEY": named, "SWITCHBOARD_DEV_SECRET": dev}, named},
		{"the dev secret alone", "auth: {mode: dev}\n", map[string]string{"SWITCHBOARD_DEV_SECRET": dev}, dev},
		{"hs256_secret_env alone", "auth: {mode: dev, hs256_secret_env: TEST_KEY}\n", map[string]string{"TEST_KEY": named}, named},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(writeConfig(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.ApplyEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }); err != nil {
				t.Fatalf("ApplyEnv() = %v", err)
			}
			if c.Auth.HS256Secret != tt.want {
				t.Errorf("ApplyEnv() HS256Secret = %q, want %q", c.Auth.HS256Secret, tt.want)
			}
		})
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

// The README's configuration example must load as written, in an environment that sets none of
// the variables it names for optional features (A2A_TOKEN only matters once a turn reaches a
// remote sub-agent).
func TestREADMEConfigExampleLoads(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## Configuration")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	example, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no ```yaml block under ## Configuration")
	}
	c, err := Load(writeConfig(t, example))
	if err != nil {
		t.Fatalf("Load(README example) = %v", err)
	}
	if err := c.ApplyEnv(func(string) (string, bool) { return "", false }); err != nil {
		t.Fatalf("ApplyEnv(README example, empty environment) = %v", err)
	}
	if c.A2A.CredentialEnv == "" || c.A2A.Credential != "" {
		t.Errorf("a2a = %+v, want credential_env named and unresolved", c.A2A)
	}
}

func TestA2ATrustedServices(t *testing.T) {
	c, err := Load(writeConfig(t, "a2a: {trusted_services: [svc-hub, svc-ops]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"svc-hub", "svc-ops"}, c.A2A.TrustedServices); diff != "" {
		t.Errorf("trusted_services (-want +got):\n%s", diff)
	}
	if _, err := Load(writeConfig(t, "a2a: {trusted_services: [\"\"]}\n")); err == nil || !strings.Contains(err.Error(), "trusted_services") {
		t.Errorf("Load(empty trusted service) = %v, want an error naming trusted_services", err)
	}
}
