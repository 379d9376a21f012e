package subagents_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/subagents"
)

// clock is the demo CCS's "now", so fixture dates are the same in every server of a test.
var clock = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const (
	mismatchMetric = "ps6_envelope_principal_mismatch_total"
	versionMetric  = "ps6_envelope_version_mismatch_total"
)

// unavailableResult is the whole tool result of a suppressed or failed call: nothing else.
const unavailableResult = `{"status":"unavailable","note":"This data is unavailable right now."}`

// harness wires the runtime to real parts: the demo CCS over a real socket, the ccs client,
// the typing registry, the demo definitions, and in-memory metrics, spans and logs.
type harness struct {
	t      *testing.T
	demo   *ccsdemo.Server
	client *ccs.Client
	reg    *ccs.Registry
	defs   *definitions.Set
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	logs   *syncBuffer
	opts   []subagents.Option
}

// newHarness starts a demo CCS configured by demoOpts; cfg tunes the client (BaseURL is set
// here).
func newHarness(t *testing.T, demoOpts ccsdemo.Options, cfg ccs.ClientConfig) *harness {
	t.Helper()
	demoOpts.Now = func() time.Time { return clock }
	demo := ccsdemo.New(demoOpts)
	srv := httptest.NewServer(demo)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	client, err := ccs.NewClient(cfg)
	if err != nil {
		t.Fatalf("ccs.NewClient() = %v", err)
	}
	h := newBareHarness(t)
	h.demo, h.client = demo, client
	return h
}

// newBareHarness has everything but a CCS, for tests that bring their own.
func newBareHarness(t *testing.T) *harness {
	t.Helper()
	reg := ccs.NewRegistry()
	if err := ccsdemo.Register(reg); err != nil {
		t.Fatalf("ccsdemo.Register() = %v", err)
	}
	defs, err := definitions.Load("../demo")
	if err != nil {
		t.Fatalf("definitions.Load(../agents) = %v", err)
	}
	reader := sdkmetric.NewManualReader()
	spans := tracetest.NewSpanRecorder()
	logs := &syncBuffer{}
	return &harness{
		t: t, reg: reg, defs: defs, reader: reader, spans: spans, logs: logs,
		opts: []subagents.Option{
			subagents.WithTelemetry(ask.Telemetry{
				Meters:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
				Tracers: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
				Logger:  slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
			}),
		},
	}
}

// agent instantiates the demo definition id on model, with the harness's CCS client.
func (h *harness) agent(id string, model *scriptedModel, check ccs.CheckOptions, opts ...subagents.Option) *subagents.Agent {
	h.t.Helper()
	return h.agentWith(id, model, h.client, check, opts...)
}

func (h *harness) agentWith(id string, model *scriptedModel, enricher subagents.Enricher, check ccs.CheckOptions, opts ...subagents.Option) *subagents.Agent {
	h.t.Helper()
	def, ok := h.defs.Get(id)
	if !ok {
		h.t.Fatalf("definition %q not in ../agents", id)
	}
	a, err := subagents.New(subagents.Config{Definition: def, Model: model, CCS: enricher, Registry: h.reg, Check: check},
		append(append([]subagents.Option(nil), h.opts...), opts...)...)
	if err != nil {
		h.t.Fatalf("subagents.New(%s) = %v", id, err)
	}
	return a
}

// counter returns the non-zero data points of a counter, keyed by their encoded attribute set
// ("consumer=switchboard"; "" for none). Series at 0 (the envelope counters start there so that
// they are exported before the first mismatch) are left out, like an instrument never recorded to.
func (h *harness) counter(name string) map[string]int64 {
	h.t.Helper()
	return collectCounter(h.t, h.reader, name)
}

func collectCounter(t testing.TB, reader *sdkmetric.ManualReader, name string) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatalf("Collect() = %v", err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("metric %s is %T, want an int64 sum", name, m.Data)
			}
			for _, dp := range sum.DataPoints {
				if dp.Value != 0 {
					out[dp.Attributes.Encoded(attribute.DefaultEncoder())] += dp.Value
				}
			}
		}
	}
	return out
}

// logLines parses the JSON log records written so far.
func (h *harness) logLines() []map[string]any {
	h.t.Helper()
	var out []map[string]any
	for line := range strings.Lines(h.logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			h.t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// alerts returns the security alert records.
func (h *harness) alerts() []map[string]any {
	var out []map[string]any
	for _, rec := range h.logLines() {
		if rec["alert"] != nil {
			out = append(out, rec)
		}
	}
	return out
}

// spanTraceID returns the trace id of the ended span called name ("" when none).
func (h *harness) spanTraceID(name string) string {
	for _, s := range h.spans.Ended() {
		if s.Name() == name {
			return s.SpanContext().TraceID().String()
		}
	}
	return ""
}

// oracle is an unfaulted demo CCS in-process, used to learn what a user's data looks like
// without touching the call record of the server under test.
func oracle(t *testing.T, opts ccsdemo.Options) *ccs.Client {
	t.Helper()
	opts.Now = func() time.Time { return clock }
	c, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL:    "http://oracle.invalid",
		HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(ccsdemo.New(opts))},
	})
	if err != nil {
		t.Fatalf("ccs.NewClient(oracle) = %v", err)
	}
	return c
}

// exclusiveStrings returns the strings in owner's payload of enricher that are not in
// viewer's: what would give away a leak of owner's data into viewer's conversation.
func exclusiveStrings(t *testing.T, enricher string, params map[string]any, owner, viewer string) []string {
	t.Helper()
	c := oracle(t, ccsdemo.Options{})
	fetch := func(p string) map[string]bool {
		resp, err := c.Enrich(t.Context(), ccs.EnricherRequest{Principal: p, EnricherID: enricher, Params: params})
		if err != nil {
			t.Fatalf("oracle Enrich(%s, %s) = %v", p, enricher, err)
		}
		var v any
		if err := json.Unmarshal(resp.Payload, &v); err != nil {
			t.Fatalf("oracle payload of %s: %v", enricher, err)
		}
		set := map[string]bool{}
		collectStrings(v, set)
		return set
	}
	theirs, mine := fetch(owner), fetch(viewer)
	var out []string
	for s := range theirs {
		if !mine[s] && len(s) >= 3 {
			out = append(out, s)
		}
	}
	return out
}

func collectStrings(v any, into map[string]bool) {
	switch v := v.(type) {
	case string:
		into[v] = true
	case map[string]any:
		for _, x := range v {
			collectStrings(x, into)
		}
	case []any:
		for _, x := range v {
			collectStrings(x, into)
		}
	}
}

// parsedResult is a tool result as the tests judge it.
type parsedResult struct {
	Status  string
	HasNote bool
	HasData bool
}

func parseResult(t *testing.T, content string) parsedResult {
	t.Helper()
	var r struct {
		Status string          `json:"status"`
		Note   string          `json:"note"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(content), &r); err != nil {
		t.Fatalf("tool result %q is not JSON: %v", content, err)
	}
	return parsedResult{Status: r.Status, HasNote: r.Note != "", HasData: len(r.Data) > 0 && string(r.Data) != "null"}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of parallel invocations.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
