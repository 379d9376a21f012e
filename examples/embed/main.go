// Command embed shows switchboard used as a library from a module of its own: it builds the
// service with its own langchaingo model, mounts the handler under /assistant/ of an existing
// net/http mux, and asks one two-intent question over the chat API.
//
//	go run .            # prints the streamed reply and exits
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard"
)

func main() {
	reply, err := run(context.Background(), os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply)
}

// run serves the agents folder with deskModel under /assistant/ and returns the reply to a
// question for both sub-agents.
func run(ctx context.Context, logs io.Writer) (string, error) {
	srv, err := switchboard.New(ctx, switchboard.Options{
		Agents: "agents",
		Models: map[string]llms.Model{"default": deskModel{}},
	})
	if err != nil {
		return "", err
	}
	defer srv.Close(ctx)

	// An existing server with routes of its own; switchboard answers under /assistant/.
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	mux.Handle("/assistant/", http.StripPrefix("/assistant", srv.Handler()))
	web := httptest.NewServer(mux)
	defer web.Close()

	token, err := srv.DevToken("alice", time.Hour)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, web.URL+"/assistant/v1/turns",
		strings.NewReader(`{"message":"is a room free at 3pm, and what's for lunch?"}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST /assistant/v1/turns: %s", resp.Status)
	}
	return replyOf(resp.Body, logs)
}

// replyOf reads an SSE stream to turn.completed and returns the text of reply.completed.
func replyOf(r io.Reader, logs io.Writer) (string, error) {
	body, err := io.ReadAll(r) // a turn's stream ends after turn.completed
	if err != nil {
		return "", err
	}
	var reply string
	for _, frame := range strings.Split(string(body), "\n\n") {
		var event, data string
		for _, line := range strings.Split(frame, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				event = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		if event != "" {
			fmt.Fprintln(logs, event, data)
		}
		if event == "reply.completed" {
			reply = data
		}
	}
	if reply == "" {
		return "", fmt.Errorf("no reply in the stream:\n%s", body)
	}
	return reply, nil
}
