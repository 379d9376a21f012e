package telemetry

import "context"

type turnIDKey struct{}

// WithTurnID returns a copy of ctx carrying the id of the turn being served, which [Handler]
// adds to every record logged with that context as turn_id.
func WithTurnID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, turnIDKey{}, id)
}

// TurnID returns the turn id set by [WithTurnID], or "" when ctx carries none.
func TurnID(ctx context.Context) string {
	id, _ := ctx.Value(turnIDKey{}).(string)
	return id
}
