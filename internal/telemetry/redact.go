package telemetry

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every secret that redaction removes.
const Redacted = "[REDACTED]"

// MinSecretLen is the shortest literal secret a [Redactor] accepts. Shorter strings are
// ignored: they cannot be real credentials, and replacing every occurrence of, say, "ab" would
// make logs unreadable.
const MinSecretLen = 4

// valuePatterns find secrets by their shape. When a pattern has a capture group only the group
// is replaced, so "Bearer abc…" keeps the scheme word and a reader still sees what was there.
// Each comes with what every one of its matches holds: a string without that is not run
// through the pattern, which (its case folding and word boundaries leave it no literal to skip
// ahead by) would read all of it to find nothing, as it does in most log values.
var valuePatterns = []struct {
	re    *regexp.Regexp
	holds func(s string) bool
}{
	// JSON Web Tokens: a base64url JSON header ("eyJ" is `{"`), payload and optional signature.
	{regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`), contains("eyJ")},
	// HTTP bearer credentials. The length floor keeps prose ("the bearer of") intact. No
	// letter of "bearer" folds to a rune outside ASCII, so an ASCII fold finds every match.
	{regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})`), containsFold("bearer")},
	// OpenAI ("sk-", "sk-proj-") and Anthropic ("sk-ant-") API keys.
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`), contains("sk-")},
	// Google API keys, as used by the Gemini provider.
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), contains("AIza")},
	// key=value or key: value pairs inside free text (DSNs, query strings, header dumps). The
	// key words fold to runes outside ASCII (ſ, the Kelvin sign), so only the separator is
	// looked for.
	{regexp.MustCompile(`(?i)(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|authorization|credentials?)["']?\s*[:=]\s*["']?([^\s"',;&]+)`),
		func(s string) bool { return strings.ContainsAny(s, ":=") }},
	// Passwords in URL userinfo: scheme://user:password@host.
	{regexp.MustCompile(`://[^/\s:@]+:([^/\s@]+)@`), contains("://")},
}

// contains is a valuePatterns test: whether s holds lit.
func contains(lit string) func(s string) bool {
	return func(s string) bool { return strings.Contains(s, lit) }
}

// containsFold is a valuePatterns test: whether s holds word, a lower-case ASCII word, in any
// ASCII case.
func containsFold(word string) func(s string) bool {
	return func(s string) bool {
		for i := 0; i+len(word) <= len(s); i++ {
			if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
				return true
			}
		}
		return false
	}
}

// Redactor removes secrets from strings: values shaped like credentials (see [SafeString]) and
// literal secrets registered with [NewRedactor]. The zero value applies the shape rules only.
// A Redactor is immutable and safe for concurrent use.
type Redactor struct {
	secrets []string // longest first, at least MinSecretLen bytes, none inside Redacted
}

// NewRedactor returns a Redactor that also removes every occurrence of the given literal
// secrets, such as configured API keys. Empty strings, strings shorter than [MinSecretLen] and
// substrings of [Redacted] are ignored.
func NewRedactor(secrets ...string) *Redactor {
	var kept []string
	for _, s := range secrets {
		if len(s) < MinSecretLen || strings.Contains(Redacted, s) || slices.Contains(kept, s) {
			continue
		}
		kept = append(kept, s)
	}
	slices.SortFunc(kept, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return &Redactor{secrets: kept}
}

// defaultRedactor backs SafeString.
var defaultRedactor = NewRedactor()

// SafeString returns s with credential-shaped values replaced by [Redacted]: JWTs, bearer
// tokens, sk-/sk-ant- and Google API keys, password=… style pairs and URL passwords. Use it on
// values that might carry user or upstream text before putting them in span attributes or
// events. Spans exported through [Setup] are redacted again, with the configured literal
// secrets, so this is defence in depth rather than the only line.
func SafeString(s string) string { return defaultRedactor.String(s) }

// String returns s with every secret replaced by [Redacted]. It never returns a string that
// contains one of the registered secrets.
func (r *Redactor) String(s string) string {
	if s == "" {
		return s
	}
	spans := r.find(s)
	if len(spans) == 0 {
		return s
	}
	out := replaceSpans(s, spans)
	// Joining a marker with its neighbours can, in contrived cases, spell a registered secret
	// again (secret "D]xy", text "D]xyxy"). Refuse to emit anything then.
	for _, sec := range r.secrets {
		if strings.Contains(out, sec) {
			return Redacted
		}
	}
	return out
}

// find returns the byte ranges of s to replace, unsorted and possibly overlapping.
func (r *Redactor) find(s string) [][2]int {
	var spans [][2]int
	for _, sec := range r.secrets {
		// Step one byte at a time so overlapping occurrences are all covered.
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], sec)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{i + j, i + j + len(sec)})
			i += j + 1
		}
	}
	for _, p := range valuePatterns {
		if !p.holds(s) {
			continue
		}
		for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
			if len(m) >= 4 && m[2] >= 0 {
				spans = append(spans, [2]int{m[2], m[3]})
			} else {
				spans = append(spans, [2]int{m[0], m[1]})
			}
		}
	}
	return spans
}

// replaceSpans replaces each maximal union of overlapping or touching ranges with one marker.
func replaceSpans(s string, spans [][2]int) string {
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		if end <= start {
			continue // an empty match, e.g. nothing captured
		}
		b.WriteString(s[pos:start])
		b.WriteString(Redacted)
		pos = end
	}
	b.WriteString(s[pos:])
	return b.String()
}
