package assembly

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// bearer is how an a2a-go client authenticates: an interceptor that sets the header.
type bearer struct {
	a2aclient.PassthroughInterceptor
	token string
}

func (b bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + b.token}
	return ctx, nil
}

// The reference Go client (a2a-go v0.3.3) against our server: card, send, stream, get and
// cancel all parse and behave as the protocol says.
func TestA2AConformanceWithReferenceClient(t *testing.T) {
	ta := newTestApp(t, "../../demo", nil)
	ctx := t.Context()
	card, err := agentcard.NewResolver(ta.srv.Client()).Resolve(ctx, ta.srv.URL)
	if err != nil {
		t.Fatalf("Resolve() = %v", err)
	}
	if card.PreferredTransport != a2a.TransportProtocolJSONRPC || !card.Capabilities.Streaming || len(card.Skills) != 4 {
		t.Errorf("card = %+v, want JSON-RPC, streaming and four skills", card)
	}
	client := func(t *testing.T, sub string, cfg a2aclient.Config) *a2aclient.Client {
		c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(ta.srv.Client()),
			a2aclient.WithConfig(cfg), a2aclient.WithInterceptors(bearer{token: ta.token(t, sub)}))
		if err != nil {
			t.Fatalf("NewFromCard() = %v", err)
		}
		t.Cleanup(func() { _ = c.Destroy() })
		return c
	}
	alice := client(t, "alice", a2aclient.Config{})
	ask := func(text string) *a2a.MessageSendParams {
		return &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: text})}
	}
	replyOf := func(task *a2a.Task) string {
		var b strings.Builder
		for _, art := range task.Artifacts {
			for _, p := range art.Parts {
				if tp, ok := p.(a2a.TextPart); ok {
					b.WriteString(tp.Text)
				}
			}
		}
		return b.String()
	}

	var sent *a2a.Task
	t.Run("send", func(t *testing.T) {
		res, err := alice.SendMessage(ctx, ask("any deals on running shoes? and how many points do I have?"))
		if err != nil {
			t.Fatalf("SendMessage() = %v", err)
		}
		task, ok := res.(*a2a.Task)
		if !ok || task.Status.State != a2a.TaskStateCompleted || !strings.Contains(strings.ToLower(replyOf(task)), "points") {
			t.Fatalf("SendMessage() = %#v, want a completed task that mentions points", res)
		}
		sent = task
	})
	t.Run("get", func(t *testing.T) {
		got, err := alice.GetTask(ctx, &a2a.TaskQueryParams{ID: sent.ID})
		if err != nil || got.ContextID != sent.ContextID || replyOf(got) != replyOf(sent) {
			t.Errorf("GetTask() = %+v, %v; want the sent task", got, err)
		}
		_, err = client(t, "bob", a2aclient.Config{}).GetTask(ctx, &a2a.TaskQueryParams{ID: sent.ID})
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("GetTask() as bob = %v, want ErrTaskNotFound", err)
		}
	})
	t.Run("history", func(t *testing.T) {
		var roles []a2a.MessageRole
		for _, m := range sent.History {
			roles = append(roles, m.Role)
		}
		if !slices.Equal(roles, []a2a.MessageRole{a2a.MessageRoleUser, a2a.MessageRoleAgent}) {
			t.Errorf("sent task history roles = %v, want the user's message and the reply", roles)
		}
		one := 1
		got, err := alice.GetTask(ctx, &a2a.TaskQueryParams{ID: sent.ID, HistoryLength: &one})
		if err != nil || len(got.History) != 1 || got.History[0].Role != a2a.MessageRoleAgent {
			t.Errorf("GetTask(historyLength 1) = %+v, %v; want the reply only", got, err)
		}
		negative := -1
		if _, err := alice.GetTask(ctx, &a2a.TaskQueryParams{ID: sent.ID, HistoryLength: &negative}); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("GetTask(historyLength -1) = %v, want ErrInvalidParams", err)
		}
	})
	t.Run("resubscribe to a finished task", func(t *testing.T) {
		var kinds []string
		for ev, err := range alice.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: sent.ID}) {
			if err != nil {
				t.Fatalf("ResubscribeToTask() error = %v", err)
			}
			switch e := ev.(type) {
			case *a2a.Task:
				kinds = append(kinds, "task:"+string(e.Status.State))
			case *a2a.TaskStatusUpdateEvent:
				kinds = append(kinds, fmt.Sprintf("status:%s final=%v", e.Status.State, e.Final))
			default:
				kinds = append(kinds, fmt.Sprintf("%T", ev))
			}
		}
		if want := []string{"task:completed", "status:completed final=true"}; !slices.Equal(kinds, want) {
			t.Errorf("ResubscribeToTask() events = %v, want %v", kinds, want)
		}
	})
	t.Run("stream", func(t *testing.T) {
		var reply strings.Builder
		var last a2a.Event
		first := true
		for ev, err := range alice.SendStreamingMessage(ctx, ask("how many points do I have?")) {
			if err != nil {
				t.Fatalf("stream error = %v", err)
			}
			if _, isTask := ev.(*a2a.Task); first && !isTask {
				t.Errorf("first event = %T, want *a2a.Task", ev)
			}
			first = false
			if u, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				if !u.Append {
					reply.Reset()
				}
				for _, p := range u.Artifact.Parts {
					reply.WriteString(p.(a2a.TextPart).Text)
				}
			}
			last = ev
		}
		end, ok := last.(*a2a.TaskStatusUpdateEvent)
		if !ok || !end.Final || end.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("last event = %#v, want a final completed status update", last)
		}
		got, err := alice.GetTask(ctx, &a2a.TaskQueryParams{ID: end.TaskID})
		if err != nil || replyOf(got) != reply.String() {
			t.Errorf("streamed reply %q, stored %q (%v): want the same", reply.String(), replyOf(got), err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ta.Demo.Inject("points.balance", ccsdemo.Fault{Hang: true})
		defer ta.Demo.Clear()
		polling := client(t, "alice", a2aclient.Config{Polling: true}) // non-blocking sends
		res, err := polling.SendMessage(ctx, ask("how many points do I have?"))
		if err != nil {
			t.Fatalf("SendMessage() = %v", err)
		}
		task := res.(*a2a.Task)
		if task.Status.State != a2a.TaskStateWorking {
			t.Fatalf("non-blocking send = %s, want working", task.Status.State)
		}
		got, err := polling.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("CancelTask() = %+v, %v; want canceled", got, err)
		}
		if _, err := polling.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
			t.Errorf("second CancelTask() = %v, want ErrTaskNotCancelable", err)
		}
	})
}
