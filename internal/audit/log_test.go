package audit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// logHarness is a Log over a recorder of the test's choosing, with a clock the test moves and
// ticks the test sends.
type logHarness struct {
	*Log
	mem    *Memory
	reader *sdkmetric.ManualReader
	logs   *syncBuffer
	ticks  chan time.Time

	mu  sync.Mutex
	now time.Time
}

func newLogHarness(t *testing.T, rec Recorder, queue int) *logHarness {
	t.Helper()
	h := &logHarness{mem: NewMemory(), reader: sdkmetric.NewManualReader(), logs: &syncBuffer{},
		ticks: make(chan time.Time), now: time.Date(2026, 11, 27, 12, 30, 10, 0, time.UTC)}
	if rec == nil {
		rec = h.mem
	}
	l, err := start(Config{
		Recorder: rec, QueueSize: queue,
		Logger: slog.New(slog.NewJSONHandler(h.logs, nil)),
		Meters: sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader)),
		Now:    h.clock,
	}, h.ticks)
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	h.Log = l
	t.Cleanup(func() { _ = l.Close() })
	return h
}

func (h *logHarness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

func (h *logHarness) advance(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = h.now.Add(d)
}

func (h *logHarness) entries(t *testing.T) []Entry {
	t.Helper()
	got, err := h.mem.ReadAudit(t.Context(), Query{})
	if err != nil {
		t.Fatalf("ReadAudit() = %v", err)
	}
	return got
}

// failures reads switchboard_audit_write_failures_total.
func (h *logHarness) failures(t *testing.T) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "switchboard_audit_write_failures_total" {
				continue
			}
			var n int64
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				n += dp.Value
			}
			return n
		}
	}
	t.Fatal("switchboard_audit_write_failures_total not exported")
	return 0
}

func TestLogWritesWhatIsRecorded(t *testing.T) {
	h := newLogHarness(t, nil, 0)
	h.Record(t.Context(), "alice", TurnAccepted{EpisodeID: "ep_1", TurnID: "turn_1"})
	h.advance(time.Second)
	h.Record(t.Context(), "alice\r\nX-Evil: 1", TurnCancelled{TurnID: "turn_1\x1b[31m" + strings.Repeat("x", 300)})
	if err := h.Flush(t.Context()); err != nil {
		t.Fatalf("Flush() = %v", err)
	}
	at := time.Date(2026, 11, 27, 12, 30, 10, 0, time.UTC)
	want := []Entry{
		{Seq: 1, Time: at, Principal: "alice", Detail: TurnAccepted{EpisodeID: "ep_1", TurnID: "turn_1"}},
		// What a caller passed on unchecked is stored on one line, bounded.
		{Seq: 2, Time: at.Add(time.Second), Principal: "alice\uFFFD\uFFFDX-Evil: 1",
			Detail: TurnCancelled{TurnID: "turn_1\uFFFD[31m" + strings.Repeat("x", maxField-len("turn_1\uFFFD[31m"))}},
	}
	if diff := cmp.Diff(want, h.entries(t)); diff != "" {
		t.Errorf("entries mismatch (-want +got):\n%s", diff)
	}
	if got := h.failures(t); got != 0 {
		t.Errorf("failures = %d, want 0", got)
	}
}

// failingRecorder fails every write.
type failingRecorder struct{}

func (failingRecorder) AppendAudit(context.Context, []Entry) error {
	return errors.New("database is down")
}

