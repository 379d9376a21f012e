package llm

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-ai/switchboard/internal/breaker"
	"github.com/switchboard-ai/switchboard/internal/llm/llmtest"
)

// fallbackRig is a registry with "primary" on a fake OpenAI server and "backup" on a fake
// Anthropic server, primary falling back to backup, with its metrics and the span of the
// call recorded.
type fallbackRig struct {
	reg    *Registry
	openai *llmtest.Server
	claude *llmtest.Server
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
}

func newFallbackRig(t *testing.T, openai, claude []llmtest.Step, primary func(*ModelConfig), opts ...Option) *fallbackRig {
	t.Helper()
	r := &fallbackRig{
		openai: llmtest.NewOpenAI(t, openai...),
		claude: llmtest.NewAnthropic(t, claude...),
		reader: sdkmetric.NewManualReader(),
		spans:  tracetest.NewSpanRecorder(),
	}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	p := ModelConfig{Provider: ProviderOpenAI, Model: "gpt-test", BaseURL: r.openai.URL(), APIKey: testKey, Retries: 1, Fallback: []string{"backup"}}
	if primary != nil {
		primary(&p)
	}
	cfgs := map[string]ModelConfig{
		"primary": p,
		"backup":  {Provider: ProviderAnthropic, Model: "claude-test", BaseURL: r.claude.URL(), APIKey: testKey},
	}
	var sl sleeps
	opts = append([]Option{sl.option(), WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader)))}, opts...)
	reg, err := NewRegistry(t.Context(), cfgs, opts...)
	if err != nil {
		t.Fatalf("NewRegistry() = %v", err)
	}
	r.reg = reg
	return r
}

// generate calls primary inside a span named llm.test, as the orchestrator does.
func (r *fallbackRig) generate(t *testing.T, ctx context.Context, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	t.Helper()
	m, err := r.reg.Model("primary")
	if err != nil {
		t.Fatalf("Model(primary) = %v", err)
	}
	ctx, span := r.tp.Tracer("test").Start(ctx, "llm.test")
	defer span.End()
	return m.GenerateContent(ctx, human("hi"), opts...)
}

// span returns the attributes of the last llm.test span and the names of its events.
func (r *fallbackRig) span(t *testing.T) (map[string]string, []string) {
	t.Helper()
	ended := r.spans.Ended()
	if len(ended) == 0 {
		t.Fatal("no span ended")
	}
	s := ended[len(ended)-1]
	attrs := map[string]string{}
	for _, kv := range s.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	var events []string
	for _, e := range s.Events() {
		events = append(events, e.Name)
	}
	return attrs, events
}

func (r *fallbackRig) switches(t *testing.T) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(t.Context(), &rm); err != nil {
		t.Fatalf("Collect() = %v", err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "switchboard_model_fallbacks_total" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				alias, _ := dp.Attributes.Value(attribute.Key("alias"))
				to, _ := dp.Attributes.Value(attribute.Key("to"))
				out[alias.AsString()+">"+to.AsString()] += dp.Value
			}
		}
	}
	return out
}

func downURL(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(http.NotFoundHandler())
	hs.Close()
	return hs.URL + "/v1"
}

