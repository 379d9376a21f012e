package switchboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard"
	sse "github.com/switchboard-ai/switchboard/stream"
)

// stuckModel answers nothing until its call is cancelled, as a provider that hangs.
type stuckModel struct{ called chan struct{} }

func (m stuckModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	select {
	case m.called <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (m stuckModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// Options.Models replaces the default model, /readyz says so, and Close ends open event
// streams and cancels turns still running after the grace period, so an embedding server's
// own shutdown can finish.
func TestModelsAndClose(t *testing.T) {
	model := stuckModel{called: make(chan struct{}, 1)}
	srv, err := switchboard.New(t.Context(), switchboard.Options{
		Agents: "demo", Models: map[string]llms.Model{"default": model}, ShutdownGrace: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv.Handler())
	defer web.Close()

	resp, err := http.Get(web.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	ready, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(ready), "supplied by the embedding program") {
		t.Errorf("/readyz does not say the default model is the embedding program's: %s", ready)
	}

	token, err := srv.DevToken("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, web.URL+"/v1/turns", strings.NewReader(`{"message":"any deals?"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	<-model.called // the turn is inside the supplied model

	started, read := make(chan struct{}), make(chan string)
	go func() {
		var names []string
		for ev, err := range sse.ReadEvents(stream.Body) {
			if err != nil {
				break
			}
			if names = append(names, ev.Name); ev.Name == "turn.started" {
				close(started)
			}
		}
		read <- strings.Join(names, " ")
	}()
	<-started // the client has the turn's first event
	// Close ends the stream at once, while the turn is still within its grace period.
	closeCtx, stopWaiting := context.WithCancel(context.Background())
	closed := make(chan error)
	go func() { closed <- srv.Close(closeCtx) }()
	select {
	case events := <-read:
		if !strings.Contains(events, "turn.started") || strings.Contains(events, "turn.completed") {
			t.Errorf("stream at Close = %q, want the turn's start and not its end", events)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close left the event stream open")
	}
	stopWaiting() // past the grace: the turn is cancelled and Close returns
	if err := <-closed; err != nil {
		t.Fatalf("Close() = %v", err)
	}
}

// preparingModel records the tool sets a server prepares it for.
type preparingModel struct {
	stuckModel
	prepared *[]int // how many ask_ tools each Prepare call carried
}

func (m preparingModel) Prepare(system string, tools []llms.Tool) {
	*m.prepared = append(*m.prepared, len(tools))
}

// A model that can prepare for a tool set is given the orchestrator's when the agents are
// bound, so that the offline model reads its agents' texts before the first turn.
func TestBindPreparesTheOrchestratorModel(t *testing.T) {
	var prepared []int
	srv, err := switchboard.New(t.Context(), switchboard.Options{
		Agents: "demo", Models: map[string]llms.Model{"default": preparingModel{stuckModel: stuckModel{called: make(chan struct{}, 1)}, prepared: &prepared}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(t.Context())
	if len(prepared) != 1 || prepared[0] != 4 {
		t.Errorf("Prepare calls = %v, want one with the demo's 4 ask_ tools", prepared)
	}
}
