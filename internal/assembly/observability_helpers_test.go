package assembly

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/telemetry"
	"github.com/switchboard-ai/switchboard/stream"
)

// observedApp is the whole service wired to real telemetry as `switchboard serve` wires it:
// providers from telemetry.Setup with an in-memory span exporter behind its redaction, the
// Prometheus handler at /metrics, and a JSON logger writing to a buffer.
type observedApp struct {
	*testApp
	spans *tracetest.InMemoryExporter
	logs  *obsBuffer
}

// newObservedApp assembles the service; secrets go to both the span and the log redaction,
// as cmd passes the configured keys to both.
func newObservedApp(t *testing.T, edit func(*config.Config), secrets ...string) *observedApp {
	t.Helper()
	cfg := config.Default()
	cfg.Store.Driver = "memory"
	cfg.Auth.HS256Secret = "test-secret-test-secret-test-secret!"
	cfg.Turns.Deadline = 20 * time.Second
	if edit != nil {
		edit(&cfg)
	}
	spans := tracetest.NewInMemoryExporter()
	tel, err := telemetry.Setup(t.Context(), telemetry.Config{
		ServiceName: "switchboard-test", Exporters: []sdktrace.SpanExporter{spans}, Secrets: secrets,
	})
	if err != nil {
		t.Fatalf("telemetry.Setup() = %v", err)
	}
	logs := &obsBuffer{}
	// Registered first, so it runs last: after the app is closed.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = tel.Shutdown(ctx)
	})
	ta := serveApp(t, Input{
		Config: &cfg, Agents: "../../demo",
		Logger:         telemetry.NewLogger(logs, telemetry.Options{JSON: true, Secrets: secrets}),
		TracerProvider: tel.TracerProvider(), MeterProvider: tel.MeterProvider(), Metrics: tel.MetricsHandler(),
	})
	return &observedApp{testApp: ta, spans: spans, logs: logs}
}

// obsTurnID is the id announced by a stream's turn.started event.
func obsTurnID(t *testing.T, events []stream.WireEvent) string {
	t.Helper()
	if len(events) == 0 || events[0].Name != "turn.started" {
		t.Fatalf("stream does not start with turn.started: %v", events)
	}
	return decode[stream.TurnStarted](t, events[0]).TurnID
}

// obsOutcome is the outcome of a stream's turn.completed event.
func obsOutcome(t *testing.T, events []stream.WireEvent) stream.Outcome {
	t.Helper()
	last := events[len(events)-1]
	if last.Name != "turn.completed" {
		t.Fatalf("stream ends with %s, want turn.completed", last.Name)
	}
	return decode[stream.TurnCompleted](t, last).Outcome
}

// turnSpan returns the exported switchboard.turn span of turn id.
func (oa *observedApp) turnSpan(t *testing.T, id string) tracetest.SpanStub {
	t.Helper()
	for _, s := range oa.spans.GetSpans() {
		if s.Name == "switchboard.turn" && obsSpanAttr(s.Attributes, "switchboard.turn_id") == id {
			return s
		}
	}
	t.Fatalf("no switchboard.turn span for %s", id)
	return tracetest.SpanStub{}
}

func obsSpanAttr(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// obsSpanText is everything a span exporter sends that could carry text: name, status, and the
// attributes of the span, its events and its links, one per line.
func obsSpanText(s tracetest.SpanStub) string {
	var b strings.Builder
	fmt.Fprintf(&b, "span %s status %q\n", s.Name, s.Status.Description)
	writeAttrs := func(prefix string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			fmt.Fprintf(&b, "%s %s=%s\n", prefix, kv.Key, kv.Value.String())
		}
	}
	writeAttrs("attr", s.Attributes)
	for _, ev := range s.Events {
		fmt.Fprintf(&b, "event %s\n", ev.Name)
		writeAttrs("event-attr", ev.Attributes)
	}
	for _, l := range s.Links {
		writeAttrs("link-attr", l.Attributes)
	}
	return b.String()
}

// obsBuffer is a bytes.Buffer that the service's goroutines write to and a test reads.
type obsBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // signalled after each write, for waitLine
}

func (b *obsBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	select {
	case b.signal() <- struct{}{}:
	default:
	}
	return n, err
}

// signal returns the write signal; b.mu is held.
func (b *obsBuffer) signal() chan struct{} {
	if b.wrote == nil {
		b.wrote = make(chan struct{}, 1)
	}
	return b.wrote
}

