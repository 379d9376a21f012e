package evals

import (
	"bytes"
	"strings"
	"testing"
)

// rateLimitedTarget is a target that has waited out a server's rate limit.
type rateLimitedTarget struct {
	*fakeTarget
	waits int64
}

func (t *rateLimitedTarget) RateLimitWaits() int64 { return t.waits }

// When the server's rate limit slows a run, the progress says which config keys lift it.
func TestProgressSaysHowToLiftTheRateLimit(t *testing.T) {
	path := writeFile(t, t.TempDir(), "d.yaml", `name: d
cases:
  - id: one
    turns:
      - {user: "deals", expect: [shop]}
`)
	var progress bytes.Buffer
	target := &rateLimitedTarget{fakeTarget: &fakeTarget{}, waits: 3}
	if _, err := Run(t.Context(), Config{Datasets: []string{path}, Target: target, SubAgents: testAgents, NoCoverageGate: true, Progress: &progress}); err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	for _, want := range []string{"3 waits for the server's rate limit", "limits:", "turns_per_minute", "turns_burst"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress %q lacks %q", progress.String(), want)
		}
	}
}
