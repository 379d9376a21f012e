package assembly

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/stream"
)

// leaks matches what must never reach a client: codes, statuses, enricher ids, partial[]
// reasons, Go internals.
var leaks = regexp.MustCompile(`(?i)principal_mismatch|missing_principal|status_error|version_mismatch|bad_signature|` +
	`points\.balance|offers\.search|upstream|\b(400|403|500|503)\b|goroutine|panic|\.go:\d|"status"|unavailable:|partial\[`)

// Each way a sub-agent can fail, injected at the demo CCS for the rewards sub-agent during a
// two-intent turn: the reply keeps the offers, acknowledges the points in words, and nothing
// internal reaches the stream.
func TestFailureAxesAreAcknowledgedInWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault ccsdemo.Fault
		edit  func(*config.Config)
		want  stream.Outcome
	}{
		{"status error", ccsdemo.Fault{Status: "error"}, nil, stream.OutcomeDegraded},
		{"wrong principal", ccsdemo.Fault{WrongPrincipal: true}, nil, stream.OutcomeDegraded},
		{"major version", ccsdemo.Fault{MajorBump: true}, nil, stream.OutcomeDegraded},
		{"http 500", ccsdemo.Fault{HTTPStatus: 500}, nil, stream.OutcomeDegraded},
		{"bad signature", ccsdemo.Fault{BadSignature: true}, func(c *config.Config) {
			c.CCS.SigningKey = "demo-signing-key-demo-signing-key"
		}, stream.OutcomeDegraded},
		{"hang", ccsdemo.Fault{Hang: true}, func(c *config.Config) {
			c.CCS.Timeout = 300 * time.Millisecond
		}, stream.OutcomeDegraded},
		{"partial", ccsdemo.Fault{Status: "partial"}, nil, stream.OutcomeDegraded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestApp(t, "../../demo", tc.edit)
			ta.Demo.Inject("points.balance", tc.fault)
			events := ta.streamTurn(t, ta.token(t, "alice"), "", "any deals on running shoes? and how many points do I have?")

			var reply string
			var outcome stream.Outcome
			for _, ev := range events {
				if loc := leaks.FindIndex(ev.Data); loc != nil && ev.Name != "turn.started" {
					t.Errorf("%s event leaks %q: %s", ev.Name, ev.Data[loc[0]:loc[1]], ev.Data)
				}
				switch ev.Name {
				case "reply.completed":
					reply = decode[stream.ReplyCompleted](t, ev).Text
				case "turn.completed":
					outcome = decode[stream.TurnCompleted](t, ev).Outcome
				}
			}
			if outcome != tc.want {
				t.Errorf("outcome = %q, want %q", outcome, tc.want)
			}
			low := strings.ToLower(reply)
			if !strings.Contains(low, "pegasus") {
				t.Errorf("reply lost the offers: %q", reply)
			}
			if tc.name == "partial" {
				if !strings.Contains(low, "points") || !strings.Contains(low, "incomplete") {
					t.Errorf("partial data should come with a caveat: %q", reply)
				}
				return
			}
			if !regexp.MustCompile(`couldn't|could not|unable|unavailable|not available`).MatchString(low) {
				t.Errorf("reply does not acknowledge the missing points in words: %q", reply)
			}
		})
	}
}

// copyAgents copies the demo agents into a temp folder, letting edit rewrite each file.
func copyAgents(t *testing.T, edit func(name string, data []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("../../demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../../demo", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			data = edit(e.Name(), data)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A CCS that hangs trips the sub-agent's own timeout; its sibling still answers.
func TestHangingCCSTripsPerAgentTimeout(t *testing.T) {
	dir := copyAgents(t, func(name string, data []byte) []byte {
		if name != "rewards.yaml" {
			return data
		}
		out := regexp.MustCompile(`(?m)^timeout: .*$`).ReplaceAll(data, []byte("timeout: 300ms"))
		if bytes.Equal(out, data) {
			t.Fatal("rewards.yaml has no timeout line to shorten")
		}
		return out
	})
	ta := newTestApp(t, dir, nil)
	ta.Demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
	events := ta.streamTurn(t, ta.token(t, "alice"), "", "any deals on running shoes? and how many points do I have?")
	turnID := decode[stream.TurnStarted](t, events[0]).TurnID
	rec, err := ta.Service.Turn(t.Context(), "alice", turnID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ask.Outcome{}
	for _, a := range rec.Decision.Agents {
		got[a.Agent] = a.Outcome
	}
	if got["rewards"] != ask.OutcomeTimeout || got["shop"] != ask.OutcomeOK {
		t.Errorf("outcomes = %v, want rewards timeout and shop ok", got)
	}
	if !strings.Contains(strings.ToLower(rec.Reply), "pegasus") {
		t.Errorf("reply lost the offers: %q", rec.Reply)
	}
}
