package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// secretValuer reveals its secret only when resolved, as a LogValuer does.
type secretValuer struct{ key string }

func (v secretValuer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("api_key", v.key), slog.String("region", "eu"))
}

// upstreamConfig is a struct a caller might log whole with slog.Any.
type upstreamConfig struct {
	URL    string `json:"url"`
	APIKey string `json:"api_key"`
	Note   string `json:"note"`
}

// opaque has only unexported fields, which encoding/json does not see.
type opaque struct{ dsn string }

func TestLoggerRedacts(t *testing.T) {
	tests := []struct {
		name   string
		log    func(l *slog.Logger)
		secret string // must not appear in the output
		keep   string // must appear, proving the record was written
	}{
		{
			name:   "bearer token in message",
			log:    func(l *slog.Logger) { l.Info("upstream said Bearer abcdefgh12345678") },
			secret: "abcdefgh12345678", keep: "upstream said Bearer",
		},
		{
			name:   "jwt in string attr",
			log:    func(l *slog.Logger) { l.Info("auth", "session", "token was "+testJWT) },
			secret: testJWT, keep: "token was",
		},
		{
			name:   "registered api key in message and attr",
			log:    func(l *slog.Logger) { l.Info("using "+testRegistered, "detail", "k="+testRegistered) },
			secret: testRegistered, keep: "using",
		},
		{
			name: "authorization header attr",
			log: func(l *slog.Logger) {
				l.Info("request", "Authorization", "Basic dXNlcjpwYXNzd29yZA==", "path", "/v1/turns")
			},
			secret: "dXNlcjpwYXNzd29yZA==", keep: "/v1/turns",
		},
		{
			name: "nested group",
			log: func(l *slog.Logger) {
				l.Info("call", slog.Group("http", slog.Group("headers", slog.String("x-api-key", "plainvalue123"))))
			},
			secret: "plainvalue123", keep: "headers",
		},
		{
			name: "secret group hides its children",
			log: func(l *slog.Logger) {
				l.Info("db", slog.Group("credentials", slog.String("user", "svc-user"), slog.String("pass", "opensesame")))
			},
			secret: "opensesame", keep: "credentials",
		},
		{
			name: "error value",
			log: func(l *slog.Logger) {
				l.Error("ccs failed", "err", fmt.Errorf("ccs: %w", errors.New("401 for key "+testOpenAI)))
			},
			secret: testOpenAI, keep: "401 for key",
		},
		{
			name: "error under a secret key",
			log: func(l *slog.Logger) {
				l.Error("x", "token", errors.New("opaque-token-value"))
			},
			secret: "opaque-token-value", keep: "token",
		},
		{
			name:   "LogValuer resolved before redaction",
			log:    func(l *slog.Logger) { l.Info("cfg", "provider", secretValuer{key: "zzz-provider-key"}) },
			secret: "zzz-provider-key", keep: "eu",
		},
		{
			name: "struct logged with Any",
			log: func(l *slog.Logger) {
				l.Info("cfg", "upstream", upstreamConfig{URL: "https://ccs", APIKey: "struct-held-key", Note: "n " + testAnthropic})
			},
			secret: "struct-held-key", keep: "https://ccs",
		},
		{
			name: "struct field with a key-shaped value",
			log: func(l *slog.Logger) {
				l.Info("cfg", "upstream", upstreamConfig{Note: "n " + testAnthropic})
			},
			secret: testAnthropic, keep: "note",
		},
		{
			name:   "struct with unexported fields",
			log:    func(l *slog.Logger) { l.Info("cfg", "opaque", opaque{dsn: "postgres://u:pw0rd@db/x"}) },
			secret: "pw0rd", keep: "postgres://u:",
		},
		{
			name:   "With attrs",
			log:    func(l *slog.Logger) { l.With("password", "hunter2hunter2").Info("login") },
			secret: "hunter2hunter2", keep: "login",
		},
		{
			name:   "WithGroup then attrs",
			log:    func(l *slog.Logger) { l.WithGroup("req").With("cookie", "sid=abc123def").Info("in") },
			secret: "abc123def", keep: "req",
		},
		{
			name:   "bytes",
			log:    func(l *slog.Logger) { l.Info("raw", "body", []byte(`{"token":"`+testJWT+`"}`)) },
			secret: testJWT, keep: "raw",
		},
	}
	for _, tt := range tests {
		for _, jsonOut := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/json=%v", tt.name, jsonOut), func(t *testing.T) {
				var buf bytes.Buffer
				l := NewLogger(&buf, Options{JSON: jsonOut, Secrets: []string{testRegistered}})
				tt.log(l)
				out := buf.String()
				if strings.Contains(out, tt.secret) {
					t.Errorf("output contains secret %q:\n%s", tt.secret, out)
				}
				if !strings.Contains(out, tt.keep) {
					t.Errorf("output lacks %q:\n%s", tt.keep, out)
				}
				if !strings.Contains(out, Redacted) {
					t.Errorf("output has no %s marker:\n%s", Redacted, out)
				}
			})
		}
	}
}

