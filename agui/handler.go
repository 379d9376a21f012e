package agui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-ai/switchboard/internal/httpkit"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// runKeyPrefix keeps AG-UI runIds apart from the other idempotency keys of a principal.
const runKeyPrefix = "agui:"

// Route is the AG-UI endpoint.
const Route = "/agui"

// postAGUI serves POST /agui (AG-UI 1.0): the body is a RunAgentInput, the answer an SSE stream
// of AG-UI events. The thread is an episode (threadId = episode id, scoped per principal: the
// same threadId of another principal is another thread), the run is a turn (runId is its
// idempotency key: the same runId again streams the same turn from its start, never a second
// dispatch). The user's message is the last message of the input, which must be a user
// message; earlier messages are the thread's history, which the server already keeps, and are
// not read again.
//
// Problems found before the run starts are answered as JSON errors with their HTTP status, as
// on /v1/turns (HttpAgent reports them as "HTTP <status>: <body>"); once the stream has begun, a
// failure ends it with RUN_ERROR. A client that goes away before the run ends cancels it:
// aborting the request is how an AG-UI client stops a run.
func (s *Handler) postAGUI(w http.ResponseWriter, r *http.Request) {
	in, bad := decodeRunInput(r.Body)
	if bad != nil {
		bad.Write(w)
		return
	}
	p := principalOf(r)
	// Refuse the stream before the run starts, or the run would go unseen.
	slot, err := s.cfg.Streams.Open(p, "")
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	defer slot.Close()
	var rec orchestrator.TurnRecord
	rec, _, err = s.cfg.Service.Start(r.Context(), orchestrator.StartRequest{
		Principal: p, EpisodeID: in.threadID, Message: in.message,
		Locale: in.locale, Location: in.location, IdempotencyKey: runKeyPrefix + in.runID,
	})
	switch {
	case errors.Is(err, orchestrator.ErrConflict):
		httpkit.WriteError(w, http.StatusConflict, "idempotency_conflict", "This runId was already used with a different message.")
		return
	case err != nil:
		s.writeErr(w, r, err) // limits (429) included
		return
	}
	slot.ForTurn(rec.ID)
	s.streamRun(w, r, in, rec)
}

// runRequest is a checked RunAgentInput: what the turn needs.
type runRequest struct {
	threadID, runID  string
	message          string
	locale, location string
}

// decodeRunInput reads and checks a RunAgentInput, saying exactly what is wrong.
func decodeRunInput(r io.Reader) (runRequest, *httpkit.Problem) {
	var run runRequest
	bad := func(code, msg string) (runRequest, *httpkit.Problem) {
		return run, &httpkit.Problem{Status: http.StatusBadRequest, Code: code, Message: msg}
	}
	var in runAgentInput
	dec, holdable := httpkit.ReadBody(r)
	if !holdable {
		return bad("invalid_text", httpkit.InvalidTextMessage)
	}
	if err := dec.Decode(&in); err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return run, &httpkit.Problem{Status: http.StatusRequestEntityTooLarge, Code: "too_large", Message: httpkit.TooLargeMessage(mbe.Limit)}
		case httpkit.BodyTimedOut(err):
			return run, &httpkit.Problem{Status: http.StatusRequestTimeout, Code: "request_timeout", Message: "The request body did not arrive in time."}
		case errors.Is(err, io.EOF):
			return bad("invalid_body", `The body must be an AG-UI RunAgentInput: {"threadId", "runId", "messages": [...]}.`)
		}
		return bad("invalid_body", "The body is not a valid RunAgentInput: "+httpkit.JSONProblem(err)+".")
	}
	if dec.More() {
		return bad("invalid_body", "The body must hold one JSON object.")
	}
	switch {
	case strings.TrimSpace(in.ThreadID) == "" || strings.TrimSpace(in.RunID) == "":
		return bad("invalid_body", "threadId and runId are required.")
	case len(in.ThreadID) > 128 || len(in.RunID) > 180:
		return bad("invalid_body", "threadId or runId is too long.")
	case len(in.Messages) == 0:
		return bad("invalid_message", "messages must end with the user's message.")
	}
	last := in.Messages[len(in.Messages)-1]
	if last.Role != "user" {
		return bad("invalid_message", `The last message must have role "user": it is what the run answers.`)
	}
	text, ok, textOnly := messageText(last.Content)
	switch {
	case !ok:
		return bad("invalid_message", "The user message's content must be a string or an array of content parts.")
	case !textOnly:
		return run, &httpkit.Problem{Status: http.StatusUnsupportedMediaType, Code: "unsupported_content", Message: "Only text content is supported."}
	}
	text = strings.TrimSpace(text)
	if err := orchestrator.CheckMessage(text); err != nil {
		return bad("invalid_message", "The user "+err.Error())
	}
	var fp forwardedProps
	if len(in.ForwardedProps) > 0 && in.ForwardedProps[0] == '{' {
		if json.Unmarshal(in.ForwardedProps, &fp) != nil {
			return bad("invalid_body", "forwardedProps.locale and forwardedProps.location must be strings.")
		}
	}
	return runRequest{threadID: in.ThreadID, runID: in.RunID, message: text, locale: fp.Locale, location: fp.Location}, nil
}

