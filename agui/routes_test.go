package agui

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// Mounted alone, the handler answers its route's other methods as the whole handler does: 405
// in the JSON error shape, saying which method to use; unknown paths are 404.
func TestRoutesAnswerOtherMethods(t *testing.T) {
	h := newHarness(t, nil)
	tests := []struct {
		method, path string
		wantStatus   int
		wantCode     string
		wantAllow    string
	}{
		{http.MethodGet, Route, http.StatusMethodNotAllowed, "method_not_allowed", "POST"},
		{http.MethodGet, "/elsewhere", http.StatusNotFound, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, h.srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := h.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body httpkit.ErrorResponse
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != tt.wantStatus || body.Error.Code != tt.wantCode {
				t.Errorf("%s %s = %d %q, want %d %q", tt.method, tt.path, resp.StatusCode, body.Error.Code, tt.wantStatus, tt.wantCode)
			}
			if got := resp.Header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
		})
	}
}
