package a2aserver

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/switchboard-ai/switchboard/principal"
)

// Delegation is one JSON-RPC request in which a trusted service acted for a user.
type Delegation struct {
	Service   principal.Principal // the authenticated caller
	Principal principal.Principal // the user it acted for
	Method    string
	// TaskID is the task the request started or named; empty when it had none (a message
	// refused before its task started).
	TaskID  string
	TraceID string
}

// delegation is a request's Delegation until it is reported, once: a message's as soon as
// its task has started (or failed to), any other method's at once.
type delegation struct {
	d      Delegation
	once   sync.Once
	report func(context.Context, Delegation)
}

type delegationKey struct{}

// startsTask reports whether method reports its delegation once the task it starts is known.
func startsTask(method string) bool { return method == "message/send" || method == "message/stream" }

// withDelegation returns r carrying d, to be reported through Config.OnDelegated.
func (s *Handler) withDelegation(r *http.Request, d Delegation, params json.RawMessage) *http.Request {
	d.TaskID = namedTask(params)
	return r.WithContext(context.WithValue(r.Context(), delegationKey{}, &delegation{d: d, report: s.cfg.OnDelegated}))
}

// reportDelegation reports the request's delegation, if it has one not yet reported, with
// taskID when not empty.
func reportDelegation(ctx context.Context, taskID string) {
	d, _ := ctx.Value(delegationKey{}).(*delegation)
	if d == nil {
		return
	}
	d.once.Do(func() {
		if taskID != "" {
			d.d.TaskID = taskID
		}
		d.report(ctx, d.d)
	})
}

// namedTask is the task id a request's params name: params.id (tasks/*), or the task a
// message continues.
func namedTask(params json.RawMessage) string {
	var p struct {
		ID      any `json:"id"`
		Message *struct {
			TaskID any `json:"taskId"`
		} `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if id, ok := p.ID.(string); ok {
		return id
	}
	if p.Message != nil {
		if id, ok := p.Message.TaskID.(string); ok {
			return id
		}
	}
	return ""
}
