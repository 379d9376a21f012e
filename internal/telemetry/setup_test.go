package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

func setup(t *testing.T, c Config) *Telemetry {
	t.Helper()
	if c.ServiceName == "" {
		c.ServiceName = "switchboard"
	}
	tel, err := Setup(t.Context(), c)
	if err != nil {
		t.Fatalf("Setup() error = %v", err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

func TestSetupResource(t *testing.T) {
	tel := setup(t, Config{ServiceName: "switchboard", Version: "1.2.3", Instance: "pod-a"})
	got := map[string]string{}
	for _, kv := range tel.Resource().Attributes() {
		got[string(kv.Key)] = kv.Value.String()
	}
	want := map[string]string{
		"service.name":           "switchboard",
		"service.version":        "1.2.3",
		"service.instance.id":    "pod-a",
		"telemetry.sdk.language": "go",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("resource %s = %q, want %q", k, got[k], v)
		}
	}
	if got, want := tel.Resource().SchemaURL(), semconv.SchemaURL; got != want {
		t.Errorf("SchemaURL() = %q, want %q", got, want)
	}
}

func TestSetupGeneratesInstanceID(t *testing.T) {
	a := setup(t, Config{}).Resource()
	b := setup(t, Config{}).Resource()
	ia, _ := a.Set().Value(semconv.ServiceInstanceIDKey)
	ib, _ := b.Set().Value(semconv.ServiceInstanceIDKey)
	if ia.AsString() == "" || ia.AsString() == ib.AsString() {
		t.Errorf("instance ids = %q, %q; want distinct non-empty", ia.AsString(), ib.AsString())
	}
}

func TestSetupInvalidConfig(t *testing.T) {
	tests := []struct {
		name string
		c    Config
	}{
		{"no service name", Config{}},
		{"unknown protocol", Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "http://c:4318", Protocol: "http/json"}}},
		{"unknown compression", Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "http://c:4318/v1/traces", Compression: "zstd"}}},
		{"unknown compression over grpc", Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "http://c:4317", Protocol: ProtocolGRPC, Compression: "zstd"}}},
		{"endpoint without scheme", Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "collector:4317", Protocol: ProtocolGRPC}}},
		{"endpoint without host", Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "http:///v1/traces"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tel, err := Setup(t.Context(), tt.c)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("Setup() error = %v, want %v", err, ErrInvalidConfig)
			}
			if tel != nil {
				t.Errorf("Setup() = %v, want nil", tel)
			}
		})
	}
}

func TestSetupStdoutTracesAreRedacted(t *testing.T) {
	var out bytes.Buffer
	tel := setup(t, Config{Version: "v9", Instance: "i-1", TraceStdout: true, Stdout: &out, Secrets: []string{testRegistered}})
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "turn")
	span.SetAttributes(attribute.String("turn.id", "t-1"), attribute.String("detail", "key "+testRegistered))
	span.End()

	// stdout exports synchronously, so the span is there before Shutdown.
	var got struct {
		Name       string
		Attributes []struct {
			Key   string
			Value struct{ Value any }
		}
		Resource []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	if err := json.NewDecoder(&out).Decode(&got); err != nil {
		t.Fatalf("decode stdout span: %v\n%s", err, out.String())
	}
	if got.Name != "turn" {
		t.Errorf("span name = %q, want turn", got.Name)
	}
	attrs := map[string]any{}
	for _, a := range got.Attributes {
		attrs[a.Key] = a.Value.Value
	}
	if diff := cmp.Diff(map[string]any{"turn.id": "t-1", "detail": "key " + Redacted}, attrs); diff != "" {
		t.Errorf("span attributes mismatch (-want +got):\n%s", diff)
	}
	res := map[string]any{}
	for _, a := range got.Resource {
		res[a.Key] = a.Value.Value
	}
	if res["service.version"] != "v9" || res["service.instance.id"] != "i-1" {
		t.Errorf("span resource = %v, want service.version v9 and service.instance.id i-1", res)
	}
}

func TestSetupWithoutExportersStillRecords(t *testing.T) {
	tel := setup(t, Config{})
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "turn")
	defer span.End()
	if !span.SpanContext().IsValid() || !span.IsRecording() {
		t.Errorf("span valid=%v recording=%v, want both true", span.SpanContext().IsValid(), span.IsRecording())
	}
}

func TestSetupPropagatesTraceparent(t *testing.T) {
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		spanID  = "00f067aa0ba902b7"
	)
	tests := []struct {
		name        string
		dev         bool
		flags       string
		wantSampled bool
	}{
		{"sampled parent", false, "01", true},
		{"unsampled parent is honoured", false, "00", false},
		{"dev samples regardless", true, "00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := tracetest.NewInMemoryExporter()
			tel := setup(t, Config{Dev: tt.dev, Exporters: []sdktrace.SpanExporter{mem}})

			h := http.Header{}
			h.Set("traceparent", "00-"+traceID+"-"+spanID+"-"+tt.flags)
			h.Set("baggage", "episode.id=ep-7")
			ctx := otel.GetTextMapPropagator().Extract(t.Context(), propagation.HeaderCarrier(h))
			_, span := tel.TracerProvider().Tracer("test").Start(ctx, "turn")
			sc := span.SpanContext()
			span.End()

			if got := sc.TraceID().String(); got != traceID {
				t.Errorf("trace id = %s, want %s", got, traceID)
			}
			if got := baggage.FromContext(ctx).Member("episode.id").Value(); got != "ep-7" {
				t.Errorf("baggage episode.id = %q, want ep-7", got)
			}
			spans := mem.GetSpans()
			if !tt.wantSampled {
				if len(spans) != 0 {
					t.Errorf("exported %d spans, want 0 for an unsampled parent", len(spans))
				}
				return
			}
			if len(spans) != 1 {
				t.Fatalf("exported %d spans, want 1", len(spans))
			}
			if got := spans[0].Parent.SpanID().String(); got != spanID {
				t.Errorf("parent span id = %s, want %s", got, spanID)
			}
			if !spans[0].Parent.IsRemote() {
				t.Errorf("parent is not remote")
			}
		})
	}
}

