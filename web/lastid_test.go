package web

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
)

// A Last-Event-ID no event of the stream could carry (a word, a negative number, one past
// the ids' range, which is a number all the same) is refused with what the header must hold
// and how to start from the first event, whichever way the client sent it.
func TestBadLastEventID(t *testing.T) {
	srv := newBoundedServer(t, nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/turns", strings.NewReader(`{"message":"my points?"}`))
	req.Header.Set("Authorization", "Bearer tok-alice")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		TurnID string `json:"turn_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if err != nil || started.TurnID == "" {
		t.Fatalf("POST /v1/turns = %d, %v", resp.StatusCode, err)
	}
	for _, tc := range []struct{ header, query string }{
		{header: "xyz"}, {header: "-1"}, {header: "99999999999999999999999"}, {query: "xyz"},
	} {
		url := srv.URL + "/v1/turns/" + started.TurnID + "/events"
		if tc.query != "" {
			url += "?lastEventId=" + tc.query
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer tok-alice")
		if tc.header != "" {
			req.Header.Set("Last-Event-ID", tc.header)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e httpkit.ErrorResponse
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &e) != nil ||
			e.Error.Code != "invalid_last_event_id" || !strings.Contains(e.Error.Message, "leave it out") {
			t.Errorf("Last-Event-ID %q, lastEventId %q = %d %s; want 400 invalid_last_event_id saying to leave it out for the first event",
				tc.header, tc.query, resp.StatusCode, body)
		}
	}
}
