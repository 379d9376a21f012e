package telemetry

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OTLP protocols accepted in [OTLPConfig.Protocol].
const (
	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"
)

// OTLPConfig selects the OTLP trace exporter. It is the only source of these settings: [Setup]
// passes each field to the exporter explicitly, which overrides what the exporter would read
// from the environment by itself.
type OTLPConfig struct {
	// Endpoint is the URL spans are sent to; empty disables OTLP export. For http/protobuf it
	// is the full traces URL (http://collector:4318/v1/traces); for grpc the path is ignored
	// (http://collector:4317). It must be an http:// or https:// URL.
	Endpoint string
	// Protocol is [ProtocolHTTPProtobuf] (the default when empty) or [ProtocolGRPC].
	Protocol string
	// Headers are sent with every export request, e.g. an API key for a hosted collector.
	Headers map[string]string
	// Insecure disables TLS. An http:// endpoint is always plaintext, whatever this says.
	Insecure bool
	// Compression is "gzip" or empty (none).
	Compression string
	// Timeout bounds one export request; zero means 10 s.
	Timeout time.Duration
	// Certificate is the path of a PEM file with the CA certificates that sign the
	// collector's; empty means the system's.
	Certificate string
}

// Standard OpenTelemetry environment variables read by [ConfigFromEnv].
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	envTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	envInsecure       = "OTEL_EXPORTER_OTLP_INSECURE"
	envTracesInsecure = "OTEL_EXPORTER_OTLP_TRACES_INSECURE"
	envCompression    = "OTEL_EXPORTER_OTLP_COMPRESSION"
	envTracesCompress = "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"
	envTimeout        = "OTEL_EXPORTER_OTLP_TIMEOUT"
	envTracesTimeout  = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
	envCertificate    = "OTEL_EXPORTER_OTLP_CERTIFICATE"
	envTracesCert     = "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"
)

// ConfigFromEnv resolves an [OTLPConfig] from the standard OTEL_EXPORTER_OTLP_* variables
// through lookup (cmd passes [os.LookupEnv]). A _TRACES_ variable wins over its generic form.
//
//   - Endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is. Otherwise
//     OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: for http/protobuf "/v1/traces" is appended to
//     its path, for grpc it is used as is. Neither set (or both empty) leaves OTLP disabled.
//   - Protocol: OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL, default http/protobuf. Not validated
//     here; [Setup] rejects values it does not support.
//   - Headers: OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, "k1=v1,k2=v2" with percent-encoded
//     values; malformed entries are skipped.
//   - Insecure: OTEL_EXPORTER_OTLP_[TRACES_]INSECURE equal to "true", any case.
//   - Compression, Timeout (milliseconds) and Certificate (a PEM file):
//     OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION, _TIMEOUT and _CERTIFICATE. A timeout that is
//     not a positive number of milliseconds is ignored.
func ConfigFromEnv(lookup func(string) (string, bool)) OTLPConfig {
	get := func(specific, generic string) string {
		if v, ok := lookup(specific); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		v, _ := lookup(generic)
		return strings.TrimSpace(v)
	}
	c := OTLPConfig{Protocol: get(envTracesProtocol, envProtocol)}
	if c.Protocol == "" {
		c.Protocol = ProtocolHTTPProtobuf
	}
	if v, ok := lookup(envTracesEndpoint); ok && strings.TrimSpace(v) != "" {
		c.Endpoint = strings.TrimSpace(v)
	} else if v, _ := lookup(envEndpoint); strings.TrimSpace(v) != "" {
		c.Endpoint = strings.TrimSpace(v)
		if c.Protocol == ProtocolHTTPProtobuf {
			c.Endpoint = strings.TrimRight(c.Endpoint, "/") + "/v1/traces"
		}
	}
	c.Headers = parseHeaders(get(envTracesHeaders, envHeaders))
	c.Insecure = strings.EqualFold(get(envTracesInsecure, envInsecure), "true")
	c.Compression = strings.ToLower(get(envTracesCompress, envCompression))
	if ms, err := strconv.Atoi(get(envTracesTimeout, envTimeout)); err == nil && ms > 0 {
		c.Timeout = time.Duration(ms) * time.Millisecond
	}
	c.Certificate = get(envTracesCert, envCertificate)
	return c
}

// parseHeaders parses the W3C-baggage-like list the OTLP spec uses for headers.
func parseHeaders(s string) map[string]string {
	var h map[string]string
	for pair := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") {
			continue
		}
		v, err := url.PathUnescape(v)
		if err != nil {
			continue
		}
		if h == nil {
			h = make(map[string]string)
		}
		h[k] = strings.TrimSpace(v)
	}
	return h
}

// Secrets returns the header values, which commonly hold collector API keys, for registering
// with [Options.Secrets]. [Setup] registers them for spans itself.
func (c OTLPConfig) Secrets() []string {
	var s []string
	for _, v := range c.Headers {
		s = append(s, v)
	}
	return s
}
