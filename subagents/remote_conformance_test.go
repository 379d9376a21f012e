package subagents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// refAgent runs behind the reference A2A server (a2a-go v0.3.3): it answers with an artifact
// that repeats the request and the principal it was sent for, or fails the task. With oneEvent
// it answers with the finished task as its only event: a2a-go's streaming handler marshals a
// task event while its task manager mutates the same task for the events after it (a data race
// in the library, seen under -race), so streams are tested with a single event.
type refAgent struct{ fail, oneEvent bool }

func (a refAgent) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	if a.oneEvent {
		task := a2a.NewSubmittedTask(rc, rc.Message)
		task.Status.State = a2a.TaskStateFailed
		if !a.fail {
			task.Status.State = a2a.TaskStateCompleted
			text := rc.Message.Parts[0].(a2a.TextPart).Text
			task.Artifacts = []*a2a.Artifact{{ID: a2a.NewArtifactID(), Parts: a2a.ContentParts{a2a.TextPart{Text: fmt.Sprintf("%s, for %v", text, rc.Metadata["principal"])}}}}
		}
		return q.Write(ctx, task)
	}
	if rc.StoredTask == nil {
		if err := q.Write(ctx, a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	state := a2a.TaskStateCompleted
	if a.fail {
		state = a2a.TaskStateFailed
	} else {
		text := rc.Message.Parts[0].(a2a.TextPart).Text
		answer := fmt.Sprintf("%s, for %v", text, rc.Metadata["principal"])
		if err := q.Write(ctx, a2a.NewArtifactEvent(rc, a2a.TextPart{Text: answer})); err != nil {
			return err
		}
	}
	end := a2a.NewStatusUpdateEvent(rc, state, nil)
	end.Final = true
	return q.Write(ctx, end)
}

func (refAgent) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, a2a.NewStatusUpdateEvent(rc, a2a.TaskStateCanceled, nil))
}

// Our client against the reference server: what it sends is valid A2A, and it reads a
// task's answer and failure as the reference server reports them, streamed (message/stream) or
// not (message/send, when the stream is refused).
func TestRemoteAgainstReferenceServer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		agent     refAgent
		noStreams bool
		want      string
		wantErr   error
	}{
		{"answers a stream", refAgent{oneEvent: true}, false, "is my flight delayed?, for alice", nil},
		{"fails a stream", refAgent{oneEvent: true, fail: true}, false, "", ErrRemoteTask},
		{"answers a send", refAgent{}, true, "is my flight delayed?, for alice", nil},
		{"fails a send", refAgent{fail: true}, true, "", ErrRemoteTask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h http.Handler = a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(tc.agent))
			if tc.noStreams {
				h = refuseStreams(h)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			got, err := newTestRemote(t, srv.URL, nil).Ask(t.Context(), aliceAsks)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ask() error = %v, want %v", err, tc.wantErr)
			}
			if got.Text != tc.want {
				t.Errorf("Ask() text = %q, want %q", got.Text, tc.want)
			}
		})
	}
}

// refuseStreams answers message/stream as an agent without streaming does (-32601), and passes
// every other request to h.
func refuseStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(body, &req)
		if req.Method == "message/stream" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}
