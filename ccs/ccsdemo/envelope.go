package ccsdemo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-ai/switchboard/ccs"
)

// maxCacheEntries bounds the cache_meta bookkeeping; past it the record starts over.
const maxCacheEntries = 10000

// envelope builds the answer of enricher e to req, with fault applied.
func (s *Server) envelope(e Enricher, req ccs.EnricherRequest, fault Fault) (*ccs.RawResponse, error) {
	owner := req.Principal
	if fault.WrongPrincipal {
		owner = otherUser(owner)
	}
	now := s.now()
	cal := s.calendar(now)
	user, ok := lookupUser(owner, cal)
	if !ok {
		user = newMember(owner, cal)
	}
	payload, err := e.serve(request{principal: owner, user: user, params: req.Params})
	if err != nil {
		return nil, err
	}

	env := &ccs.RawResponse{
		Status:     ccs.StatusOK,
		Principal:  owner,
		DomainType: e.DomainType,
		EnricherID: e.ID,
		Version:    e.Version,
		CacheMeta:  s.cacheMeta(e, req, now),
	}
	switch fault.Status {
	case "":
	case ccs.StatusError:
		env.Status = ccs.StatusError
		payload = nil
		env.Partial = []ccs.FailedSource{{
			Source:   e.Source,
			Critical: true,
			Reason:   fmt.Sprintf("%s: context deadline exceeded after 2000ms (dial tcp 10.20.3.17:7443)", e.Source),
		}}
		env.CacheMeta.Cached, env.CacheMeta.Cacheable = false, false
	case ccs.StatusPartial:
		env.Status = ccs.StatusPartial
		env.Partial = []ccs.FailedSource{{
			Source:   e.Source + "-enrichment",
			Critical: false,
			Reason:   fmt.Sprintf("upstream 503 from %s-enrichment (retry budget exhausted, trace 4bf92f3577b34da6)", e.Source),
		}}
	default:
		env.Status = fault.Status
	}
	if fault.MajorBump {
		env.Version = "2.0.0"
	}
	if env.Payload, err = json.Marshal(payload); err != nil {
		return nil, err
	}

	if len(s.signingKey) > 0 || fault.BadSignature {
		key := s.signingKey
		if fault.BadSignature {
			key = []byte("not-the-shared-signing-key")
		}
		if env.Signature, err = ccs.Sign(env, key); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// otherUser is whose data a WrongPrincipal fault leaks: always a real demo user, never p.
func otherUser(p string) string {
	if p == Alice {
		return Bob
	}
	return Alice
}

// cacheMeta fills cache_meta as a caching CCS would: a key derived from the request (hashed, so
// no principal or query text shows in traces) and cached=true on a repeat within the TTL.
func (s *Server) cacheMeta(e Enricher, req ccs.EnricherRequest, now time.Time) ccs.CacheMeta {
	params, _ := json.Marshal(req.Params) // map keys are sorted, so equal params hash equally
	sum := sha256.Sum256(append([]byte(req.Principal+"\x00"+e.ID+"\x00"), params...))
	meta := ccs.CacheMeta{Key: e.ID + ":" + hex.EncodeToString(sum[:8])}
	ttl, err := time.ParseDuration(e.TTL)
	if e.TTL == "" || err != nil {
		return meta
	}
	meta.Cacheable, meta.TTL = true, e.TTL

	s.mu.Lock()
	defer s.mu.Unlock()
	if exp, ok := s.cache[meta.Key]; ok && now.Before(exp) {
		meta.Cached = true
		return meta
	}
	if len(s.cache) >= maxCacheEntries {
		clear(s.cache)
	}
	s.cache[meta.Key] = now.Add(ttl)
	return meta
}
