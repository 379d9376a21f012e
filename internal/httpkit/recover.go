package httpkit

import (
	"errors"
	"log/slog"
	"net/http"
)

// Recover serves next and turns a panic in it into a 500 in the JSON error shape, so that a
// surface mounted on its own, outside the whole handler's middleware, answers a bug the same
// way: the panic goes to log, never to the client, and the process lives on. A panic with
// [http.ErrAbortHandler] passes on, as net/http expects. Once the response has begun (an event
// stream), nothing can be answered any more: the response is aborted, so that the client sees
// a cut stream rather than one that ended cleanly.
func Recover(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &beganWriter{ResponseWriter: w}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p)
			}
			log.ErrorContext(r.Context(), "handler panic", "path", r.URL.Path, "panic", p)
			if rw.began {
				panic(http.ErrAbortHandler)
			}
			WriteError(w, http.StatusInternalServerError, "internal", Internal)
		}()
		next.ServeHTTP(rw, r)
	})
}

// beganWriter notes whether the response has begun. Unwrap lets [http.ResponseController]
// reach the writer underneath (flush, deadlines, hijack).
type beganWriter struct {
	http.ResponseWriter
	began bool
}

func (w *beganWriter) WriteHeader(status int) {
	if status >= 200 { // 1xx answers are not the response
		w.began = true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *beganWriter) Write(b []byte) (int, error) {
	w.began = true
	return w.ResponseWriter.Write(b)
}

func (w *beganWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
