package breaker_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/switchboard-ai/switchboard/internal/breaker"
)

var errDown = errors.New("down")

// step is one thing a scenario does: a call with a result, or time passing.
type step struct {
	wait time.Duration // pass this much time first
	err  error         // the result fn returns
	// wantRun and wantOpen are what the call must see: whether fn ran, and whether Do
	// refused it with ErrOpen.
	wantRun, wantOpen bool
	wantState         breaker.State // the state after the step
}

func TestSet(t *testing.T) {
	neutral := errors.New("caller gave up")
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "opens at the fifth failure within the window",
			steps: []step{
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: nil, wantRun: true, wantState: breaker.Closed}, // a success between does not reset the count
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Open},
				{err: nil, wantOpen: true, wantState: breaker.Open},
			},
		},
		{
			name: "failures older than the window are forgotten",
			steps: []step{
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
				{wait: 61 * time.Second, err: errDown, wantRun: true, wantState: breaker.Closed},
				{err: errDown, wantRun: true, wantState: breaker.Closed},
			},
		},
		{
			name: "a successful probe after half_open_after closes it",
			steps: append(fiveFailures(),
				step{wait: 29 * time.Second, wantOpen: true, wantState: breaker.Open},
				step{wait: 2 * time.Second, err: nil, wantRun: true, wantState: breaker.Closed},
				step{err: errDown, wantRun: true, wantState: breaker.Closed},
			),
		},
		{
			name: "a failed probe opens it again for another half_open_after",
			steps: append(fiveFailures(),
				step{wait: 31 * time.Second, err: errDown, wantRun: true, wantState: breaker.Open},
				step{wait: 29 * time.Second, wantOpen: true, wantState: breaker.Open},
				step{wait: 2 * time.Second, err: nil, wantRun: true, wantState: breaker.Closed},
			),
		},
		{
			name: "neutral results neither open it nor close it",
			steps: append([]step{
				{err: neutral, wantRun: true, wantState: breaker.Closed},
				{err: neutral, wantRun: true, wantState: breaker.Closed},
				{err: neutral, wantRun: true, wantState: breaker.Closed},
				{err: neutral, wantRun: true, wantState: breaker.Closed},
				{err: neutral, wantRun: true, wantState: breaker.Closed},
				{err: neutral, wantRun: true, wantState: breaker.Closed},
			}, append(fiveFailures(),
				step{wait: 31 * time.Second, err: neutral, wantRun: true, wantState: breaker.HalfOpen},
				step{err: nil, wantRun: true, wantState: breaker.Closed},
			)...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				set, err := breaker.New(breaker.Config{})
				if err != nil {
					t.Fatalf("New() = %v", err)
				}
				classify := func(err error) breaker.Verdict {
					if errors.Is(err, neutral) {
						return breaker.Neutral
					}
					return breaker.Failure
				}
				for i, s := range tt.steps {
					time.Sleep(s.wait)
					ran := false
					err := set.Do("ccs:x", classify, func() error { ran = true; return s.err })
					if ran != s.wantRun {
						t.Errorf("step %d: fn ran = %v, want %v", i, ran, s.wantRun)
					}
					if got := errors.Is(err, breaker.ErrOpen); got != s.wantOpen {
						t.Errorf("step %d: Do() = %v, want ErrOpen %v", i, err, s.wantOpen)
					}
					if s.wantRun && !errors.Is(err, s.err) && err != s.err {
						t.Errorf("step %d: Do() = %v, want fn's own %v", i, err, s.err)
					}
					if got := set.State("ccs:x"); got != s.wantState {
						t.Errorf("step %d: State() = %v, want %v", i, got, s.wantState)
					}
				}
			})
		})
	}
}

func fiveFailures() []step {
	var out []step
	for range 4 {
		out = append(out, step{err: errDown, wantRun: true, wantState: breaker.Closed})
	}
	return append(out, step{err: errDown, wantRun: true, wantState: breaker.Open})
}

// TestHalfOpenLetsOneProbe holds the probe call open and checks that a second call meanwhile
// is refused without running.
func TestHalfOpenLetsOneProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := breaker.New(breaker.Config{ErrorThreshold: 1, HalfOpenAfter: time.Second})
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		_ = set.Do("a2a:x", nil, func() error { return errDown })
		time.Sleep(2 * time.Second)
		release := make(chan struct{})
		probed := make(chan error)
		go func() {
			probed <- set.Do("a2a:x", nil, func() error { <-release; return nil })
		}()
		synctest.Wait() // the probe is running and blocked
		ran := false
		if err := set.Do("a2a:x", nil, func() error { ran = true; return nil }); !errors.Is(err, breaker.ErrOpen) || ran {
			t.Errorf("second call during the probe: Do() = %v, ran %v; want ErrOpen without running", err, ran)
		}
		close(release)
		if err := <-probed; err != nil {
			t.Errorf("probe: Do() = %v, want nil", err)
		}
		if got := set.State("a2a:x"); got != breaker.Closed {
			t.Errorf("State() after the probe = %v, want closed", got)
		}
	})
}

func TestOpenListsBreakersNotClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		set, err := breaker.New(breaker.Config{ErrorThreshold: 1, HalfOpenAfter: 10 * time.Second})
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		_ = set.Do("model:default", nil, func() error { return nil })
		_ = set.Do("ccs:b", nil, func() error { return errDown })
		time.Sleep(5 * time.Second)
		_ = set.Do("ccs:a", nil, func() error { return errDown })
		if diff := cmp.Diff([]string{"ccs:a", "ccs:b"}, set.Open()); diff != "" {
			t.Errorf("Open() (-want +got):\n%s", diff)
		}
		time.Sleep(6 * time.Second) // ccs:b is half-open: still listed until a probe succeeds
		_ = set.Do("ccs:a", nil, func() error { return errDown })
		if diff := cmp.Diff([]string{"ccs:a", "ccs:b"}, set.Open()); diff != "" {
			t.Errorf("Open() with one half-open (-want +got):\n%s", diff)
		}
		_ = set.Do("ccs:b", nil, func() error { return nil })
		if diff := cmp.Diff([]string{"ccs:a"}, set.Open()); diff != "" {
			t.Errorf("Open() after ccs:b recovered (-want +got):\n%s", diff)
		}
	})
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		set, err := breaker.New(breaker.Config{ErrorThreshold: 2, HalfOpenAfter: time.Second}, breaker.WithMeterProvider(mp))
		if err != nil {
			t.Fatalf("New() = %v", err)
		}
		defer set.Close()
		_ = set.Do("ccs:a", nil, func() error { return errDown })
		_ = set.Do("ccs:a", nil, func() error { return errDown })
		_ = set.Do("ccs:b", nil, func() error { return nil })
		if diff := cmp.Diff(map[string]int64{"ccs:a": 2, "ccs:b": 0}, gauge(t, reader)); diff != "" {
			t.Errorf("switchboard_breaker_state while ccs:a is open (-want +got):\n%s", diff)
		}
		time.Sleep(2 * time.Second)
		_ = set.Do("ccs:a", nil, func() error { return nil })
		if diff := cmp.Diff(map[string]int64{"ccs:a": 0, "ccs:b": 0}, gauge(t, reader)); diff != "" {
			t.Errorf("switchboard_breaker_state after recovery (-want +got):\n%s", diff)
		}
		want := map[string]int64{"ccs:a>open": 1, "ccs:a>half_open": 1, "ccs:a>closed": 1}
		if diff := cmp.Diff(want, transitions(t, reader)); diff != "" {
			t.Errorf("switchboard_breaker_transitions_total (-want +got):\n%s", diff)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg     breaker.Config
		wantErr bool
	}{
		{breaker.Config{}, false},
		{breaker.Config{ErrorThreshold: 3, Window: time.Second, HalfOpenAfter: time.Second}, false},
		{breaker.Config{ErrorThreshold: -1}, true},
		{breaker.Config{Window: -time.Second}, true},
		{breaker.Config{HalfOpenAfter: -time.Second}, true},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, breaker.ErrInvalidConfig)) {
			t.Errorf("%+v.Validate() = %v, want error %v", tt.cfg, err, tt.wantErr)
		}
	}
}

func collect(t *testing.T, reader *sdkmetric.ManualReader, name string) (metricdata.Aggregation, bool) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect() = %v", err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data, true
			}
		}
	}
	return nil, false
}

func gauge(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	data, _ := collect(t, reader, "switchboard_breaker_state")
	g, _ := data.(metricdata.Gauge[int64])
	out := map[string]int64{}
	for _, dp := range g.DataPoints {
		target, _ := dp.Attributes.Value(attribute.Key("target"))
		out[target.AsString()] = dp.Value
	}
	return out
}

func transitions(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	data, _ := collect(t, reader, "switchboard_breaker_transitions_total")
	s, _ := data.(metricdata.Sum[int64])
	out := map[string]int64{}
	for _, dp := range s.DataPoints {
		target, _ := dp.Attributes.Value(attribute.Key("target"))
		to, _ := dp.Attributes.Value(attribute.Key("to"))
		out[target.AsString()+">"+to.AsString()] += dp.Value
	}
	return out
}