func TestFallback(t *testing.T) {
	tests := []struct {
		name       string
		openai     []llmtest.Step
		primary    func(*ModelConfig)
		stream     bool
		wantText   string
		wantOpenAI int // requests that reached the primary's server
		wantClaude int
		wantSwitch map[string]int64
	}{
		{
			name:       "openai answers 500 after its retry, anthropic answers",
			openai:     []llmtest.Step{{Status: http.StatusInternalServerError}},
			wantText:   "from claude",
			wantOpenAI: 2, wantClaude: 1,
			wantSwitch: map[string]int64{"primary>backup": 1},
		},
		{
			name:       "streamed: openai 500 before any text, anthropic streams the reply",
			openai:     []llmtest.Step{{Status: http.StatusInternalServerError}},
			stream:     true,
			wantText:   "from claude",
			wantOpenAI: 2, wantClaude: 1,
			wantSwitch: map[string]int64{"primary>backup": 1},
		},
		{
			name:       "openai down",
			primary:    func(c *ModelConfig) { c.BaseURL = downURL(t) },
			wantText:   "from claude",
			wantOpenAI: 0, wantClaude: 1,
			wantSwitch: map[string]int64{"primary>backup": 1},
		},
		{
			name:       "openai rejects the request",
			openai:     []llmtest.Step{{Status: http.StatusUnauthorized}},
			wantText:   "from claude",
			wantOpenAI: 1, wantClaude: 1,
			wantSwitch: map[string]int64{"primary>backup": 1},
		},
		{
			name:       "openai answers: no fallback",
			openai:     []llmtest.Step{{Text: "from openai"}},
			wantText:   "from openai",
			wantOpenAI: 1, wantClaude: 0,
			wantSwitch: map[string]int64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newFallbackRig(t, tt.openai, []llmtest.Step{{Text: "from claude"}}, tt.primary)
			var c collector
			var opts []llms.CallOption
			if tt.stream {
				opts = append(opts, llms.WithStreamingFunc(c.fn))
			}
			resp, err := rig.generate(t, t.Context(), opts...)
			if err != nil {
				t.Fatalf("GenerateContent() = %v", err)
			}
			if got := resp.Choices[0].Content; got != tt.wantText {
				t.Errorf("reply = %q, want %q", got, tt.wantText)
			}
			if tt.stream {
				if got := strings.Join(c.got(), ""); got != tt.wantText {
					t.Errorf("streamed %q, want %q", got, tt.wantText)
				}
			}
			if got := len(rig.openai.Requests()); got != tt.wantOpenAI {
				t.Errorf("openai requests = %d, want %d", got, tt.wantOpenAI)
			}
			if got := len(rig.claude.Requests()); got != tt.wantClaude {
				t.Errorf("anthropic requests = %d, want %d", got, tt.wantClaude)
			}
			if diff := cmp.Diff(tt.wantSwitch, rig.switches(t)); diff != "" {
				t.Errorf("switchboard_model_fallbacks_total (-want +got):\n%s", diff)
			}
			attrs, events := rig.span(t)
			if len(tt.wantSwitch) > 0 {
				if attrs["switchboard.model_fallback"] != "backup" || attrs["switchboard.model_fallback_from"] != "primary" {
					t.Errorf("span attributes = %v, want switchboard.model_fallback=backup from primary", attrs)
				}
				if diff := cmp.Diff([]string{"llm.fallback"}, events); diff != "" {
					t.Errorf("span events (-want +got):\n%s", diff)
				}
			} else if _, ok := attrs["switchboard.model_fallback"]; ok || len(events) > 0 {
				t.Errorf("span attributes %v, events %v; want no fallback recorded", attrs, events)
			}
		})
	}
}

// TestNoFallbackAfterStreamedText: once the caller has text, a second model's answer would
// run on from the first one's, so the failure is returned as it is.
func TestNoFallbackAfterStreamedText(t *testing.T) {
	rig := newFallbackRig(t,
		[]llmtest.Step{{Text: "Here is what I found so far", Stall: true}},
		[]llmtest.Step{{Text: "from claude"}},
		func(c *ModelConfig) { c.Timeout = 200 * time.Millisecond }, // the stalled stream then fails
	)
	var c collector
	_, err := rig.generate(t, t.Context(), llms.WithStreamingFunc(c.fn))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("GenerateContent() = %v, want ErrUnavailable", err)
	}
	if got := strings.Join(c.got(), ""); got == "" || strings.Contains(got, "claude") {
		t.Errorf("streamed %q, want the primary's first words only", got)
	}
	if got := len(rig.claude.Requests()); got != 0 {
		t.Errorf("anthropic requests = %d, want 0", got)
	}
	if diff := cmp.Diff(map[string]int64{}, rig.switches(t)); diff != "" {
		t.Errorf("switchboard_model_fallbacks_total (-want +got):\n%s", diff)
	}
}

func TestNoFallbackWhenCancelled(t *testing.T) {
	rig := newFallbackRig(t, []llmtest.Step{{Status: http.StatusInternalServerError}}, []llmtest.Step{{Text: "from claude"}}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := rig.generate(t, ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("GenerateContent() = %v, want context.Canceled", err)
	}
	if got := len(rig.claude.Requests()); got != 0 {
		t.Errorf("anthropic requests = %d, want 0", got)
	}
}

func TestFallbackAllFail(t *testing.T) {
	rig := newFallbackRig(t, []llmtest.Step{{Status: http.StatusServiceUnavailable}}, []llmtest.Step{{Status: http.StatusInternalServerError}}, nil)
	_, err := rig.generate(t, t.Context())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), `"primary"`) || !strings.Contains(err.Error(), `fallback "backup" failed too`) {
		t.Errorf("GenerateContent() = %v, want ErrUnavailable naming both aliases", err)
	}
	if a, b := len(rig.openai.Requests()), len(rig.claude.Requests()); a != 2 || b != 3 {
		t.Errorf("requests: openai %d, anthropic %d; want 2 and 3 (each with its own retries)", a, b)
	}
}

