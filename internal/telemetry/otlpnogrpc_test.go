//go:build !otlpgrpc

package telemetry

import (
	"errors"
	"strings"
	"testing"
)

func TestSetupWithoutGRPCSaysHow(t *testing.T) {
	_, err := Setup(t.Context(), Config{ServiceName: "s", OTLP: OTLPConfig{Endpoint: "http://c:4317", Protocol: ProtocolGRPC}})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("Setup() with grpc error = %v, want ErrInvalidConfig", err)
	}
	for _, want := range []string{"http/protobuf", "4318", "-tags otlpgrpc"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Setup() error %q does not mention %q", err, want)
		}
	}
}
