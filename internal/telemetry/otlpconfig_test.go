package telemetry

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want OTLPConfig
	}{
		{
			name: "nothing set disables export",
			env:  nil,
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "generic endpoint gets the traces path for http",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"},
			want: OTLPConfig{Endpoint: "http://collector:4318/v1/traces", Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "generic endpoint with a base path",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otlp.example.com/otlp"},
			want: OTLPConfig{Endpoint: "https://otlp.example.com/otlp/v1/traces", Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "generic endpoint is used as is for grpc",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
			},
			want: OTLPConfig{Endpoint: "http://collector:4317", Protocol: ProtocolGRPC},
		},
		{
			name: "traces endpoint wins and is used as is",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://generic:4318",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:4318/custom",
			},
			want: OTLPConfig{Endpoint: "http://traces:4318/custom", Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "empty traces endpoint falls back to generic",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://generic:4318",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": " ",
			},
			want: OTLPConfig{Endpoint: "http://generic:4318/v1/traces", Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "traces protocol wins",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/protobuf",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc",
			},
			want: OTLPConfig{Protocol: ProtocolGRPC},
		},
		{
			name: "unsupported protocol passes through for Setup to reject",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			want: OTLPConfig{Protocol: "http/json"},
		},
		{
			name: "headers are parsed and unescaped, junk skipped",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc%3D%3D, x-team = core ,novalue,=nokey,bad key=1"},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Headers: map[string]string{"api-key": "abc==", "x-team": "core"}},
		},
		{
			name: "traces headers replace generic ones",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_HEADERS":        "a=1",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2",
			},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Headers: map[string]string{"b": "2"}},
		},
		{
			name: "insecure is case-insensitive true",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "TRUE"},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Insecure: true},
		},
		{
			name: "insecure other values are false",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "1"},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf},
		},
		{
			name: "traces insecure wins",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_INSECURE":        "false",
				"OTEL_EXPORTER_OTLP_TRACES_INSECURE": "true",
			},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Insecure: true},
		},
		{
			name: "compression, timeout and certificate",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_COMPRESSION": "GZIP",
				"OTEL_EXPORTER_OTLP_TIMEOUT":     "2500",
				"OTEL_EXPORTER_OTLP_CERTIFICATE": "/etc/ca.pem",
			},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Compression: "gzip", Timeout: 2500 * time.Millisecond, Certificate: "/etc/ca.pem"},
		},
		{
			name: "traces variants win; a timeout that is no number is ignored",
			env: map[string]string{
				"OTEL_EXPORTER_OTLP_COMPRESSION":        "gzip",
				"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none",
				"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":     "10s",
				"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "/etc/traces.pem",
			},
			want: OTLPConfig{Protocol: ProtocolHTTPProtobuf, Compression: "none", Certificate: "/etc/traces.pem"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			if diff := cmp.Diff(tt.want, ConfigFromEnv(lookup)); diff != "" {
				t.Errorf("ConfigFromEnv() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOTLPConfigSecrets(t *testing.T) {
	got := OTLPConfig{Headers: map[string]string{"a": "one", "b": "two"}}.Secrets()
	slices.Sort(got)
	if diff := cmp.Diff([]string{"one", "two"}, got); diff != "" {
		t.Errorf("Secrets() mismatch (-want +got):\n%s", diff)
	}
}
