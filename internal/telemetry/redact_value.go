package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
)

// Attr returns a with secrets removed: string-like values under a [SecretKey] become
// [Redacted] whole, other strings go through [Redactor.String], groups are walked, errors
// become their redacted text, and any other value is reduced to a redacted JSON-like tree.
// Numbers, booleans, times and durations are kept even under a secret key, so counts such as
// token_count survive.
func (r *Redactor) Attr(a slog.Attr) slog.Attr {
	return slog.Attr{Key: a.Key, Value: r.value(a.Value, SecretKey(a.Key))}
}

func (r *Redactor) value(v slog.Value, secret bool) slog.Value {
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.StringValue(r.text(v.String(), secret))
	case slog.KindGroup:
		in := v.Group()
		out := make([]slog.Attr, len(in))
		for i, a := range in {
			// A secret group (credentials={user, pass}) hides everything below it.
			out[i] = slog.Attr{Key: a.Key, Value: r.value(a.Value, secret || SecretKey(a.Key))}
		}
		return slog.GroupValue(out...)
	case slog.KindAny:
		return r.anyValue(v.Any(), secret)
	default:
		return v
	}
}

// text redacts one string; under a secret key any non-empty value is hidden whole.
func (r *Redactor) text(s string, secret bool) string {
	if secret && s != "" {
		return Redacted
	}
	return r.String(s)
}

// anyValue handles values the formatting handler would otherwise print with json.Marshal or
// fmt, either of which could reveal a secret field.
func (r *Redactor) anyValue(x any, secret bool) slog.Value {
	switch x := x.(type) {
	case nil:
		return slog.AnyValue(nil)
	case error:
		return slog.StringValue(r.text(x.Error(), secret))
	case []byte:
		return slog.StringValue(r.text(string(x), secret))
	}
	tree, ok := jsonTree(x)
	if m, isMap := tree.(map[string]any); isMap && len(m) == 0 {
		// A struct with only unexported fields marshals to {}; fmt shows what it holds.
		ok = false
	}
	if !ok {
		return slog.StringValue(r.text(fmt.Sprintf("%+v", x), secret))
	}
	return slog.AnyValue(r.tree(tree, secret))
}

// jsonTree round-trips x through encoding/json into maps, slices and scalars.
func jsonTree(x any) (any, bool) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return nil, false
	}
	return tree, true
}

// tree redacts a decoded JSON value in place and returns it.
func (r *Redactor) tree(x any, secret bool) any {
	switch x := x.(type) {
	case string:
		return r.text(x, secret)
	case map[string]any:
		for k, v := range x {
			x[k] = r.tree(v, secret || SecretKey(k))
		}
		return x
	case []any:
		for i, v := range x {
			x[i] = r.tree(v, secret)
		}
		return x
	default: // json.Number, bool, nil
		return x
	}
}
