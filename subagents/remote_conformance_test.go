package subagents

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// refAgent runs behind the reference A2A server (a2a-go v0.3.3): it answers with an artifact
// that repeats the request and the principal it was sent for, or fails the task.
type refAgent struct{ fail bool }

func (a refAgent) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
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
// task's answer and failure as the reference server reports them.
func TestRemoteAgainstReferenceServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		agent   refAgent
		want    string
		wantErr error
	}{
		{"answers", refAgent{}, "is my flight delayed?, for alice", nil},
		{"fails", refAgent{fail: true}, "", ErrRemoteTask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(tc.agent)))
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