// TestFallbackWhenBreakerOpen: with the primary's breaker open, the call goes straight to the
// fallback and the primary's server sees nothing more.
func TestFallbackWhenBreakerOpen(t *testing.T) {
	set, err := breaker.New(breaker.Config{ErrorThreshold: 1}, breaker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("breaker.New() = %v", err)
	}
	rig := newFallbackRig(t, []llmtest.Step{{Status: http.StatusInternalServerError}}, []llmtest.Step{{Text: "from claude"}},
		func(c *ModelConfig) { c.Retries = -1 }, WithBreakers(set))
	for i := range 3 {
		resp, err := rig.generate(t, t.Context())
		if err != nil || resp.Choices[0].Content != "from claude" {
			t.Fatalf("call %d: GenerateContent() = %v, %v; want the fallback's reply", i+1, resp, err)
		}
	}
	if got := len(rig.openai.Requests()); got != 1 {
		t.Errorf("openai requests = %d, want 1 (none once its breaker opened)", got)
	}
	if got := set.State(ModelTarget("primary")); got != breaker.Open {
		t.Errorf("State(model:primary) = %v, want open", got)
	}
	if got := set.State(ModelTarget("backup")); got != breaker.Closed {
		t.Errorf("State(model:backup) = %v, want closed", got)
	}
	if diff := cmp.Diff(map[string]int64{"primary>backup": 3}, rig.switches(t)); diff != "" {
		t.Errorf("switchboard_model_fallbacks_total (-want +got):\n%s", diff)
	}
}

func TestCheckFallbacks(t *testing.T) {
	off := func(fb ...string) ModelConfig { return ModelConfig{Provider: ProviderOffline, Fallback: fb} }
	tests := []struct {
		name    string
		cfgs    map[string]ModelConfig
		wantErr []string // substrings, one per expected problem; nil: valid
		order   map[string][]string
	}{
		{
			name:  "a chain, default implied",
			cfgs:  map[string]ModelConfig{"a": off("b", "default"), "b": off("c"), "c": off()},
			order: map[string][]string{"a": {"a", "b", "c", "default"}, "b": {"b", "c"}, "c": {"c"}},
		},
		{
			name:  "a shared fallback is tried once",
			cfgs:  map[string]ModelConfig{"a": off("b", "c"), "b": off("c"), "c": off()},
			order: map[string][]string{"a": {"a", "b", "c"}},
		},
		{name: "unknown alias", cfgs: map[string]ModelConfig{"a": off("gpt5")}, wantErr: []string{`model "a": fallback "gpt5" is not a configured model alias`}},
		{name: "itself", cfgs: map[string]ModelConfig{"a": off("a")}, wantErr: []string{`cycle: a -> a`}},
		{name: "two aliases", cfgs: map[string]ModelConfig{"a": off("b"), "b": off("a")}, wantErr: []string{`cycle: a -> b -> a`}},
		{
			name:    "a longer cycle and an unknown alias, both reported",
			cfgs:    map[string]ModelConfig{"a": off("b"), "b": off("c", "zz"), "c": off("b")},
			wantErr: []string{`model "b": fallback "zz"`, `model "b": fallbacks form a cycle: b -> c -> b`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFallbacks(tt.cfgs)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckFallbacks() = %v, want nil", err)
				}
				for alias, want := range tt.order {
					if diff := cmp.Diff(want, fallbackOrder(tt.cfgs, alias)); diff != "" {
						t.Errorf("fallbackOrder(%s) (-want +got):\n%s", alias, diff)
					}
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("CheckFallbacks() = %v, want ErrInvalidConfig", err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("CheckFallbacks() = %v, want it to say %q", err, want)
				}
			}
			if got := strings.Count(err.Error(), "\n") + 1; got != len(tt.wantErr) {
				t.Errorf("CheckFallbacks() reported %d problems, want %d: %v", got, len(tt.wantErr), err)
			}
		})
	}
}

func TestRegistryRefusesBadFallbacks(t *testing.T) {
	_, err := NewRegistry(t.Context(), map[string]ModelConfig{"a": {Provider: ProviderOffline, Fallback: []string{"nope"}}})
	if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), `fallback "nope"`) {
		t.Errorf("NewRegistry() = %v, want ErrInvalidConfig naming the fallback", err)
	}
}

// preparedModel records Prepare, like the offline model, which reads the agents' texts then.
type preparedModel struct {
	llms.Model
	prepared bool
}

func (m *preparedModel) Prepare(string, []llms.Tool) { m.prepared = true }

func TestFallbackPreparesAnOfflineFallback(t *testing.T) {
	local := &preparedModel{}
	reg, err := NewRegistry(t.Context(), map[string]ModelConfig{
		"primary": {Provider: ProviderOpenAI, Model: "gpt-test", BaseURL: downURL(t), Fallback: []string{"local"}},
		"local":   {Provider: ProviderOffline},
	}, WithOffline(func() llms.Model { return local }))
	if err != nil {
		t.Fatalf("NewRegistry() = %v", err)
	}
	m, err := reg.Model("primary")
	if err != nil {
		t.Fatalf("Model(primary) = %v", err)
	}
	p, ok := m.(Preparer)
	if !ok {
		t.Fatalf("Model(primary) is %T, want a Preparer", m)
	}
	p.Prepare("system", nil)
	if !local.prepared {
		t.Error("Prepare did not reach the offline fallback")
	}
}
