package breaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Defaults for the zero fields of [Config].
const (
	DefaultErrorThreshold = 5
	DefaultWindow         = 60 * time.Second
	DefaultHalfOpenAfter  = 30 * time.Second
)

// windowBuckets is how many slices the window is counted in: failures leave the count a slice
// at a time, so "within the window" is exact to a tenth of it.
const windowBuckets = 10

// Config is the `breakers:` section of the service's config; it applies to every target.
type Config struct {
	// ErrorThreshold is how many failures within Window open a breaker. Default 5.
	ErrorThreshold int `yaml:"error_threshold"`
	// Window is how far back failures are counted. Default 60s.
	Window time.Duration `yaml:"window"`
	// HalfOpenAfter is how long an open breaker refuses calls before it lets one probe
	// through. Default 30s.
	HalfOpenAfter time.Duration `yaml:"half_open_after"`
}

// Validate reports a negative field; zero fields take the defaults.
func (c Config) Validate() error {
	if c.ErrorThreshold < 0 || c.Window < 0 || c.HalfOpenAfter < 0 {
		return fmt.Errorf("%w: breakers.error_threshold, window and half_open_after must be positive", ErrInvalidConfig)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.ErrorThreshold == 0 {
		c.ErrorThreshold = DefaultErrorThreshold
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.HalfOpenAfter == 0 {
		c.HalfOpenAfter = DefaultHalfOpenAfter
	}
	return c
}

// Verdict is what a call's result says about its target's health.
type Verdict int

const (
	// Success shows the target answering: a half-open breaker closes on it.
	Success Verdict = iota
	// Failure counts towards opening the breaker, and reopens a half-open one.
	Failure
	// Neutral says nothing about the target (the caller gave up, the request was refused
	// before it was sent): it is not counted, and a half-open breaker waits for another probe.
	Neutral
)

// State is a breaker's state, as [Set.State] reports it.
type State string

// The states of a breaker. They are also the values of the `to` label of
// switchboard_breaker_transitions_total.
const (
	Closed   State = "closed"
	HalfOpen State = "half_open"
	Open     State = "open"
)

// Option tunes a [Set].
type Option func(*options)

type options struct {
	meters metric.MeterProvider
	logger *slog.Logger
}

// WithMeterProvider sets where the breaker metrics go; default the OpenTelemetry global.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) {
		if mp != nil {
			o.meters = mp
		}
	}
}

// WithLogger sets where state changes are logged; default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// Set holds one breaker per target, created on first use, all with the same [Config].
type Set struct {
	cfg         Config
	log         *slog.Logger
	transitions metric.Int64Counter
	gauge       metric.Registration

	mu       sync.Mutex
	breakers map[string]*gobreaker.CircuitBreaker[struct{}]
}