func TestLoggerKeepsNumbersUnderSecretKeys(t *testing.T) {
	var buf bytes.Buffer
	NewLogger(&buf, Options{JSON: true}).Info("usage", "token_count", 812, "max_tokens", 1024)
	got := decodeLine(t, buf.Bytes())
	want := map[string]any{"token_count": 812.0, "max_tokens": 1024.0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestLoggerCorrelationIDs(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(t.Context(), "turn")
	defer span.End()
	sc := span.SpanContext()
	traceID, spanID := sc.TraceID().String(), sc.SpanID().String()

	tests := []struct {
		name string
		ctx  context.Context
		log  func(ctx context.Context, l *slog.Logger)
		want map[string]any // selected keys of the JSON line
	}{
		{
			name: "span and turn",
			ctx:  WithTurnID(ctx, "t-1"),
			log:  func(ctx context.Context, l *slog.Logger) { l.InfoContext(ctx, "m") },
			want: map[string]any{"trace_id": traceID, "span_id": spanID, "turn_id": "t-1"},
		},
		{
			name: "ids stay top level under a group",
			ctx:  WithTurnID(ctx, "t-2"),
			log: func(ctx context.Context, l *slog.Logger) {
				l.With("a", "1").WithGroup("g").InfoContext(ctx, "m", "b", "2")
			},
			want: map[string]any{
				"trace_id": traceID, "span_id": spanID, "turn_id": "t-2", "a": "1",
				"g": map[string]any{"b": "2"},
			},
		},
		{
			name: "explicit turn_id wins",
			ctx:  WithTurnID(ctx, "from-ctx"),
			log:  func(ctx context.Context, l *slog.Logger) { l.InfoContext(ctx, "m", "turn_id", "explicit") },
			want: map[string]any{"turn_id": "explicit"},
		},
		{
			name: "no span, no turn",
			ctx:  t.Context(),
			log:  func(ctx context.Context, l *slog.Logger) { l.InfoContext(ctx, "m") },
			want: map[string]any{"trace_id": nil, "span_id": nil, "turn_id": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tt.log(tt.ctx, NewLogger(&buf, Options{JSON: true}))
			line := decodeLine(t, buf.Bytes())
			got := make(map[string]any, len(tt.want))
			for k := range tt.want {
				got[k] = line[k]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("log line mismatch (-want +got):\n%s\nline: %s", diff, buf.String())
			}
			if n := strings.Count(buf.String(), `"turn_id"`); n > 1 {
				t.Errorf("turn_id written %d times: %s", n, buf.String())
			}
		})
	}
}

func TestLoggerLevelAndFormat(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(&buf, Options{Level: slog.LevelWarn})
	l.Info("hidden")
	l.Warn("shown", "k", "v")
	if got, want := strings.TrimSpace(buf.String()), "level=WARN msg=shown k=v"; !strings.HasSuffix(got, want) {
		t.Errorf("text output = %q, want suffix %q", got, want)
	}
}

func TestTurnID(t *testing.T) {
	if got := TurnID(t.Context()); got != "" {
		t.Errorf("TurnID(empty) = %q, want empty", got)
	}
	if got := TurnID(WithTurnID(t.Context(), "t-9")); got != "t-9" {
		t.Errorf("TurnID() = %q, want t-9", got)
	}
}

func decodeLine(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode log line %q: %v", b, err)
	}
	return m
}
