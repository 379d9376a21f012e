package subagents_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/subagents"
)

// Each envelope kept from the model for its principal, signature or version is reported for
// the audit log, with whom the sub-agent acted for; other failures and good envelopes are not.
func TestOnSuppressed(t *testing.T) {
	key := []byte("signing-key-signing-key-signing!")
	tests := []struct {
		name  string
		fault ccsdemo.Fault
		check ccs.CheckOptions
		want  []subagents.Suppression
	}{
		{"wrong principal", ccsdemo.Fault{WrongPrincipal: true}, ccs.CheckOptions{},
			[]subagents.Suppression{{Principal: ccsdemo.Alice, TurnID: "turn-9", Agent: "shop", Enricher: "offers.search", Reason: ccs.ReasonPrincipalMismatch}}},
		{"bad signature", ccsdemo.Fault{BadSignature: true}, ccs.CheckOptions{SigningKey: key},
			[]subagents.Suppression{{Principal: ccsdemo.Alice, TurnID: "turn-9", Agent: "shop", Enricher: "offers.search", Reason: ccs.ReasonBadSignature}}},
		{"major version", ccsdemo.Fault{MajorBump: true}, ccs.CheckOptions{},
			[]subagents.Suppression{{Principal: ccsdemo.Alice, TurnID: "turn-9", Agent: "shop", Enricher: "offers.search", Reason: ccs.ReasonVersionMismatch}}},
		{"status error", ccsdemo.Fault{Status: "error"}, ccs.CheckOptions{}, nil},
		{"good envelope", ccsdemo.Fault{}, ccs.CheckOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := ccsdemo.Options{}
			if tt.check.SigningKey != nil {
				opts.SigningKey = tt.check.SigningKey
			}
			h := newHarness(t, opts, ccs.ClientConfig{})
			if tt.fault != (ccsdemo.Fault{}) {
				h.demo.Inject("offers.search", tt.fault)
			}
			var (
				mu  sync.Mutex
				got []subagents.Suppression
			)
			on := subagents.WithOnSuppressed(func(_ context.Context, s subagents.Suppression) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, s)
			})
			m := &scriptedModel{toolCalls: []llms.ToolCall{call("c1", "search_offers", argsOf("search_offers"))}}
			if _, err := h.agent("shop", m, tt.check, on).Ask(t.Context(), ask.Question{
				Request:   "deals on headphones?",
				Inherited: ask.Inherited{Principal: ccsdemo.Alice, TurnID: "turn-9"},
			}); err != nil {
				t.Fatalf("Ask() = %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("suppressions (-want +got):\n%s", diff)
			}
		})
	}
}
