package subagents_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// A payload the sub-agent rejects is logged with why, so that a domain_type that is not the
// tool's can be found from the log; the why never quotes the payload.
func TestRejectedPayloadLogsWhy(t *testing.T) {
	const envelope = `{"status":"ok","principal":"alice","domain_type":%q,"enricher_id":"points.balance","version":"1.0.0","payload":%s}`
	for _, tc := range []struct {
		name, domainType, payload string
		want                      []string // in the error attribute
		secret                    string   // payload text that must not be logged
	}{
		{
			name: "domain type not the tool's", domainType: "points", payload: `{"points":99999}`,
			want:   []string{`domain_type "points"`, `domain_type "points_balance"`, "get_points_balance"},
			secret: "99999",
		},
		{
			name: "number that does not fit", domainType: "points_balance", payload: `{"points":12345.678}`,
			want:   []string{"number", "points", "int"},
			secret: "12345.678",
		},
		{
			name: "string where a number belongs", domainType: "points_balance", payload: `{"points":"hunter2-token"}`,
			want:   []string{"string", "points", "int"},
			secret: "hunter2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := fmt.Sprintf(envelope, tc.domainType, tc.payload)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			client, err := ccs.NewClient(ccs.ClientConfig{BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			h := newBareHarness(t)
			m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "get_points_balance", "{}")}}
			a := h.agentWith("rewards", m, client, ccs.CheckOptions{})
			if _, err := a.Ask(t.Context(), ask.Question{Request: "my points", Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "t"}}); err != nil {
				t.Fatal(err)
			}
			var rejected []map[string]any
			for _, rec := range h.logLines() {
				if rec["msg"] == "ccs payload rejected" {
					rejected = append(rejected, rec)
				}
			}
			if len(rejected) != 1 {
				t.Fatalf("log records %q = %v, want one", "ccs payload rejected", rejected)
			}
			why, _ := rejected[0]["error"].(string)
			for _, w := range tc.want {
				if !strings.Contains(why, w) {
					t.Errorf("error attribute = %q, want it to name %q", why, w)
				}
			}
			if strings.Contains(h.logs.String(), tc.secret) {
				t.Errorf("logs quote the payload's %q:\n%s", tc.secret, h.logs.String())
			}
		})
	}
}
