package httpkit

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// ErrShuttingDown is the cause with which requests' contexts are cancelled on a graceful
// shutdown: event streams end, and turns are not treated as abandoned.
var ErrShuttingDown = errors.New("switchboard: server shutting down")

// ErrorResponse is the JSON error body: {"error":{"code","message"}}. Messages are written
// for clients; causes stay in logs.
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody is the inside of an [ErrorResponse].
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteError answers with the JSON error shape.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(ErrorResponse{Error: ErrorBody{Code: code, Message: message}})
}

// InvalidTextMessage answers text that no store can hold as sent.
const InvalidTextMessage = "Text and ids must be valid UTF-8 without NUL bytes."

// Internal is the message of every unexpected failure: what went wrong goes to the log only.
const Internal = "Something went wrong on our side. Please try again."

// MethodNotAllowed answers a request to a route with a method it does not serve: 405 in the
// JSON error shape, with the methods it does serve in Allow. A body still arriving is not
// waited for ([DropBody]).
func MethodNotAllowed(allow ...string) http.HandlerFunc {
	methods := strings.Join(allow, ", ")
	return func(w http.ResponseWriter, r *http.Request) {
		DropBody(w, r)
		w.Header().Set("Allow", methods)
		WriteError(w, http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed here.")
	}
}

// NotFound answers every request with 404 in the JSON error shape: a surface's catch-all. A
// body still arriving is not waited for ([DropBody]).
func NotFound(w http.ResponseWriter, r *http.Request) {
	DropBody(w, r)
	WriteError(w, http.StatusNotFound, "not_found", "No such route.")
}
