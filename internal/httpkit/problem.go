package httpkit

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Problem is what is wrong with a request, as the client is told it.
type Problem struct {
	Status  int
	Code    string
	Message string
}

// Write answers with the problem in the JSON error shape.
func (p *Problem) Write(w http.ResponseWriter) { WriteError(w, p.Status, p.Code, p.Message) }

// BadRequest is a 400 [Problem].
func BadRequest(code, message string) *Problem {
	return &Problem{Status: http.StatusBadRequest, Code: code, Message: message}
}

// JSONProblem says in a few words what is wrong with a body the JSON decoder refused,
// without echoing the body.
func JSONProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "syntax error"
	case errors.As(err, &typ) && typ.Field == "":
		return "it must be a JSON object"
	case errors.As(err, &typ):
		return "field " + typ.Field + " has the wrong type"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "malformed"
}