// messageText reads a user message's content: a string, or text parts joined by newlines. ok
// is false for any other shape; textOnly is false when a part is not text (an image, a file).
func messageText(raw json.RawMessage) (text string, ok, textOnly bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false, false
	}
	switch raw[0] {
	case '"':
		if json.Unmarshal(raw, &text) != nil {
			return "", false, false
		}
		return text, true, true
	case '[':
		var parts []contentPart
		if json.Unmarshal(raw, &parts) != nil {
			return "", false, false
		}
		var texts []string
		for _, p := range parts {
			if p.Type != "text" {
				return "", true, false
			}
			texts = append(texts, p.Text)
		}
		return strings.Join(texts, "\n"), true, true
	}
	return "", false, false
}

// streamRun follows the turn and writes it as AG-UI events until RUN_FINISHED or RUN_ERROR.
func (s *Handler) streamRun(w http.ResponseWriter, r *http.Request, in runRequest, rec orchestrator.TurnRecord) {
	ctx := r.Context()
	out := newRunStream(w, r, s.cfg.SSE)
	defer out.close()
	tr := newTranslator(in.threadID, in.runID, rec.ID)
	completed, storeFailed := false, false
	defer func() {
		if !completed && !storeFailed {
			s.cancelAbandoned(r, rec.ID)
		}
	}()
	if out.send(tr.started()) != nil {
		return
	}
	for logged, err := range s.cfg.Hub.Follow(ctx, rec.ID, 0) {
		if err != nil {
			if ctx.Err() == nil {
				// The turn runs on; the client may start the same runId again to follow it.
				s.log.ErrorContext(ctx, "agui: following a turn", "turn_id", rec.ID, "err", err)
				storeFailed = true
				_ = out.send(runErrorEvent{Type: eventRunError, Code: "unavailable",
					Message: "The conversation cannot be streamed right now. Please try again shortly."})
			}
			return
		}
		var events []any
		if done, isEnd := logged.Event.(stream.TurnCompleted); isEnd {
			completed = true
			events = tr.finish(done.Outcome, s.invoked(ctx, r, rec.ID))
		} else {
			events = tr.translate(logged)
		}
		for _, ev := range events {
			if out.send(ev) != nil {
				return
			}
		}
	}
}

// invoked reads the sub-agents a finished turn ran, from its routing record.
func (s *Handler) invoked(ctx context.Context, r *http.Request, turnID string) []string {
	rec, err := s.cfg.Service.Turn(ctx, principalOf(r), turnID)
	if err != nil || rec.Decision == nil {
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "agui: reading a finished turn", "turn_id", turnID, "err", err)
		}
		return nil
	}
	return rec.Decision.Invoked
}

// cancelAbandoned cancels a turn whose AG-UI client left before the end, unless the turn has
// ended meanwhile. A server shutting down is not a client leaving.
func (s *Handler) cancelAbandoned(r *http.Request, turnID string) {
	reqCtx := r.Context()
	if errors.Is(context.Cause(reqCtx), httpkit.ErrShuttingDown) {
		return
	}
	httpkit.CancelIfRunning(context.WithoutCancel(reqCtx), s.cfg.Service, principalOf(r), turnID, s.log)
}

// runStream writes AG-UI events as SSE data lines, with comment heartbeats while the run is
// quiet (AG-UI clients read only data lines). A write that cannot reach the client within the
// stall timeout ends the stream.
type runStream struct {
	w     http.ResponseWriter
	done  <-chan struct{} // the request's end
	rc    *http.ResponseController
	stall time.Duration
	mu    sync.Mutex
	err   error
	stop  chan struct{}
	wg    sync.WaitGroup
}

func newRunStream(w http.ResponseWriter, r *http.Request, opts stream.SSEOptions) *runStream {
	o := &runStream{w: w, done: r.Context().Done(), rc: http.NewResponseController(w), stall: opts.StallTimeout, stop: make(chan struct{})}
	if o.stall <= 0 {
		o.stall = 10 * time.Second
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // keep proxies from buffering the stream
	w.WriteHeader(http.StatusOK)
	_ = o.rc.Flush()
	beat := opts.Heartbeat
	if beat == 0 {
		beat = 15 * time.Second
	}
	if beat > 0 {
		o.wg.Go(func() { o.heartbeat(beat) })
	}
	return o
}

func (o *runStream) heartbeat(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-o.done:
			return
		case <-t.C:
			if o.write([]byte(": keep-alive\n\n")) != nil {
				return
			}
		}
	}
}

// send writes one event. Compact JSON holds no raw newline, so one data line carries it.
func (o *runStream) send(ev any) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	return o.write(fmt.Appendf(nil, "data: %s\n\n", data))
}

func (o *runStream) write(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.stall))
	if _, err := o.w.Write(b); err != nil {
		o.err = err
		return err
	}
	if err := o.rc.Flush(); err != nil {
		o.err = err
		return err
	}
	return nil
}

// close stops the heartbeat and waits for it, and lifts the write deadline so that it cannot
// cut a later response on the same connection.
func (o *runStream) close() {
	close(o.stop)
	o.wg.Wait()
	_ = o.rc.SetWriteDeadline(time.Time{})
}
