package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// httpClient sends spans to an OTLP/HTTP collector as binary protobuf. It is the transport
// under the SDK's own otlptrace exporter, which turns spans into the OTLP messages; only the
// POST is ours. The upstream otlptracehttp exporter would do the same, but it links the whole
// gRPC stack for configuration types it shares with the gRPC exporter (about 70 packages of a
// binary that speaks no gRPC; open-telemetry/opentelemetry-go#2579).
type httpClient struct {
	url      string
	headers  map[string]string
	gzip     bool
	client   *http.Client
	backoff  time.Duration // the first wait before a retry; it doubles up to maxDelay
	maxDelay time.Duration
}

var _ otlptrace.Client = (*httpClient)(nil)

// newHTTPClient checks c and builds its transport. c.Endpoint is the whole traces URL.
func newHTTPClient(c OTLPConfig) (*httpClient, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("%w: OTLP endpoint is not a URL", ErrInvalidConfig) // the endpoint may carry credentials
	}
	if c.Insecure {
		u.Scheme = "http"
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.Certificate != "" {
		pem, err := os.ReadFile(c.Certificate)
		if err != nil {
			return nil, fmt.Errorf("%w: OTLP certificate: %v", ErrInvalidConfig, err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: OTLP certificate %s holds no PEM certificate", ErrInvalidConfig, c.Certificate)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second // the OTLP exporter default
	}
	return &httpClient{
		url:      u.String(),
		headers:  c.Headers,
		gzip:     c.Compression == "gzip",
		client:   &http.Client{Transport: tr, Timeout: timeout},
		backoff:  time.Second,
		maxDelay: 30 * time.Second,
	}, nil
}

// Start does nothing: connections are opened by the first export.
func (*httpClient) Start(context.Context) error { return nil }

// Stop closes idle connections; an export still running finishes on its own.
func (h *httpClient) Stop(context.Context) error {
	h.client.CloseIdleConnections()
	return nil
}

// UploadTraces posts one export request, retrying while the collector answers that it is
// busy or unavailable (429, 502, 503, 504, or no answer at all) until ctx ends; the batch
// processor bounds ctx with its export timeout. TracesData has the same wire form as the
// collector's ExportTraceServiceRequest (field 1, the resource spans), which is what lets
// the request be built without the collector package and the gRPC code it carries.
func (h *httpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: spans})
	if err != nil {
		return fmt.Errorf("otlp: encode spans: %w", err)
	}
	if h.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body) // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		body = b.Bytes()
	}
	delay := h.backoff
	var last error // what the attempt before a cancelled one met: the cause an operator needs
	for {
		wait, err := h.post(ctx, body)
		if err == nil {
			return nil
		}
		if wait < 0 {
			return errors.Join(last, err)
		}
		last = err
		if wait == 0 {
			wait = delay
			delay = min(2*delay, h.maxDelay)
		}
		t := time.NewTimer(min(wait, h.maxDelay))
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(last, ctx.Err())
		case <-t.C:
		}
	}
}

// post sends body once. On failure it says whether to retry: a negative wait means never, 0
// means after the usual backoff, more means what the collector's Retry-After asked for. The
// URL never appears in an error: it may carry credentials.
func (h *httpClient) post(ctx context.Context, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("otlp: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if h.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, ctx.Err()
		}
		// url.Error names the URL; what it wraps names at most the host.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if untrusted(err) {
			return -1, fmt.Errorf("otlp: the collector's certificate is not trusted: %w", err)
		}
		return 0, fmt.Errorf("otlp: collector unreachable: %w", err)
	}
	// Drain a little so that the connection can be reused; a partial success (some spans
	// rejected) is still a 200 and nothing a retry would change.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return 0, nil
	case code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
		code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		return retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("otlp: collector answered %d", code)
	default:
		return -1, fmt.Errorf("otlp: collector refused the spans with %d", code)
	}
}

// untrusted reports whether err is a failed check of the collector's certificate, which no
// retry mends: it needs OTEL_EXPORTER_OTLP_CERTIFICATE or a collector with another one.
func untrusted(err error) bool {
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &verify) || errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid)
}

// retryAfter reads a Retry-After header given in seconds; dates and garbage mean the usual
// backoff.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
