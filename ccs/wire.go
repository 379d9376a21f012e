package ccs

// Wire vocabulary shared by the client and any CCS implementation (including ccsdemo).
const (
	// EnrichPathPrefix is followed by the enricher id: POST {base}/v1/enrich/{enricher_id}.
	EnrichPathPrefix = "/v1/enrich/"

	// HeaderPrincipal carries the on-behalf-of principal on every call, next to the body's
	// principal field; a CCS rejects the call when the two differ.
	HeaderPrincipal = "X-Principal"

	// MaxEnvelopeBytes bounds how much of a response body the client reads.
	MaxEnvelopeBytes = 1 << 20
)

// Error codes carried as {"error": code} in non-200 CCS answers.
const (
	CodeMissingPrincipal  = "missing_principal"
	CodePrincipalMismatch = "principal_mismatch"
	CodeUnauthorized      = "unauthorized"
	CodeUnknownEnricher   = "unknown_enricher"
	CodeInvalidParams     = "invalid_params"
	CodeBadRequest        = "bad_request"
)

// ErrorBody is the JSON body of a non-200 CCS answer.
type ErrorBody struct {
	Error string `json:"error"`
}
