package telemetry

import (
	"context"
	"crypto/rand"
	"fmt"

	"go.opentelemetry.io/otel/sdk/resource"
	// Keep this at the version the SDK's resource package uses, or merging resources fails with
	// a schema URL conflict.
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// newResource describes this process. It is built from the Config only: resource.Default would
// also read OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, and only cmd reads the environment.
func newResource(ctx context.Context, c Config) (*resource.Resource, error) {
	instance := c.Instance
	if instance == "" {
		instance = rand.Text()
	}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(
			semconv.ServiceName(c.ServiceName),
			semconv.ServiceVersion(c.Version),
			semconv.ServiceInstanceID(instance),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil
}
