package subagents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"

	"github.com/switchboard-ai/switchboard/principal"
)

// errNoStreaming means the remote agent does not answer message/stream: ask with message/send.
var errNoStreaming = errors.New("subagents: remote agent does not stream")

// streamEvent is one result of a message/stream response: a Task, a Message, or a status or
// artifact update. Only what tells the task apart and its end is read.
type streamEvent struct {
	a2aResult
	TaskID string `json:"taskId"`
	Final  bool   `json:"final"`
}

// streamSend asks with message/stream and follows the stream to the task's end. It returns the
// finished task (read with tasks/get, which holds the whole answer) or the message, and the id
// of the task as soon as the remote named it, also when it fails: the caller cancels that task
// if its own context ended. errNoStreaming means the agent does not stream.
func (r *Remote) streamSend(ctx context.Context, p principal.Principal, params a2aSendParams) (res a2aResult, taskID string, err error) {
	const method = "message/stream"
	id := strconv.FormatUint(r.ids.Add(1), 10)
	// When the turn is cancelled before the remote has named the task, the stream is read a
	// moment longer (at most cancelTimeout) to learn the id that tasks/cancel needs. A passed
	// deadline ends the request at once: the orchestrator is waiting to compose.
	reqCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	var named atomic.Bool
	var grace *time.Timer
	var graceMu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		if named.Load() || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			abort()
			return
		}
		graceMu.Lock()
		grace = time.AfterFunc(cancelTimeout, abort)
		graceMu.Unlock()
	})
	defer func() {
		stop()
		graceMu.Lock()
		if grace != nil {
			grace.Stop()
		}
		graceMu.Unlock()
	}()
	resp, err := r.post(reqCtx, p, id, method, params, "text/event-stream")
	if err != nil {
		if ctx.Err() != nil {
			return res, "", fmt.Errorf("%w: %s: %w", ErrRemote, method, context.Cause(ctx))
		}
		return res, "", err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		// A JSON answer: an agent that does not stream says so with an error.
		data, err := io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxResponse+1))
		if err != nil {
			return res, "", fmt.Errorf("%w: %s: read: %w", ErrRemote, method, err)
		}
		var ans rpcAnswer
		if json.Unmarshal(data, &ans) == nil && ans.Error != nil &&
			(ans.Error.Code == codeMethodNotFound || ans.Error.Code == codeUnsupported) {
			return res, "", errNoStreaming
		}
		if int64(len(data)) > r.cfg.MaxResponse {
			return res, "", fmt.Errorf("%w: %s: response larger than %d bytes", ErrRemote, method, r.cfg.MaxResponse)
		}
		res, err = decodeAnswer(data, id, method)
		if err == nil && res.Kind == "task" {
			taskID = res.ID
		}
		if err == nil && ctx.Err() != nil {
			err = fmt.Errorf("%w: %s: %w", ErrRemote, method, context.Cause(ctx))
		}
		return res, taskID, err
	}
	for data, err := range sseData(resp.Body, r.cfg.MaxResponse) {
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx) // the read was cut short because ctx ended
			}
			return res, taskID, fmt.Errorf("%w: %s: %w", ErrRemote, method, err)
		}
		e, code, err := decodeStreamEvent(data, id)
		if err != nil {
			if taskID == "" && (code == codeMethodNotFound || code == codeUnsupported) {
				return res, "", errNoStreaming // refused in the stream itself
			}
			return res, taskID, err
		}
		switch e.Kind {
		case "message":
			return e.a2aResult, taskID, nil
		case "task":
			taskID = e.ID
			if terminal(e.Status.State) {
				return e.a2aResult, taskID, nil
			}
		case "status-update", "artifact-update":
			if taskID == "" {
				taskID = e.TaskID
			}
			if e.Kind == "status-update" && (e.Final || terminal(e.Status.State)) {
				res, err := r.call(ctx, p, "tasks/get", taskQuery(taskID, p))
				return res, taskID, err
			}
		default:
			return res, taskID, fmt.Errorf("%w: %s: event of kind %q", ErrRemote, method, e.Kind)
		}
		if taskID != "" {
			named.Store(true)
		}
		if err := ctx.Err(); err != nil && taskID != "" {
			return res, taskID, fmt.Errorf("%w: %s: %w", ErrRemote, method, context.Cause(ctx))
		}
	}
	if err := ctx.Err(); err != nil {
		return res, taskID, fmt.Errorf("%w: %s: %w", ErrRemote, method, context.Cause(ctx))
	}
	if taskID == "" {
		return res, "", fmt.Errorf("%w: %s: the stream ended before naming a task", ErrRemote, method)
	}
	// The stream broke off before the end: the caller polls the task.
	return a2aResult{Kind: "task", ID: taskID, Status: struct {
		State   string      `json:"state"`
		Message *a2aMessage `json:"message"`
	}{State: "working"}}, taskID, nil
}

