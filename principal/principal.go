package principal

import "context"

// Principal identifies the user (or service) a turn acts for. It is the JWT subject.
type Principal string

// String returns the principal's identifier.
func (p Principal) String() string { return string(p) }

type ctxKey struct{}

// NewContext returns a context carrying p: ctx itself when it carries p already, as a
// sub-agent's context does, which its orchestrator's turn set.
func NewContext(ctx context.Context, p Principal) context.Context {
	if have, ok := FromContext(ctx); ok && have == p {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal stored by [NewContext], if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok && p != ""
}

// Parse accepts s as a principal only if it is safe to carry: valid UTF-8, at most 256 bytes,
// and free of control characters that could split a header or a log line. Every way a
// principal enters the service (a token's sub, a trusted service naming a user, an
// embedding program's Authenticator) goes through the same check.
func Parse(s string) (Principal, error) { return subjectPrincipal(s) }
