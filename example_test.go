package switchboard_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard"
)

// Serve the demo agents with everything embedded (offline model, demo CCS, in-memory store,
// dev sign-in) and ask a two-intent question over the chat API.
func Example() {
	ctx := context.Background()
	srv, err := switchboard.New(ctx, switchboard.Options{Agents: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close(ctx)
	web := httptest.NewServer(srv.Handler()) // or http.ListenAndServe(":8080", srv.Handler())
	defer web.Close()

	token, err := srv.DevToken("alice", time.Hour)
	if err != nil {
		log.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, web.URL+"/v1/turns",
		strings.NewReader(`{"message":"any deals on running shoes? and how many points do I have?"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	events, _ := io.ReadAll(resp.Body) // the stream ends after turn.completed
	fmt.Println(resp.StatusCode, strings.Contains(string(events), "event: turn.completed"))
	// Output: 200 true
}
