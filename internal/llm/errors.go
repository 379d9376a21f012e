package llm

import (
	"errors"
	"strings"
)

var (
	// ErrInvalidConfig marks a model configuration that cannot be used; the message
	// names the alias and what is wrong.
	ErrInvalidConfig = errors.New("invalid model config")
	// ErrUnknownModel is returned by [Registry.Model] for an alias that is not configured.
	ErrUnknownModel = errors.New("unknown model alias")
	// ErrUnavailable marks a provider that could not answer: rate limited, server errors
	// or connection failures that outlasted the retries, the per-call timeout, or a stream
	// that broke after text had been delivered. Callers treat it as "model unavailable".
	ErrUnavailable = errors.New("model unavailable")
	// ErrRejected marks a request the provider refused with a 4xx status other than 429
	// (bad request, authentication, unknown model). It is never retried.
	ErrRejected = errors.New("model request rejected")
)

// redact returns err with every occurrence of secret removed from its text: some
// OpenAI-compatible servers echo the credential in their error messages. A redacted error
// does not unwrap to the original, which would still carry the secret; provider errors are
// plain strings in langchaingo, so nothing useful for errors.Is is lost. Short secrets are
// left alone: replacing a short dummy token would mangle messages.
func redact(err error, secret string) error {
	if err == nil || len(secret) < 8 || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), secret, "[redacted]"))
}
