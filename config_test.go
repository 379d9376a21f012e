package switchboard

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/config"
)

func TestConfigRoundTrip(t *testing.T) {
	in := config.Default()
	in.CCS.Faults = map[string]config.Fault{"points.balance": {Status: "error", Times: 2}}
	in.Flags = map[string]bool{"beta": true}
	got := fromInternal(in).internal()
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("fromInternal(c).internal() differs from c (-want +got):\n%s", diff)
	}
}

func TestLoadConfigAppliesEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.yaml")
	yaml := "models:\n  fast: {provider: openai, model: gpt-4o-mini, api_key_env: SB_TEST_KEY}\nstore: {driver: memory}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SB_TEST_KEY", "sk-test")
	t.Setenv("SWITCHBOARD_TURNS_DEADLINE", "42s")
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatalf("LoadConfig() = %v", err)
	}
	if got := cfg.Models["fast"].APIKey; got != "sk-test" {
		t.Errorf("Models[fast].APIKey = %q, want the value of SB_TEST_KEY", got)
	}
	if got := cfg.Turns.Deadline; got != 42*time.Second {
		t.Errorf("Turns.Deadline = %v, want 42s from SWITCHBOARD_TURNS_DEADLINE", got)
	}
	if cfg.Models["default"].Provider != "offline" {
		t.Errorf("Models[default] = %+v, want the offline model added", cfg.Models["default"])
	}
}

func TestLoadConfigRefusesUnknownKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "switchboard.yaml")
	if err := os.WriteFile(path, []byte("stor: {driver: memory}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err == nil {
		t.Error("LoadConfig(unknown key) = nil error, want one naming the line")
	}
}

func TestConfigLiteral(t *testing.T) {
	cfg := Config{
		Models: map[string]ModelConfig{"default": {Provider: "offline"}},
		Store:  StoreConfig{Driver: "memory"},
		Auth:   AuthConfig{Mode: "dev"},
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
	cfg.Store.Driver = "mongo"
	if err := cfg.Validate(); err == nil {
		t.Error("Validate(store driver mongo) = nil, want an error")
	}
}
