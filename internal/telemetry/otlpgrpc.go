//go:build otlpgrpc

package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/credentials"
)

func init() {
	newGRPCExporter = func(ctx context.Context, c OTLPConfig, headers map[string]string) (sdktrace.SpanExporter, error) {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(c.Endpoint), otlptracegrpc.WithHeaders(headers)}
		if c.Insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		if c.Compression == "gzip" {
			opts = append(opts, otlptracegrpc.WithCompressor("gzip"))
		}
		if c.Certificate != "" {
			creds, err := credentials.NewClientTLSFromFile(c.Certificate, "")
			if err != nil {
				return nil, fmt.Errorf("%w: OTLP certificate: %v", ErrInvalidConfig, err)
			}
			opts = append(opts, otlptracegrpc.WithTLSCredentials(creds))
		}
		if c.Timeout > 0 {
			opts = append(opts, otlptracegrpc.WithTimeout(c.Timeout))
		}
		exp, err := otlptracegrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("telemetry: otlp grpc exporter: %w", err)
		}
		return exp, nil
	}
}
