package stream

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// LastEventID returns the id of the last event the client has, from the Last-Event-ID header
// that EventSource sends when it reconnects, or else from the lastEventId query parameter (for
// a first connection that resumes, where a browser cannot set headers). Absent or empty means 0.
func LastEventID(r *http.Request) (uint64, error) {
	v := r.Header.Get("Last-Event-ID")
	if strings.TrimSpace(v) == "" {
		v = r.URL.Query().Get("lastEventId")
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q", ErrBadLastEventID, v)
	}
	return id, nil
}