// decodeStreamEvent checks one SSE data line of message/stream: a JSON-RPC response to the
// request with the given id, carrying an event or an error (whose code it returns too).
func decodeStreamEvent(data []byte, id string) (streamEvent, int, error) {
	var e streamEvent
	var ans rpcAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return e, 0, fmt.Errorf("%w: message/stream: malformed event: %w", ErrRemote, err)
	}
	var gotID string
	if json.Unmarshal(ans.ID, &gotID) != nil {
		gotID = string(ans.ID)
	}
	switch {
	case ans.Error != nil:
		return e, ans.Error.Code, fmt.Errorf("%w: message/stream: JSON-RPC error %d: %.200s", ErrRemote, ans.Error.Code, ans.Error.Message)
	case gotID != id:
		return e, 0, fmt.Errorf("%w: message/stream: event for another request", ErrRemote)
	}
	if err := json.Unmarshal(ans.Result, &e); err != nil {
		return e, 0, fmt.Errorf("%w: message/stream: malformed event: %w", ErrRemote, err)
	}
	return e, 0, nil
}

// post sends one JSON-RPC request with the principal, the credential and the trace context, and
// returns the response when its status is 200.
func (r *Remote) post(ctx context.Context, p principal.Principal, id, method string, params any, accept string) (*http.Response, error) {
	body, err := json.Marshal(rpcCall{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("%w: encode %s: %w", ErrRemote, method, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.def.A2AURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRemote, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", accept)
	hreq.Header.Set("X-Principal", string(p))
	if r.cfg.Credential != nil {
		tok, err := r.cfg.Credential(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%w: credential: %w", ErrRemote, err)
		}
		if tok != "" {
			hreq.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(hreq.Header))
	resp, err := r.client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRemote, method, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s: HTTP %d", ErrRemote, method, resp.StatusCode)
	}
	return resp, nil
}

// JSON-RPC error codes by which an agent says it does not stream.
const (
	codeMethodNotFound = -32601
	codeUnsupported    = -32004
)

// errEventTooLarge means one event of a remote agent's stream exceeds the response bound.
var errEventTooLarge = errors.New("stream event too large")

// sseData yields the data of each event of a Server-Sent Events stream (data lines joined by
// newlines), as the HTML standard parses them: comments, ids, event names and retry fields are
// read and ignored (A2A servers use ids of their own making, such as UUIDs). An event whose data
// exceeds limit bytes ends the sequence with errEventTooLarge; a read error ends it with that
// error. It reads r only as the caller pulls.
func sseData(r io.Reader, limit int64) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		br := bufio.NewReader(r)
		var data []byte
		has := false
		for {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				// A long line: gather it, within the bound.
				long := append([]byte(nil), line...)
				for errors.Is(err, bufio.ErrBufferFull) && int64(len(long)) <= limit {
					line, err = br.ReadSlice('\n')
					long = append(long, line...)
				}
				line = long
			}
			if int64(len(line)) > limit+2 {
				yield(nil, errEventTooLarge)
				return
			}
			if err != nil && !errors.Is(err, io.EOF) {
				yield(nil, err)
				return
			}
			trimmed := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			switch {
			case len(trimmed) == 0 && len(line) > 0: // a blank line ends the event
				if has && !yield(data, nil) {
					return
				}
				data, has = nil, false
			case bytes.HasPrefix(trimmed, []byte("data")):
				field, value, _ := bytes.Cut(trimmed, []byte(":"))
				if len(field) != len("data") {
					break // another field whose name starts with "data"
				}
				value = bytes.TrimPrefix(value, []byte(" "))
				if has {
					data = append(data, '\n')
				}
				data, has = append(data, value...), true
				if int64(len(data)) > limit {
					yield(nil, errEventTooLarge)
					return
				}
			}
			if errors.Is(err, io.EOF) {
				return // an event not ended by a blank line is dropped, as the standard says
			}
		}
	}
}
