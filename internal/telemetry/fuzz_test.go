package telemetry

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// FuzzRedactor checks, for any text and any registered secret, that redaction never panics and
// never lets a registered secret through, neither from [Redactor.String] nor into what
// [Handler] passes to its inner handler.
func FuzzRedactor(f *testing.F) {
	f.Add("Authorization: Bearer abcdefgh12345678", "abcdefgh12345678")
	f.Add("session "+testJWT, testRegistered)
	f.Add("k="+testOpenAI+" "+testAnthropic, "sk-ant")
	f.Add("postgres://u:p4ss@db/x?password=p4ss", "p4ss")
	f.Add("D]xyxy", "D]xy")
	f.Add("aaaa", "aaa")
	f.Add("\xff\xfe token=\x00", "\xff\xfe t")
	f.Fuzz(func(t *testing.T, text, secret string) {
		r := NewRedactor(secret)
		out := r.String(text)
		registered := len(secret) >= MinSecretLen && !strings.Contains(Redacted, secret)
		if registered && strings.Contains(out, secret) {
			t.Fatalf("String(%q) = %q, contains secret %q", text, out, secret)
		}
		_ = SafeString(text)

		inner := &captureHandler{}
		l := slog.New(NewHandler(inner, r))
		l.With(text, text).Info(text, "v", text, slog.Group("g", slog.Any("err", errString(text)), slog.Any(text, []string{text})))
		if !registered {
			return
		}
		for _, s := range inner.strings {
			if strings.Contains(s, secret) {
				t.Fatalf("inner handler received %q, contains secret %q", s, secret)
			}
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }

// captureHandler records every string value it is given: the message and string attribute
// values, walking groups and the JSON trees Handler builds for slog.Any values.
type captureHandler struct{ strings []string }

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler {
	panic("Handler must not forward WithAttrs")
}
func (h *captureHandler) WithGroup(string) slog.Handler { panic("Handler must not forward WithGroup") }

func (h *captureHandler) Handle(_ context.Context, rec slog.Record) error {
	h.strings = append(h.strings, rec.Message)
	rec.Attrs(func(a slog.Attr) bool { h.value(a.Value); return true })
	return nil
}

func (h *captureHandler) value(v slog.Value) {
	switch v.Kind() {
	case slog.KindString:
		h.strings = append(h.strings, v.String())
	case slog.KindGroup:
		for _, a := range v.Group() {
			h.value(a.Value)
		}
	case slog.KindAny:
		h.tree(v.Any())
	}
}

func (h *captureHandler) tree(x any) {
	switch x := x.(type) {
	case string:
		h.strings = append(h.strings, x)
	case []any:
		for _, e := range x {
			h.tree(e)
		}
	case map[string]any:
		for _, e := range x {
			h.tree(e)
		}
	}
}
