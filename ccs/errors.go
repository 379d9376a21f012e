package ccs

import (
	"errors"
	"fmt"
)

var (
	// ErrMissingPrincipal means a request had no principal. The client refuses such requests
	// before any network call; a CCS answering 400 missing_principal maps here too.
	ErrMissingPrincipal = errors.New("ccs: missing principal")

	// ErrPrincipalRejected means the CCS answered 403 principal_mismatch: the request's
	// principal did not match the calling credential or header. It is a security signal and
	// must not be retried.
	ErrPrincipalRejected = errors.New("ccs: principal rejected")
	// ErrEnvelopePrincipal means an envelope's principal is not one JSON string: a number, an
	// array, an object, a bool or null, a key spelled in another case, or a principal given
	// twice. It names no single user, so it is a principal mismatch: suppressed, counted and
	// alerted, never retried.
	ErrEnvelopePrincipal = errors.New("ccs: envelope principal is not one string")

	// ErrUnavailable means no envelope came back: transport failure, timeout, or an HTTP
	// status other than the two above. The cause (a [*HTTPError] or the transport error) is
	// wrapped alongside.
	ErrUnavailable = errors.New("ccs: unavailable")

	// ErrMalformed means bytes came back that are not a valid envelope or payload.
	ErrMalformed = errors.New("ccs: malformed response")

	// ErrUnregistered means no payload type is registered for an envelope's
	// (domain_type, enricher_id), or it is registered with another Go type.
	ErrUnregistered = errors.New("ccs: unregistered domain type")

	// ErrBadSignature means an envelope's signature is missing or does not verify.
	ErrBadSignature = errors.New("ccs: bad signature")

	// ErrInvalidConfig means a [ClientConfig] cannot produce a working client.
	ErrInvalidConfig = errors.New("ccs: invalid config")

	// ErrInvalidRequest means an [EnricherRequest] cannot be sent (for example an empty
	// enricher id). Nothing was sent.
	ErrInvalidRequest = errors.New("ccs: invalid request")

	// ErrDuplicateRegistration means a (domain_type, enricher_id) pair was registered twice.
	ErrDuplicateRegistration = errors.New("ccs: duplicate registration")
)

// HTTPError describes a non-200 answer from the CCS. It is wrapped together with
// [ErrUnavailable] (or the more specific sentinels), so match it with errors.As.
type HTTPError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the "error" member of the JSON body, when the body had one (for example
	// "unknown_enricher" or "invalid_params"); empty otherwise.
	Code string
}

func (e *HTTPError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("ccs: http status %d", e.StatusCode)
	}
	return fmt.Sprintf("ccs: http status %d: %s", e.StatusCode, e.Code)
}
