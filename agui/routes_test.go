package agui

import (
	"net/http"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/surfacetest"
)

// Mounted alone, the handler answers its route's other methods as the whole handler does: 405
// in the JSON error shape, saying which method to use; unknown paths are 404.
func TestRoutesAnswerOtherMethods(t *testing.T) {
	h := newHarness(t, nil)
	surfacetest.CheckMethods(t, h.srv, []surfacetest.MethodCase{
		{Method: http.MethodGet, Path: Route, WantStatus: http.StatusMethodNotAllowed, WantCode: "method_not_allowed", WantAllow: "POST"},
		{Method: http.MethodGet, Path: "/elsewhere", WantStatus: http.StatusNotFound, WantCode: "not_found", WantAllow: ""},
	})
}
