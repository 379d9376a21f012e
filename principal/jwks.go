package principal

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

const (
	// maxJWKSBytes bounds the JWKS response we read: real sets are a few KiB.
	maxJWKSBytes = 1 << 20
	// jwksFetchTimeout bounds one fetch. The fetch runs detached from the caller that started
	// it (others may be waiting on it), so it needs its own deadline.
	jwksFetchTimeout = 10 * time.Second
)

// keySet is a cached JWKS. Keys are refetched when older than refresh, and on an unknown kid
// (the issuer rotated), but never more than once per minInterval whatever the trigger, so a
// flood of tokens with random kids cannot turn into a flood of requests to the issuer. A failed
// fetch keeps the previous keys.
type keySet struct {
	url         string
	client      *http.Client
	refresh     time.Duration
	minInterval time.Duration
	now         func() time.Time

	flight singleflight.Group // coalesces concurrent fetches into one request

	mu          sync.Mutex
	keys        map[string]publicKey // nil until the first successful fetch
	fetchedAt   time.Time            // last successful fetch
	lastAttempt time.Time            // last fetch attempt, successful or not
}

// lookup returns the key named kid, refetching the set when it is stale or lacks kid and the
// rate limit allows. It returns [ErrUnknownKey] when kid stays unknown, and
// [ErrKeysUnavailable] when no set was ever fetched.
func (s *keySet) lookup(ctx context.Context, kid string) (publicKey, error) {
	if s.stale() {
		s.fetch(ctx) // on failure the old keys, if any, still serve
	}
	if k, ok := s.get(kid); ok {
		return k, nil
	}
	s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		return publicKey{}, ErrKeysUnavailable
	}
	if k, ok := s.keys[kid]; ok {
		return k, nil
	}
	return publicKey{}, fmt.Errorf("%w: kid not in JWKS", ErrUnknownKey)
}

func (s *keySet) get(kid string) (publicKey, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[kid]
	return k, ok
}

func (s *keySet) stale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys == nil || s.now().Sub(s.fetchedAt) >= s.refresh
}

// fetch refetches the set unless an attempt happened within minInterval. Concurrent callers
// share one request; a caller whose ctx ends stops waiting but does not cancel the request
// the others share.
func (s *keySet) fetch(ctx context.Context) error {
	ch := s.flight.DoChan("jwks", func() (any, error) {
		s.mu.Lock()
		now := s.now()
		if !s.lastAttempt.IsZero() && now.Sub(s.lastAttempt) < s.minInterval {
			s.mu.Unlock()
			return nil, nil
		}
		s.lastAttempt = now
		s.mu.Unlock()
		return nil, s.load(context.WithoutCancel(ctx), now)
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// force fetches now, ignoring the rate limit, and reports the result.
func (s *keySet) force(ctx context.Context) error {
	s.mu.Lock()
	s.lastAttempt = time.Time{}
	s.mu.Unlock()
	return s.fetch(ctx)
}

// load performs one HTTP fetch and installs the keys on success.
func (s *keySet) load(ctx context.Context, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, jwksFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return fmt.Errorf("jwks request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("jwks fetch: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jwks fetch: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return fmt.Errorf("jwks read: %w", err)
	}
	if len(body) > maxJWKSBytes {
		return fmt.Errorf("jwks larger than %d bytes", maxJWKSBytes)
	}
	keys, err := parseJWKS(body)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.keys, s.fetchedAt = keys, now
	s.mu.Unlock()
	return nil
}
