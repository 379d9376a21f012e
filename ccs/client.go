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
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-ai/switchboard/internal/jsonscan"
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
//
// A well-formed envelope is read once, by json.Unmarshal, and its top-level keys are then
// checked by a walk over the bytes that the decoder has found valid JSON; one that is not
// JSON is read again token by token (decodeEnvelopeTokens), which tells which part fails first.
func DecodeEnvelope(data []byte) (*RawResponse, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: envelope is not a JSON object", ErrMalformed)
	}
	var env RawResponse
	decodeErr := json.Unmarshal(trimmed, &env)
	if decodeErr != nil && !errors.As(decodeErr, new(*json.UnmarshalTypeError)) {
		return decodeEnvelopeTokens(trimmed)
	}
	// Valid JSON: the keys' problems come first, as they do token by token.
	var keys envelopeKeys
	eachMember(trimmed, keys.add)
	if keys.badPrincipal {
		return nil, ErrEnvelopePrincipal // its value is not logged: it may name someone
	}
	if keys.repeated != "" {
		return nil, fmt.Errorf("%w: key %q appears twice", ErrMalformed, keys.repeated)
	}
	if decodeErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, decodeErr)
	}
	return &env, nil
}

// decodeEnvelopeTokens is DecodeEnvelope for data that may not be JSON: its keys are checked
// token by token up to the first syntax error, then the whole envelope is decoded.
func decodeEnvelopeTokens(trimmed []byte) (*RawResponse, error) {
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
	var keys envelopeKeys
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		keys.add(key, v[0])
	}
	if keys.badPrincipal {
		return ErrEnvelopePrincipal
	}
	if keys.repeated != "" {
		return fmt.Errorf("%w: key %q appears twice", ErrMalformed, keys.repeated)
	}
	return nil
}

// envelopeNames are the JSON names of [RawResponse]'s fields; principalField is the
// principal's place among them.
var envelopeNames = [...]string{"status", "principal", "domain_type", "enricher_id", "version",
	"payload", "partial", "cache_meta", "signature"}

const principalField = 1

// envelopeKeys are the top-level keys of an envelope read so far: whether its principal is
// not one string, and the first key that repeats one before it in the spellings the decoder
// takes for the same field (see [foldKey]).
type envelopeKeys struct {
	fields       uint16          // bit i: a key of envelopeNames[i] was read
	unknown      map[string]bool // keys of no field, folded; nil until one is read
	badPrincipal bool
	repeated     string
}

// add records key, whose value starts with first. A key fills the field whose name it equals
// exactly or else under strings.EqualFold, as encoding/json matches them (no two names are
// equal under it).
func (k *envelopeKeys) add(key string, first byte) {
	field := slices.Index(envelopeNames[:], key)
	if field < 0 {
		field = slices.IndexFunc(envelopeNames[:], func(name string) bool { return strings.EqualFold(name, key) })
	}
	var again bool
	if field < 0 {
		folded := foldKey(key)
		again = k.unknown[folded]
		if k.unknown == nil {
			k.unknown = map[string]bool{}
		}
		k.unknown[folded] = true
	} else {
		again = k.fields&(1<<field) != 0
		k.fields |= 1 << field
	}
	switch {
	case field == principalField:
		// Two principals (even equal ones) leave the envelope's owner to whichever one a
		// reader takes; a principal spelled otherwise or not a string names nobody.
		if again || key != "principal" || first != '"' {
			k.badPrincipal = true
		}
	case again && k.repeated == "":
		k.repeated = key
	}
}

// eachMember calls fn with each key of obj, unquoted, and the first byte of its value, in
// order. obj must be one valid JSON object and nothing else: the walk checks no syntax.
func eachMember(obj []byte, fn func(key string, first byte)) {
	i := jsonscan.SkipSpace(obj, 1) // past {
	for i < len(obj) && obj[i] == '"' {
		end := jsonscan.StringEnd(obj, i)
		key, _ := jsonscan.Unquote(obj[i:end])                      // valid, so no error
		i = jsonscan.SkipSpace(obj, jsonscan.SkipSpace(obj, end)+1) // past :
		fn(key, obj[i])
		i = jsonscan.SkipSpace(obj, jsonscan.ValueEnd(obj, i))
		if obj[i] == ',' {
			i = jsonscan.SkipSpace(obj, i+1)
		}
	}
}

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