// waitLine waits for a record that match accepts, written from another goroutine (a
// detached stream logs its end after the client has read it).
func (b *obsBuffer) waitLine(t *testing.T, match func(obsLogLine) bool) obsLogLine {
	t.Helper()
	b.mu.Lock()
	wrote := b.signal()
	b.mu.Unlock()
	timeout := time.After(10 * time.Second)
	for {
		for _, l := range b.lines(t) {
			if match(l) {
				return l
			}
		}
		select {
		case <-wrote:
		case <-timeout:
			t.Fatalf("no such log line in 10s:\n%s", b.String())
		}
	}
}

func (b *obsBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// obsLogLine is one JSON log record, raw and decoded.
type obsLogLine struct {
	raw    string
	fields map[string]any
}

func (l obsLogLine) str(key string) string {
	s, _ := l.fields[key].(string)
	return s
}

// lines decodes every record written so far; a line that is not JSON fails the test.
func (b *obsBuffer) lines(t *testing.T) []obsLogLine {
	t.Helper()
	var out []obsLogLine
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", line, err)
		}
		out = append(out, obsLogLine{raw: line, fields: m})
	}
	return out
}

// scrape GETs /metrics and returns its samples keyed `name{k="v",...}` as written, with the
// otel_scope_* labels the OpenTelemetry exporter adds removed.
func (oa *observedApp) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	resp := oa.do(t, http.MethodGet, "/metrics", "", nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d", resp.StatusCode)
	}
	samples, err := parseMetricsText(resp.Body)
	if err != nil {
		t.Fatalf("GET /metrics: %v", err)
	}
	return samples
}

// parseMetricsText reads the Prometheus text format that promhttp serves by default. It
// handles what that writer produces (no escaped quotes or commas inside label values, which
// our metrics never have) and rejects anything else it cannot read.
func parseMetricsText(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, labels, value := line, "", ""
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				return nil, fmt.Errorf("malformed sample %q", line)
			}
			name, labels, value = line[:i], line[i+1:j], strings.TrimSpace(line[j+1:])
		} else {
			f := strings.Fields(line)
			if len(f) < 2 {
				return nil, fmt.Errorf("malformed sample %q", line)
			}
			name, value = f[0], f[1]
		}
		if f := strings.Fields(value); len(f) > 0 {
			value = f[0] // a timestamp may follow
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("sample %q: %w", line, err)
		}
		var kept []string
		for _, l := range strings.Split(labels, ",") {
			if l != "" && !strings.HasPrefix(l, "otel_scope_") {
				kept = append(kept, l)
			}
		}
		slices.Sort(kept)
		key := name
		if len(kept) > 0 {
			key += "{" + strings.Join(kept, ",") + "}"
		}
		out[key] += v
	}
	return out, sc.Err()
}

// metricFamily sums the samples of one metric name (all label sets), and reports whether any exist.
func metricFamily(samples map[string]float64, name string) (float64, bool) {
	sum, found := 0.0, false
	for k, v := range samples {
		if k == name || strings.HasPrefix(k, name+"{") {
			sum += v
			found = true
		}
	}
	return sum, found
}

// pick returns the samples whose keys are in want; a key with no sample is left out, so that
// cmp.Diff reports it as missing.
func pick(samples, want map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k := range want {
		if v, ok := samples[k]; ok {
			out[k] = v
		}
	}
	return out
}

// seriesOf returns the keys of one metric name's samples, sorted.
func seriesOf(samples map[string]float64, name string) []string {
	var keys []string
	for k := range samples {
		if k == name || strings.HasPrefix(k, name+"{") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// labelNames returns the label names of a sample key, sorted; nil when it has none.
func labelNames(key string) []string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return nil
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSuffix(key[i+1:], "}"), ",") {
		name, _, _ := strings.Cut(l, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// replyOf is the text of a stream's reply.completed event.
func replyOf(t *testing.T, events []stream.WireEvent) string {
	t.Helper()
	for _, ev := range events {
		if ev.Name == "reply.completed" {
			return decode[stream.ReplyCompleted](t, ev).Text
		}
	}
	t.Fatal("stream has no reply.completed")
	return ""
}

func containsMsg(lines []obsLogLine, prefix string) bool {
	return slices.ContainsFunc(lines, func(l obsLogLine) bool { return strings.HasPrefix(l.str("msg"), prefix) })
}
