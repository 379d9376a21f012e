package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/switchboard-ai/switchboard/internal/telemetry"
)

func ExampleNewHandler() {
	// NewLogger does the same with slog's own handlers; this inner handler drops the
	// timestamp so the output is stable.
	inner := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	logger := slog.New(telemetry.NewHandler(inner, telemetry.NewRedactor("configured-key-123")))

	ctx := telemetry.WithTurnID(context.Background(), "t-42")
	logger.InfoContext(ctx, "calling ccs", "authorization", "Bearer abcdefgh12345678",
		"err", errors.New("rejected key configured-key-123"))
	// Output:
	// level=INFO msg="calling ccs" turn_id=t-42 authorization=[REDACTED] err="rejected key [REDACTED]"
}

func ExampleSafeString() {
	fmt.Println(telemetry.SafeString("dsn postgres://app:hunter22@db:5432/app"))
	// Output:
	// dsn postgres://app:[REDACTED]@db:5432/app
}

func ExampleConfigFromEnv() {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":  "x-team=core",
	}
	c := telemetry.ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	fmt.Println(c.Endpoint, c.Protocol, c.Headers["x-team"])
	// Output:
	// http://collector:4318/v1/traces http/protobuf core
}
