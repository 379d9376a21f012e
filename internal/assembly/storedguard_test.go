package assembly

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/stream"
)

// leakyModel answers every call with text that holds internal details, as a real model that
// repeats an error it was shown might.
type leakyModel struct{ text string }

func (m leakyModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	if o.StreamingFunc != nil {
		for i := 0; i < len(m.text); i += 5 {
			if err := o.StreamingFunc(ctx, []byte(m.text[i:min(i+5, len(m.text))])); err != nil {
				return nil, err
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.text}}}, nil
}

func (m leakyModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// What the stream scrubbed is scrubbed the same wherever the reply is served later: the turn,
// the episode and the A2A task.
func TestStoredReplyIsTheGuardedOne(t *testing.T) {
	const leak = "Sorry, rewards failed: HTTP 503 Service Unavailable, principal_mismatch at ccs/client.go:88. Try later."
	ta := newAppWith(t, "../../demo", func(o *Input) {
		o.Models = map[string]llmModel{"default": leakyModel{text: leak}}
	})
	tok := ta.token(t, "alice")
	events := ta.streamTurn(t, tok, "", "how many points do i have")
	var streamed, turnID, episode string
	for _, ev := range events {
		switch ev.Name {
		case "turn.started":
			started := decode[stream.TurnStarted](t, ev)
			turnID, episode = started.TurnID, started.EpisodeID
		case "reply.completed":
			streamed = decode[stream.ReplyCompleted](t, ev).Text
		}
	}
	if streamed == "" || strings.Contains(streamed, "principal_mismatch") {
		t.Fatalf("streamed reply = %q, want it scrubbed", streamed)
	}
	read := func(method, path, body string) string {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, _ := http.NewRequestWithContext(t.Context(), method, ta.srv.URL+path, r)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := ta.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for name, body := range map[string]string{
		"GET /v1/turns/{id}":    read(http.MethodGet, "/v1/turns/"+turnID, ""),
		"GET /v1/episodes/{id}": read(http.MethodGet, "/v1/episodes/"+episode, ""),
		"A2A tasks/get":         read(http.MethodPost, "/a2a", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"`+turnID+`"}}`),
	} {
		for _, internal := range []string{"principal_mismatch", "client.go", "503 Service"} {
			if strings.Contains(body, internal) {
				t.Errorf("%s serves %q: %s", name, internal, body)
			}
		}
		if !strings.Contains(body, "Try later.") {
			t.Errorf("%s does not serve the reply: %s", name, body)
		}
	}
}