// promInstruments records one value on each metric the service exports, created the way
// orchestrator and subagents create them.
func promInstruments(t *testing.T, mp metric.MeterProvider) {
	t.Helper()
	ctx := t.Context()
	m := mp.Meter("test")
	counters := []struct {
		name  string
		attrs []attribute.KeyValue
	}{
		{"switchboard_turns_total", []attribute.KeyValue{attribute.String("outcome", "ok")}},
		{"switchboard_fanout_cap_exceeded_total", nil},
		{"switchboard_subagent_outcomes_total", []attribute.KeyValue{attribute.String("agent", "shop"), attribute.String("outcome", "success")}},
		{"switchboard_status_events_total", []attribute.KeyValue{attribute.String("agent", "shop"), attribute.String("event", "searching"), attribute.String("policy", "forward")}},
		{"ps6_envelope_principal_mismatch_total", []attribute.KeyValue{attribute.String("consumer", "switchboard")}},
		{"ps6_envelope_version_mismatch_total", nil},
	}
	for _, c := range counters {
		ctr, err := m.Int64Counter(c.name)
		if err != nil {
			t.Fatalf("Int64Counter(%s) error = %v", c.name, err)
		}
		ctr.Add(ctx, 1, metric.WithAttributes(c.attrs...))
	}
	seconds := []struct {
		name  string
		attrs []attribute.KeyValue
	}{
		{"switchboard_turn_duration_seconds", nil},
		{"switchboard_subagent_duration_seconds", []attribute.KeyValue{attribute.String("agent", "shop")}},
		{"switchboard_dispatch_overhead_seconds", nil},
	}
	for _, h := range seconds {
		hist, err := m.Float64Histogram(h.name, metric.WithUnit("s"))
		if err != nil {
			t.Fatalf("Float64Histogram(%s) error = %v", h.name, err)
		}
		hist.Record(ctx, 0.25, metric.WithAttributes(h.attrs...))
	}
	intents, err := m.Int64Histogram("switchboard_intent_count")
	if err != nil {
		t.Fatalf("Int64Histogram() error = %v", err)
	}
	intents.Record(ctx, 2)
}

func TestMetricsHandlerKeepsDesignNames(t *testing.T) {
	tel := setup(t, Config{Version: "1.0.0"})
	promInstruments(t, tel.MeterProvider())

	srv := httptest.NewServer(tel.MetricsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics status = %d", resp.StatusCode)
	}
	text := string(body)

	for _, want := range []string{
		"# TYPE switchboard_turns_total counter",
		"# TYPE switchboard_turn_duration_seconds histogram",
		"# TYPE switchboard_intent_count histogram",
		"# TYPE switchboard_fanout_cap_exceeded_total counter",
		"# TYPE switchboard_subagent_duration_seconds histogram",
		"# TYPE switchboard_subagent_outcomes_total counter",
		"# TYPE switchboard_dispatch_overhead_seconds histogram",
		"# TYPE switchboard_status_events_total counter",
		"# TYPE ps6_envelope_principal_mismatch_total counter",
		"# TYPE ps6_envelope_version_mismatch_total counter",
		`service_name="switchboard"`, // target_info carries the resource
		"go_goroutines",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	samples := []struct {
		name   string
		labels []string
	}{
		{"switchboard_turns_total", []string{`outcome="ok"`}},
		{"switchboard_subagent_outcomes_total", []string{`agent="shop"`, `outcome="success"`}},
		{"switchboard_status_events_total", []string{`agent="shop"`, `event="searching"`, `policy="forward"`}},
		{"ps6_envelope_principal_mismatch_total", []string{`consumer="switchboard"`}},
		{"switchboard_subagent_duration_seconds_bucket", []string{`agent="shop"`}},
	}
	for _, sm := range samples {
		if !hasSample(text, sm.name, sm.labels...) {
			t.Errorf("/metrics has no %s sample with labels %v", sm.name, sm.labels)
		}
	}
	// The exporter must not have appended a second suffix to names that already have one.
	for _, bad := range []string{"_total_total", "_seconds_seconds"} {
		if strings.Contains(text, bad) {
			t.Errorf("/metrics contains %q", bad)
		}
	}
}

// hasSample reports whether the exposition text has a sample of metric name carrying every
// one of labels (label order in the exposition is not ours to choose).
func hasSample(text, name string, labels ...string) bool {
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		if !slices.ContainsFunc(labels, func(l string) bool { return !strings.Contains(line, l) }) {
			return true
		}
	}
	return false
}

func TestSetupTwiceHasSeparateRegistries(t *testing.T) {
	a, b := setup(t, Config{}), setup(t, Config{})
	promInstruments(t, a.MeterProvider())
	rec := httptest.NewRecorder()
	b.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if strings.Contains(rec.Body.String(), "switchboard_turns_total") {
		t.Errorf("second Telemetry serves the first one's metrics")
	}
}

func TestShutdownIsIdempotent(t *testing.T) {
	tel := setup(t, Config{})
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown() error = %v", err)
	}
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Errorf("second Shutdown() error = %v, want nil", err)
	}
	// A span after shutdown is not recorded, and nothing panics.
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "late")
	span.End()
	if span.IsRecording() {
		t.Errorf("span after Shutdown is recording")
	}
}
