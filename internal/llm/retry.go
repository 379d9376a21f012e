package llm

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	backoffBase = 250 * time.Millisecond
	backoffMax  = 8 * time.Second
	// maxRetryAfter is the longest server-requested wait we honour; a longer one means
	// the provider is out for longer than a chat turn can wait, so the call gives up.
	maxRetryAfter = 30 * time.Second
)

// verdict is what the wrapper does after a failed attempt.
type verdict int

const (
	verdictFail   verdict = iota // not a provider availability problem: return the error
	verdictReject                // 4xx other than 429: ErrRejected, no retry
	verdictRetry                 // 429, 5xx, connection failure: retry if budget allows
)

// classify decides from what the transport recorded. A status seen on the wire wins over
// a body error: a 400 whose body broke is still a 400.
func classify(status int, netErr error) verdict {
	switch {
	case status == http.StatusTooManyRequests || status >= 500:
		return verdictRetry
	case status >= 400:
		return verdictReject
	case netErr != nil:
		return verdictRetry
	}
	return verdictFail
}

// backoff returns the jittered exponential delay before retry number n (1-based): a
// uniformly random duration in [d/2, d] with d = base·2^(n-1) capped at backoffMax, so
// parallel callers hitting the same rate limit do not retry in lockstep.
func backoff(n int) time.Duration {
	d := backoffBase << min(n-1, 16)
	if d > backoffMax || d <= 0 {
		d = backoffMax
	}
	return d/2 + rand.N(d/2+1)
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date (RFC 9110
// §10.2.3). Negative or past values mean "now".
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0, true
		}
		if secs > int64(time.Duration(1<<62)/time.Second) {
			return time.Duration(1 << 62), true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
