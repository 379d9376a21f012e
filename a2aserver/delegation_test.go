package a2aserver

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/principal"
)

// Each request in which a trusted service acts for a user is reported once, with the task it
// started or named; a caller acting for itself is not reported.
func TestA2ADelegationReported(t *testing.T) {
	var (
		mu  sync.Mutex
		got []Delegation
	)
	h := newHarness(t, func(c *Config) {
		c.Auth = surfacetest.Tokens{"tok-alice": "alice", "tok-svc": "svc-hub"}
		c.TrustedServices = []principal.Principal{"svc-hub"}
		c.OnDelegated = func(_ context.Context, d Delegation) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, d)
		}
	})
	forAlice := map[string]any{"principal": "alice"}
	task := h.task(t, "tok-svc", "message/send", sendParamsOf("m-1", "how many points do I have?", map[string]any{"metadata": forAlice}))
	h.task(t, "tok-svc", "tasks/get", map[string]any{"id": task.ID, "metadata": forAlice})
	events, rerr := h.streamEvents(t, "tok-svc", "message/stream", map[string]any{"metadata": forAlice,
		"message": sendParamsOf("m-2", "what tier am i in?", nil)["message"]})
	if rerr != nil || len(events) == 0 {
		t.Fatalf("message/stream = %v, %+v", events, rerr)
	}
	streamed := events[0]["id"].(string)
	// A message refused before its task starts is reported too, without a task.
	if r := h.rpc(t, "tok-svc", "message/send", map[string]any{"metadata": forAlice}); r.Error == nil {
		t.Fatalf("message/send without a message = %+v, want an error", r)
	}
	h.task(t, "tok-alice", "tasks/get", map[string]any{"id": task.ID}) // alice for herself
	h.task(t, "tok-alice", "tasks/get", map[string]any{"id": task.ID, "metadata": forAlice})

	want := []Delegation{
		{Service: "svc-hub", Principal: "alice", Method: "message/send", TaskID: task.ID},
		{Service: "svc-hub", Principal: "alice", Method: "tasks/get", TaskID: task.ID},
		{Service: "svc-hub", Principal: "alice", Method: "message/stream", TaskID: streamed},
		{Service: "svc-hub", Principal: "alice", Method: "message/send"},
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delegations reported (-want +got):\n%s", diff)
	}
}
