package assembly

import (
	"context"
	"log/slog"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/llm"
	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// Token usage reported by a real provider reaches switchboard_llm_tokens_total by alias.
func TestLLMTokenUsageIsMetered(t *testing.T) {
	fake := llmtest.NewOpenAI(t, llmtest.Step{Match: llmtest.Any(), Text: "Hello! How can I help?",
		Usage: llmtest.Usage{InputTokens: 120, OutputTokens: 7}})
	reader := sdkmetric.NewManualReader()
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Models = map[string]llm.ModelConfig{llm.DefaultAlias: {Provider: "openai", Model: "gpt-test", BaseURL: fake.URL(), APIKey: "sk-test"}}
	a, err := New(t.Context(), Input{Config: &cfg, Agents: "../../demo", Logger: slog.New(slog.DiscardHandler),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rec, _, err := a.Service.Start(t.Context(), orchestrator.StartRequest{Principal: "alice", Message: "hi there"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, err := range a.Hub.Follow(ctx, rec.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "switchboard_llm_tokens_total" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				alias, _ := dp.Attributes.Value("alias")
				dir, _ := dp.Attributes.Value("direction")
				got[alias.AsString()+"/"+dir.AsString()] += dp.Value
			}
		}
	}
	if got["default/input"] != 120 || got["default/output"] != 7 {
		t.Errorf("switchboard_llm_tokens_total = %v, want default/input 120 and default/output 7", got)
	}
}
