package telemetry

import (
	"context"
	"io"
	"log/slog"
	"slices"

	"go.opentelemetry.io/otel/trace"
)

// Log attribute keys added by [Handler].
const (
	KeyTraceID = "trace_id"
	KeySpanID  = "span_id"
	KeyTurnID  = "turn_id"
)

// Options configure [NewLogger].
type Options struct {
	// JSON selects one JSON object per line (production); otherwise slog's text format (dev).
	JSON bool
	// Level is the minimum level written.
	Level slog.Level
	// Secrets are literal values, such as configured API keys, removed wherever they appear.
	Secrets []string
}

// NewLogger returns a logger writing to w through a [Handler], so every record is redacted
// before it is formatted and carries trace_id, span_id and turn_id from its context.
func NewLogger(w io.Writer, o Options) *slog.Logger {
	ho := &slog.HandlerOptions{Level: o.Level}
	var inner slog.Handler
	if o.JSON {
		inner = slog.NewJSONHandler(w, ho)
	} else {
		inner = slog.NewTextHandler(w, ho)
	}
	return slog.New(NewHandler(inner, NewRedactor(o.Secrets...)))
}

// Handler is a [slog.Handler] that redacts a record with its [Redactor] and adds correlation
// ids before passing it to the inner handler, so the inner handler never formats a secret.
// trace_id and span_id come from the span in the record's context (when valid), turn_id from
// [WithTurnID] (unless the record already has a top-level turn_id). All three are top-level
// keys even under [Handler.WithGroup].
type Handler struct {
	inner slog.Handler
	r     *Redactor
	// ops are the WithAttrs and WithGroup calls made so far, oldest first. They are replayed
	// at Handle time rather than forwarded, so the correlation ids stay outside any group.
	ops []groupOrAttrs
}

var _ slog.Handler = (*Handler)(nil)

// groupOrAttrs is one WithGroup (group != "") or WithAttrs (attrs, already redacted) call.
type groupOrAttrs struct {
	group string
	attrs []slog.Attr
}

// NewHandler wraps inner; a nil r applies only the shape rules of [SafeString].
func NewHandler(inner slog.Handler, r *Redactor) *Handler {
	if r == nil {
		r = defaultRedactor
	}
	return &Handler{inner: inner, r: r}
}

// Enabled reports whether the inner handler handles level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

// WithAttrs returns a handler that adds attrs, redacted now, to every record.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.r.Attr(a)
	}
	return h.with(groupOrAttrs{attrs: red})
}

// WithGroup returns a handler that nests later attributes under name.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(groupOrAttrs{group: name})
}

func (h *Handler) with(op groupOrAttrs) *Handler {
	return &Handler{inner: h.inner, r: h.r, ops: append(slices.Clip(h.ops), op)}
}

// Handle redacts rec and hands a rewritten copy to the inner handler.
func (h *Handler) Handle(ctx context.Context, rec slog.Record) error {
	if ctx == nil {
		ctx = context.Background()
	}
	attrs := make([]slog.Attr, 0, rec.NumAttrs())
	rec.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, h.r.Attr(a))
		return true
	})

	// Fold the WithGroup/WithAttrs history around the record's own attributes, innermost first.
	for i := len(h.ops) - 1; i >= 0; i-- {
		op := h.ops[i]
		if op.group != "" {
			attrs = []slog.Attr{{Key: op.group, Value: slog.GroupValue(attrs...)}}
			continue
		}
		attrs = append(slices.Clip(op.attrs), attrs...)
	}

	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		if !hasKey(attrs, KeyTraceID) { // a record may name its trace itself (security alerts do)
			out.AddAttrs(slog.String(KeyTraceID, sc.TraceID().String()))
		}
		out.AddAttrs(slog.String(KeySpanID, sc.SpanID().String()))
	}
	if id := TurnID(ctx); id != "" && !hasKey(attrs, KeyTurnID) {
		out.AddAttrs(slog.String(KeyTurnID, h.r.String(id)))
	}
	out.AddAttrs(attrs...)
	return h.inner.Handle(ctx, out)
}

func hasKey(attrs []slog.Attr, key string) bool {
	return slices.ContainsFunc(attrs, func(a slog.Attr) bool { return a.Key == key })
}
