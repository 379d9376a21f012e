package switchboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/switchboard-ai/switchboard"
	"github.com/switchboard-ai/switchboard/principal"
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

// Mount only the A2A surface behind the program's own sign-in: here a middleware that trusts
// an X-User header set by a gateway in front, and tells switchboard the user through
// Options.Authenticate.
func ExampleServer_A2A() {
	type userKey struct{}
	ctx := context.Background()
	srv, err := switchboard.New(ctx, switchboard.Options{
		Agents: "demo",
		Authenticate: func(r *http.Request) (principal.Principal, error) {
			user, ok := r.Context().Value(userKey{}).(string)
			if !ok {
				return "", errors.New("not signed in")
			}
			return principal.Principal(user), nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close(ctx)
	gateway := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if user := r.Header.Get("X-User"); user != "" {
				r = r.WithContext(context.WithValue(r.Context(), userKey{}, user))
			}
			next.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/agents/", http.StripPrefix("/agents", gateway(srv.A2A())))
	web := httptest.NewServer(mux)
	defer web.Close()

	send := func(user string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, web.URL+"/agents/a2a", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-`+user+`","role":"user","parts":[{"kind":"text","text":"how many points do I have?"}]}}}`))
		if user != "" {
			req.Header.Set("X-User", user)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result struct {
				Status struct{ State string }
			}
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out.Result.Status.State
	}
	fmt.Println(send("alice"))
	fmt.Println(send(""))
	// Output:
	// 200 completed
	// 401
}
