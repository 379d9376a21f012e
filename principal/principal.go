package principal

import "context"

// Principal identifies the user (or service) a turn acts for. It is the JWT subject.
type Principal string

// String returns the principal's identifier.
func (p Principal) String() string { return string(p) }

type ctxKey struct{}

// NewContext returns a context carrying p.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal stored by [NewContext], if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok && p != ""
}
