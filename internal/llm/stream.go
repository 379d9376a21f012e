package llm

import (
	"context"
	"encoding/json"
	"sync"
)

// streamFilter sits between a provider and the caller's streaming callback so that
// only reply text reaches the caller. The openai client also passes empty chunks and,
// for tool-call deltas, the raw JSON of the delta array; anthropic passes text only, but
// the filter is harmless for it.
//
// It also remembers whether any text was delivered (after which a failed call must not
// be retried: the caller would see the text twice) and the first error the caller's
// callback returned (a provider may swallow it and report success).
type streamFilter struct {
	next func(ctx context.Context, chunk []byte) error

	mu        sync.Mutex // providers may call from a reader goroutine
	delivered bool
	err       error
}

func (f *streamFilter) write(ctx context.Context, chunk []byte) error {
	if len(chunk) == 0 || isToolCallDelta(chunk) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.delivered = true
	f.mu.Unlock()
	if err := f.next(ctx, chunk); err != nil {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
		return err
	}
	return nil
}

func (f *streamFilter) state() (delivered bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.delivered, f.err
}

// isToolCallDelta reports whether chunk is the JSON the openai client emits for a
// tool-call delta: an array of objects with "type" and "function" and at most an "id"
// besides (its ToolCall struct), or, for legacy function calls, an object with exactly
// "name" and "arguments". Reply text of exactly that shape is not plausible.
func isToolCallDelta(chunk []byte) bool {
	if len(chunk) == 0 {
		return false
	}
	switch chunk[0] {
	case '[':
		var deltas []map[string]json.RawMessage
		if json.Unmarshal(chunk, &deltas) != nil || len(deltas) == 0 {
			return false
		}
		for _, d := range deltas {
			_, hasType := d["type"]
			_, hasFunc := d["function"]
			_, hasID := d["id"]
			if !hasType || !hasFunc || len(d) > 2+boolInt(hasID) {
				return false
			}
		}
		return true
	case '{':
		var fc map[string]json.RawMessage
		if json.Unmarshal(chunk, &fc) != nil || len(fc) != 2 {
			return false
		}
		_, hasName := fc["name"]
		_, hasArgs := fc["arguments"]
		return hasName && hasArgs
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
