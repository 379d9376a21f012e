//go:build otlpgrpc

package telemetry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// grpcCollector is an OTLP/gRPC trace service that keeps what it receives.
type grpcCollector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu   sync.Mutex
	reqs []received
}

func (c *grpcCollector) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	md, _ := metadata.FromIncomingContext(ctx)
	h := http.Header{}
	for k, v := range md {
		h[http.CanonicalHeaderKey(k)] = v
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, received{header: h, body: body})
	c.mu.Unlock()
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func TestOTLPGRPC(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	col := &grpcCollector{}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, col)
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()

	tel, err := Setup(t.Context(), Config{
		ServiceName: "switchboard",
		OTLP: OTLPConfig{
			Endpoint: "http://" + lis.Addr().String(),
			Protocol: ProtocolGRPC,
			Headers:  map[string]string{"x-team": "core"},
		},
		Secrets: []string{testRegistered},
	})
	if err != nil {
		t.Fatalf("Setup() error = %v", err)
	}
	_, span := tel.TracerProvider().Tracer("test").Start(t.Context(), "turn")
	span.SetAttributes(attribute.String("leak.registered", testRegistered), attribute.String("turn.id", "t-otlp"))
	span.End()
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown() error = %v", err)
	}

	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.reqs) != 1 {
		t.Fatalf("collector got %d requests, want 1", len(col.reqs))
	}
	if got := col.reqs[0].header.Get("x-team"); got != "core" {
		t.Errorf("x-team metadata = %q, want core", got)
	}
	checkExportBody(t, col.reqs[0].body)
}

func TestOTLPGRPCRefusesAMissingCertificate(t *testing.T) {
	_, err := Setup(t.Context(), Config{ServiceName: "s", OTLP: OTLPConfig{
		Endpoint: "https://collector:4317", Protocol: ProtocolGRPC, Certificate: t.TempDir() + "/none.pem",
	}})
	if !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("Setup() with a missing certificate error = %v, want ErrInvalidConfig", err)
	}
}
