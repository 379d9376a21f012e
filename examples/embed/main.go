// Command embed shows switchboard used as a library from a module of its own: it builds the
// service with its own langchaingo model and mounts only the A2A surface, under /agents/ of an
// existing net/http mux, behind the program's own authentication (an API key per caller),
// which tells switchboard whom each request speaks for. It then asks one two-intent question
// over A2A's message/send and prints the reply.
//
//	go run .            # prints the reply and exits
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/principal"
)

func main() {
	reply, err := run(context.Background(), os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply)
}

// apiKeys are this program's callers: key -> user. A real program reads them from its own
// store; switchboard never sees the keys, only the users.
var apiKeys = map[string]string{"key-alice": "alice", "key-bob": "bob"}

type userKey struct{}

// requireAPIKey is the program's own authentication: it refuses requests without a known
// X-API-Key and puts the user in the request's context.
func requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/agent-card.json" { // the card is public
			next.ServeHTTP(w, r)
			return
		}
		user, ok := apiKeys[r.Header.Get("X-API-Key")]
		if !ok {
			http.Error(w, "unknown API key", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// userOf tells switchboard whom a request speaks for: the user requireAPIKey found.
func userOf(r *http.Request) (principal.Principal, error) {
	user, ok := r.Context().Value(userKey{}).(string)
	if !ok {
		return "", errors.New("no user: the request did not pass requireAPIKey")
	}
	return principal.Principal(user), nil
}

// newMux serves the program's own routes and, under /agents/, switchboard's A2A surface only.
func newMux(srv *switchboard.Server) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	mux.Handle("/agents/", http.StripPrefix("/agents", requireAPIKey(srv.A2A())))
	return mux
}

// run serves the agents folder with deskModel and returns the reply to a question for both
// sub-agents, asked over A2A as alice.
func run(ctx context.Context, logs io.Writer) (string, error) {
	srv, err := switchboard.New(ctx, switchboard.Options{
		Agents:       "agents",
		Models:       map[string]llms.Model{"default": deskModel{}},
		Authenticate: userOf,
		Logger:       slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		return "", err
	}
	defer srv.Close(ctx)
	web := httptest.NewServer(newMux(srv))
	defer web.Close()

	task, err := sendMessage(ctx, web.URL+"/agents/a2a", "key-alice", "is a room free at 3pm, and what's for lunch?")
	if err != nil {
		return "", err
	}
	return task, nil
}

// sendMessage calls A2A message/send and returns the text of the finished task's artifacts.
func sendMessage(ctx context.Context, url, apiKey, text string) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "message/send",
		"params": map[string]any{"message": map[string]any{
			"kind": "message", "messageId": "m-1", "role": "user",
			"parts": []any{map[string]any{"kind": "text", "text": text}},
		}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST %s: %s", url, resp.Status)
	}
	var out struct {
		Result *struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
			Artifacts []struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifacts"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	if out.Error != nil || out.Result == nil {
		return "", fmt.Errorf("message/send failed: %+v", out.Error)
	}
	var reply strings.Builder
	for _, a := range out.Result.Artifacts {
		for _, p := range a.Parts {
			reply.WriteString(p.Text)
		}
	}
	if out.Result.Status.State != "completed" || reply.Len() == 0 {
		return "", fmt.Errorf("task ended %s with reply %q", out.Result.Status.State, reply.String())
	}
	return reply.String(), nil
}