// A write that fails neither fails nor blocks the caller: the entry is logged whole and
// counted.
func TestLogFailedWriteIsLoggedAndCounted(t *testing.T) {
	h := newLogHarness(t, failingRecorder{}, 0)
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_1"})
	h.Record(t.Context(), "bob", DevTokenMinted{})
	if err := h.Flush(t.Context()); err != nil {
		t.Fatalf("Flush() = %v", err)
	}
	if got := h.failures(t); got != 2 {
		t.Errorf("failures = %d, want 2", got)
	}
	logs := h.logs.String()
	for _, want := range []string{`"msg":"audit entry not written"`, `"err":"database is down"`,
		`"type":"turn_cancelled"`, `"principal":"alice"`, `"detail":"{\"turn_id\":\"turn_1\"}"`, `"type":"dev_token_minted"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

// blockingRecorder holds the first write until release is closed.
type blockingRecorder struct {
	started chan struct{}
	release chan struct{}
	once    sync.Once
	mem     *Memory
}

func (b *blockingRecorder) AppendAudit(ctx context.Context, es []Entry) error {
	b.once.Do(func() { close(b.started); <-b.release })
	return b.mem.AppendAudit(ctx, es)
}

// A full queue (the database is slow) does not block the caller either.
func TestLogFullQueueDoesNotBlock(t *testing.T) {
	rec := &blockingRecorder{started: make(chan struct{}), release: make(chan struct{}), mem: NewMemory()}
	h := newLogHarness(t, rec, 1)
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_1"})
	<-rec.started                                                   // the writer holds turn_1
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_2"}) // queued
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_3"}) // no room
	if got := h.failures(t); got != 1 {
		t.Errorf("failures = %d, want 1", got)
	}
	if !strings.Contains(h.logs.String(), `"detail":"{\"turn_id\":\"turn_3\"}"`) {
		t.Errorf("logs lack the entry not written:\n%s", h.logs.String())
	}
	close(rec.release)
	if err := h.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	got, _ := rec.mem.ReadAudit(t.Context(), Query{})
	var ids []string
	for _, e := range got {
		ids = append(ids, e.Detail.(TurnCancelled).TurnID)
	}
	if diff := cmp.Diff([]string{"turn_1", "turn_2"}, ids); diff != "" {
		t.Errorf("written mismatch (-want +got):\n%s", diff)
	}
}

func TestLogRefusals(t *testing.T) {
	h := newLogHarness(t, nil, 0)
	for range 3 {
		h.Refused("alice", "turns_per_minute")
	}
	h.Refused("bob", "streams_per_principal")
	h.ticks <- time.Time{} // within the minute: nothing is due
	if err := h.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := h.entries(t); len(got) != 0 {
		t.Fatalf("entries within the minute = %v, want none", got)
	}
	h.advance(time.Minute)
	h.Refused("alice", "turns_per_minute") // the next minute's
	h.ticks <- time.Time{}
	if err := h.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	minute := time.Date(2026, 11, 27, 12, 30, 0, 0, time.UTC)
	want := []Entry{
		{Seq: 1, Time: minute, Principal: "alice", Detail: LimitRefusals{Count: 3, Limits: map[string]int{"turns_per_minute": 3}}},
		{Seq: 2, Time: minute, Principal: "bob", Detail: LimitRefusals{Count: 1, Limits: map[string]int{"streams_per_principal": 1}}},
	}
	if diff := cmp.Diff(want, h.entries(t)); diff != "" {
		t.Errorf("entries after the minute mismatch (-want +got):\n%s", diff)
	}
	// Close writes the minute in progress.
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, Entry{Seq: 3, Time: minute.Add(time.Minute), Principal: "alice",
		Detail: LimitRefusals{Count: 1, Limits: map[string]int{"turns_per_minute": 1}}})
	if diff := cmp.Diff(want, h.entries(t)); diff != "" {
		t.Errorf("entries after Close mismatch (-want +got):\n%s", diff)
	}
}

func TestLogAfterClose(t *testing.T) {
	h := newLogHarness(t, nil, 0)
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_1"})
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("second Close() = %v", err)
	}
	h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_2"})
	if err := h.Flush(t.Context()); err != nil {
		t.Fatalf("Flush() after Close = %v", err)
	}
	if got := len(h.entries(t)); got != 1 {
		t.Errorf("entries = %d, want the one recorded before Close", got)
	}
	if got := h.failures(t); got != 1 {
		t.Errorf("failures = %d, want 1 (recorded after Close)", got)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// countingRecorder records into a Memory and keeps the size of every write.
type countingRecorder struct {
	*Memory
	mu     sync.Mutex
	writes []int
}

func (c *countingRecorder) AppendAudit(ctx context.Context, entries []Entry) error {
	c.mu.Lock()
	c.writes = append(c.writes, len(entries))
	c.mu.Unlock()
	return c.Memory.AppendAudit(ctx, entries)
}

// Entries recorded within the batch delay of each other are written together, in one write;
// one recorded later starts a batch of its own.
func TestLogBatchesEntriesRecordedTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &countingRecorder{Memory: NewMemory()}
		h := newLogHarness(t, rec, 0)
		h.Record(t.Context(), "alice", TurnAccepted{TurnID: "turn_1"})
		synctest.Wait() // the writer holds the first entry, waiting for more
		time.Sleep(batchDelay / 2)
		h.Record(t.Context(), "alice", TurnCancelled{TurnID: "turn_1"})
		time.Sleep(batchDelay)
		synctest.Wait()
		h.Record(t.Context(), "bob", TurnAccepted{TurnID: "turn_2"})
		if err := h.Flush(t.Context()); err != nil {
			t.Fatalf("Flush() = %v", err)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if diff := cmp.Diff([]int{2, 1}, rec.writes); diff != "" {
			t.Errorf("entries per write (-want +got):\n%s", diff)
		}
		_ = h.Close()
	})
}
