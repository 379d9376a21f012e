package ccs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// DefaultTimeout bounds one [Client.Enrich] call when [ClientConfig.Timeout] is zero.
const DefaultTimeout = 10 * time.Second

// ClientConfig configures a [Client].
type ClientConfig struct {
	// BaseURL is the CCS root, an absolute http or https URL (for the embedded demo any such
	// URL works, since the in-process transport ignores the host).
	BaseURL string
	// Credential is the service credential sent as "Authorization: Bearer <Credential>";
	// empty sends no Authorization header.
	Credential string
	// HTTPClient sends the requests; nil means a new client with default transport. Use
	// [NewInProcessTransport] to reach an in-process handler without a socket.
	HTTPClient *http.Client
	// Timeout bounds each call on top of the caller's context; zero means [DefaultTimeout].
	Timeout time.Duration
}

// Client calls CCS enrichers over HTTP. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	credential string
	http       *http.Client
	timeout    time.Duration
}

// NewClient validates cfg and returns a client. It fails with [ErrInvalidConfig] on a base URL
// that is not absolute http(s), or a negative timeout.
func NewClient(cfg ClientConfig) (*Client, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: base url: %w", ErrInvalidConfig, err)
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("%w: base url must be absolute http(s), got %q", ErrInvalidConfig, cfg.BaseURL)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("%w: base url must not carry a query or fragment", ErrInvalidConfig)
	}
	if strings.ContainsAny(cfg.Credential, "\r\n") {
		return nil, fmt.Errorf("%w: credential contains a line break", ErrInvalidConfig)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: negative timeout", ErrInvalidConfig)
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	base.RawPath = ""
	return &Client{base: base, credential: cfg.Credential, http: hc, timeout: timeout}, nil
}

// Enrich performs one call to req.EnricherID on behalf of req.Principal and returns the
// envelope as sent, without judging it: pass it to [Check] before using the payload.
//
// A request with an empty principal is refused with [ErrMissingPrincipal] before any network
// call. Answers map to errors as follows: 400 missing_principal to [ErrMissingPrincipal], 403
// principal_mismatch to [ErrPrincipalRejected], any other non-200 status to [ErrUnavailable]
// plus a [*HTTPError], a transport failure or timeout to [ErrUnavailable] plus the cause, and a
// body that is not one JSON envelope (or is over [MaxEnvelopeBytes]) to [ErrMalformed]. There are
// no retries.
func (c *Client) Enrich(ctx context.Context, req EnricherRequest) (*RawResponse, error) {
	if req.Principal == "" {
		return nil, ErrMissingPrincipal
	}
	if !validEnricherID(req.EnricherID) {
		return nil, fmt.Errorf("%w: enricher id %q", ErrInvalidRequest, req.EnricherID)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%w: params: %w", ErrInvalidRequest, err)
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	u := *c.base
	u.Path += EnrichPathPrefix + req.EnricherID
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set(HeaderPrincipal, req.Principal)
	if c.credential != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.credential)
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()

	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxEnvelopeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading body: %w", ErrUnavailable, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusErr(resp.StatusCode, data)
	}
	if len(data) > MaxEnvelopeBytes {
		return nil, fmt.Errorf("%w: body over %d bytes", ErrMalformed, MaxEnvelopeBytes)
	}
	return DecodeEnvelope(data)
}

// statusErr classifies a non-200 answer. Only the error code is kept from the body: whatever
// else a CCS wrote there is internal and must not travel further.
func statusErr(status int, body []byte) error {
	var eb ErrorBody
	if json.Unmarshal(body, &eb) != nil {
		eb.Error = ""
	}
	se := &HTTPError{StatusCode: status, Code: sanitizeCode(eb.Error)}
	switch {
	case status == http.StatusBadRequest && se.Code == CodeMissingPrincipal:
		return fmt.Errorf("%w: %w", ErrMissingPrincipal, se)
	case status == http.StatusForbidden && se.Code == CodePrincipalMismatch:
		return fmt.Errorf("%w: %w", ErrPrincipalRejected, se)
	default:
		return fmt.Errorf("%w: %w", ErrUnavailable, se)
	}
}

// sanitizeCode keeps a code only when it looks like one (short snake_case), so a CCS cannot
// smuggle free text into our errors and logs through it.
func sanitizeCode(code string) string {
	if len(code) == 0 || len(code) > 64 {
		return ""
	}
	for _, r := range code {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' && r != '.' {
			return ""
		}
	}
	return code
}

// validEnricherID accepts ids such as "offers.search": letters, digits, '.', '_' and '-', so the
// id is one path segment that needs no escaping and cannot climb out of the enrich route.
func validEnricherID(id string) bool {
	if id == "" || id == "." || id == ".." || len(id) > 128 {
		return false
	}
	for _, r := range id {
		ok := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// DecodeEnvelope parses one JSON envelope. Unknown envelope fields are ignored (a newer
// producer may add some); anything else that is not exactly one JSON object of the envelope's
// shape fails with [ErrMalformed], and so does an envelope that names a key twice, in any
// spelling the decoder takes for the same field: Go's decoder would take the last "status" and
// match "STATUS" and "ſtatus" (long s) to it, so an envelope could show one status or version
// to a reader and another to the check. A principal that is not a string, or is given twice in
// any spelling, fails with [ErrEnvelopePrincipal]. It never judges the envelope: that is
// [Check]'s job.
func DecodeEnvelope(data []byte) (*RawResponse, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: envelope is not a JSON object", ErrMalformed)
	}
	if err := checkTopLevelKeys(trimmed); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var env RawResponse
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: trailing data after envelope", ErrMalformed)
	}
	return &env, nil
}

// checkTopLevelKeys refuses an object whose keys repeat (compared as the decoder matches them
// to fields, see [foldKey]) and one whose principal is not a string or is given more than once.
// A principal problem wins over any other repeated key: it is the one a caller must count and
// alert on.
func checkTopLevelKeys(obj []byte) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	seen := map[string]bool{}
	var repeated string
	badPrincipal := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		key, _ := tok.(string)
		folded := foldKey(key)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		switch {
		case folded == foldedPrincipal:
			// Two principals (even equal ones) leave the envelope's owner to whichever one a
			// reader takes; a principal spelled otherwise or not a string names nobody.
			if seen[folded] || key != "principal" || len(v) == 0 || v[0] != '"' {
				badPrincipal = true
			}
		case seen[folded] && repeated == "":
			repeated = key
		}
		seen[folded] = true
	}
	if badPrincipal {
		return ErrEnvelopePrincipal // its value is not logged: it may name someone
	}
	if repeated != "" {
		return fmt.Errorf("%w: key %q appears twice", ErrMalformed, repeated)
	}
	return nil
}

// foldedPrincipal is the principal key as [foldKey] gives it.
var foldedPrincipal = foldKey("principal")

// foldKey maps key to one spelling per class of keys that encoding/json matches to the same
// struct field: it matches names under Unicode simple case folding (strings.EqualFold), not
// just ASCII case, so "ſtatus" (long s) fills Status and "\u212Aey" (Kelvin sign) a field
// named key. Each rune becomes the smallest rune of its folding orbit, so two keys fold to
// the same string exactly when strings.EqualFold says they are equal.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}