// New returns an empty Set. Close it to stop reporting its metrics.
func New(cfg Config, opts ...Option) (*Set, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{meters: otel.GetMeterProvider(), logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	s := &Set{cfg: cfg.withDefaults(), log: o.logger, breakers: map[string]*gobreaker.CircuitBreaker[struct{}]{}}
	m := o.meters.Meter("github.com/switchboard-ai/switchboard/internal/breaker")
	var err, err1, err2 error
	var state metric.Int64ObservableGauge
	s.transitions, err1 = m.Int64Counter("switchboard_breaker_transitions_total",
		metric.WithDescription("Circuit breaker state changes, by target and the state entered (closed, half_open, open)."))
	state, err2 = m.Int64ObservableGauge("switchboard_breaker_state",
		metric.WithDescription("Circuit breaker state by target: 0 closed, 1 half_open (one probe allowed), 2 open (calls fail at once)."))
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	s.gauge, err = m.RegisterCallback(func(_ context.Context, obs metric.Observer) error {
		for target, st := range s.states() {
			obs.ObserveInt64(state, stateValue(st), metric.WithAttributes(attribute.String("target", target)))
		}
		return nil
	}, state)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close stops reporting the state gauge. The breakers keep working.
func (s *Set) Close() error { return s.gauge.Unregister() }

// Do runs fn through target's breaker and returns fn's error as it was. When the breaker
// refuses the call, fn does not run and Do returns an error wrapping [ErrOpen] at once.
// classify says what fn's error means for the target; nil counts every error as a [Failure].
// A panic in fn counts as a failure and goes on up.
func (s *Set) Do(target string, classify func(error) Verdict, fn func() error) error {
	var callErr error
	called := false
	_, err := s.breaker(target).Execute(func() (struct{}, error) {
		called = true
		callErr = fn()
		if callErr == nil {
			return struct{}{}, nil
		}
		v := Failure
		if classify != nil {
			v = classify(callErr)
		}
		switch v {
		case Success:
			return struct{}{}, nil
		case Neutral:
			return struct{}{}, excluded{callErr}
		}
		return struct{}{}, callErr
	})
	if !called {
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			return openError(target)
		}
		return err
	}
	return callErr
}

// State reports target's state; a target never called is closed.
func (s *Set) State(target string) State {
	s.mu.Lock()
	cb, ok := s.breakers[target]
	s.mu.Unlock()
	if !ok {
		return Closed
	}
	return stateOf(cb.State())
}

// Open lists, sorted, the targets whose breaker is not closed: open ones, and half-open ones
// that still refuse every call but a probe. With none it is empty, not nil.
func (s *Set) Open() []string {
	out := []string{}
	for target, st := range s.states() {
		if st != Closed {
			out = append(out, target)
		}
	}
	slices.Sort(out)
	return out
}

// states reads every breaker's state. Reading it moves an open breaker whose time is up to
// half-open, as a call would.
func (s *Set) states() map[string]State {
	s.mu.Lock()
	cbs := maps.Clone(s.breakers)
	s.mu.Unlock()
	out := make(map[string]State, len(cbs))
	for target, cb := range cbs {
		out[target] = stateOf(cb.State())
	}
	return out
}

func (s *Set) breaker(target string) *gobreaker.CircuitBreaker[struct{}] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cb, ok := s.breakers[target]; ok {
		return cb
	}
	threshold := uint32(s.cfg.ErrorThreshold)
	cb := gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{
		Name:         target,
		MaxRequests:  1, // one probe when half-open
		Interval:     s.cfg.Window,
		BucketPeriod: max(s.cfg.Window/windowBuckets, time.Millisecond),
		Timeout:      s.cfg.HalfOpenAfter,
		ReadyToTrip:  func(c gobreaker.Counts) bool { return c.TotalFailures >= threshold },
		IsExcluded:   isExcluded,
		OnStateChange: func(name string, _, to gobreaker.State) {
			s.changed(name, stateOf(to))
		},
	})
	s.breakers[target] = cb
	return cb
}

// changed records a state change. It runs under the breaker's own lock, so it must not call
// back into that breaker.
func (s *Set) changed(target string, to State) {
	s.transitions.Add(context.Background(), 1, metric.WithAttributes(attribute.String("target", target), attribute.String("to", string(to))))
	switch to {
	case Open:
		s.log.Warn("circuit breaker opened: calls fail at once until a probe succeeds", "target", target,
			"failures", s.cfg.ErrorThreshold, "window", s.cfg.Window, "probe_after", s.cfg.HalfOpenAfter)
	case HalfOpen:
		s.log.Info("circuit breaker half-open: the next call is a probe", "target", target)
	case Closed:
		s.log.Info("circuit breaker closed", "target", target)
	}
}

func stateOf(st gobreaker.State) State {
	switch st {
	case gobreaker.StateOpen:
		return Open
	case gobreaker.StateHalfOpen:
		return HalfOpen
	}
	return Closed
}

func stateValue(st State) int64 {
	switch st {
	case HalfOpen:
		return 1
	case Open:
		return 2
	}
	return 0
}
