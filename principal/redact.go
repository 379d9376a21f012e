package principal

import "regexp"

var (
	// bearerValue matches an Authorization-style "Bearer <token68>" (RFC 6750), any case.
	bearerValue = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
	// jwtLike matches three base64url segments joined by dots whose first segment encodes a
	// JSON object, as every JWS header does ("{" encodes to "ey"). Requiring that prefix keeps
	// host names and version strings such as "api.example.com" or "1.2.3" intact. Turn-scoped
	// tokens are JWTs too, so they are caught here, including inside URLs.
	jwtLike = regexp.MustCompile(`ey[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)
)

// Redacted replaces every credential [Redact] finds.
const Redacted = "[REDACTED]"

// Redact returns s with bearer values and anything shaped like a JWT replaced by [Redacted],
// keeping the word "Bearer" so the log line still says what was there. Run it over any string
// that may hold request headers, URLs or token-bearing errors before it reaches a log or a span.
func Redact(s string) string {
	s = bearerValue.ReplaceAllString(s, "${1} "+Redacted)
	return jwtLike.ReplaceAllString(s, Redacted)
}
