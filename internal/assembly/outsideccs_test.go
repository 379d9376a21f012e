package assembly

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/stream"
)

const diningAgent = `kind: sub_agent
id: dining
name: Dining
description: >-
  Restaurant reservations: the user's booked tables, dinner and lunch reservations, how many
  guests and at what time.
examples:
  - "do i have a dinner reservation tonight"
  - "what time is my table booked"
  - "show my restaurant reservations"
  - "how many people is the lunch booking for"
  - "which restaurant did i reserve"
  - "my table reservations this week"
prompt: You help with the user's restaurant reservations. Use your tool.
tools:
  - name: my_reservations
    enricher: dining.reservations
    domain_type: reservation_list
    description: The user's restaurant reservations.
`

// A vertical team's agent, added by YAML only, answers from its own CCS over HTTP: its
// payload type is registered nowhere, and reaches the models as the JSON the CCS sent.
func TestYAMLOnlyAgentAgainstAnOutsideCCS(t *testing.T) {
	var calls atomic.Int32
	ccsSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ccs.EnrichPathPrefix+"dining.reservations" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"status": "ok", "principal": r.Header.Get(ccs.HeaderPrincipal), "domain_type": "reservation_list",
			"enricher_id": "dining.reservations", "version": "1.0.0",
			"payload": map[string]any{"reservations": []any{
				map[string]any{"restaurant": "Trattoria Roma", "time": "19:30", "guests": 4},
			}},
			"cache_meta": map[string]any{"cached": false, "cacheable": false},
		})
	}))
	defer ccsSrv.Close()

	dir := agentsWithEdits(t, map[string]map[string]string{"concierge.yaml": {
		"sub_agents: [shop, rewards, support, travel]": "sub_agents: [shop, rewards, support, travel, dining]",
	}})
	if err := os.WriteFile(filepath.Join(dir, "dining.yaml"), []byte(diningAgent), 0o600); err != nil {
		t.Fatal(err)
	}
	ta := newTestApp(t, dir, func(c *config.Config) { c.CCS.URL = ccsSrv.URL })
	events := ta.streamTurn(t, ta.token(t, "alice"), "", "do i have a dinner reservation tonight?")
	var reply string
	for _, ev := range events {
		if ev.Name == "reply.completed" {
			reply = decode[stream.ReplyCompleted](t, ev).Text
		}
	}
	if calls.Load() == 0 {
		t.Fatalf("the dining CCS was never called; reply %q", reply)
	}
	if !strings.Contains(reply, "Trattoria Roma") {
		t.Errorf("reply %q does not carry the CCS's reservation", reply)
	}
}
