package ccsdemo

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-ai/switchboard/ccs"
)

// maxRequestBytes bounds an enrich request body.
const maxRequestBytes = 64 << 10

// Options configures a [Server]. The zero value serves the demo data without credential,
// signatures or faults.
type Options struct {
	// Credential, when set, is the service credential every request must present as
	// "Authorization: Bearer <Credential>"; others get 401 unauthorized.
	Credential string
	// SigningKey, when set, signs every envelope with [ccs.Sign].
	SigningKey []byte
	// AllowHeaderFaults honours per-request faults in the [HeaderFault] header. Keep it off
	// anywhere but tests and evals.
	AllowHeaderFaults bool
	// Faults are injected at start, by enricher id (or [AnyEnricher]), as if by [Server.Inject].
	Faults map[string]Fault
	// Now is the clock for fixture dates, cache expiry and [Call.At]; nil means time.Now.
	Now func() time.Time
	// Fixtures answer enrichers the demo does not serve itself, by enricher id (see
	// [LoadFixtures]).
	Fixtures map[string]Fixture
}

// Server is the embedded demo CCS: it serves the enrichers of [Enrichers] from per-user
// fixtures over the CCS wire (POST /v1/enrich/{enricher_id}) and injects faults on demand.
// It is safe for concurrent use; faults and the call record may change while requests run.
type Server struct {
	credential  string
	signingKey  []byte
	allowHeader bool
	now         func() time.Time
	fixtures    atomic.Pointer[map[string]Fixture] // swapped whole by SetFixtures
	dayShift    atomic.Int64                       // days the fixture calendar runs ahead of now; see SetToday

	mu     sync.Mutex
	faults map[string]faultSlot
	scoped map[string]map[string]faultSlot // principal -> enricher id -> fault
	calls  []Call
	cache  map[string]time.Time // cache key -> expiry, to fill cache_meta.cached
}

var _ http.Handler = (*Server)(nil)

// SetToday moves the demo users' calendar to day: the dates they are served (an order's
// arrival, points expiring, a trip) are counted from day instead of from the clock's date. The
// data is relative so that it never goes stale, which makes an eval that asserts on one of its
// dates pass only on the day it was written; pinning the day keeps it passing. Envelope times
// and cache expiry still follow the clock.
func (s *Server) SetToday(day time.Time) {
	y, m, d := s.now().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	y, m, d = day.Date()
	s.dayShift.Store(int64(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Sub(today) / (24 * time.Hour)))
}

// calendar is the demo users' calendar at now, moved by [Server.SetToday].
func (s *Server) calendar(now time.Time) calendar {
	return calendar{now: now.AddDate(0, 0, int(s.dayShift.Load()))}
}

// New returns a demo CCS configured by opts.
func New(opts Options) *Server {
	s := &Server{
		credential:  opts.Credential,
		signingKey:  append([]byte(nil), opts.SigningKey...),
		allowHeader: opts.AllowHeaderFaults,
		now:         opts.Now,
		faults:      make(map[string]faultSlot),
		scoped:      make(map[string]map[string]faultSlot),
		cache:       make(map[string]time.Time),
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.SetFixtures(opts.Fixtures)
	for id, f := range maps.All(opts.Faults) {
		s.faults[id] = newSlot(f)
	}
	return s
}

// SetFixtures replaces the fixtures that answer enrichers the demo does not serve itself
// (see [Options.Fixtures]); requests already running finish with the ones they found. The
// service calls it when the agents folder is reloaded.
func (s *Server) SetFixtures(fixtures map[string]Fixture) {
	f := maps.Clone(fixtures)
	s.fixtures.Store(&f)
}

// Serves reports whether the server answers enricher id: one of the demo's own or one of its
// fixtures.
func (s *Server) Serves(id string) bool {
	return Serves(id, *s.fixtures.Load())
}

// ServeHTTP answers POST /v1/enrich/{enricher_id} (under any path prefix) as a CCS does: 200 with
// an envelope; 400 missing_principal when the X-Principal header or the body principal is
// empty; 403 principal_mismatch when they differ; 401 unauthorized on a bad credential; 404
// unknown_enricher; 400 invalid_params or bad_request for unusable requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, id, ok := strings.Cut(r.URL.Path, ccs.EnrichPathPrefix)
	if !ok || id == "" || strings.Contains(id, "/") {
		writeError(w, http.StatusNotFound, "not_found")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed")
		return
	}
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, ccs.CodeUnauthorized)
		return
	}

	var req ccs.EnricherRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	headerPrincipal := r.Header.Get(ccs.HeaderPrincipal)
	s.record(Call{EnricherID: id, Principal: req.Principal, HeaderPrincipal: headerPrincipal, Params: req.Params, At: s.now()})
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, ccs.CodeBadRequest)
		return
	case headerPrincipal == "" || req.Principal == "":
		writeError(w, http.StatusBadRequest, ccs.CodeMissingPrincipal)
		return
	case req.Principal != headerPrincipal:
		writeError(w, http.StatusForbidden, ccs.CodePrincipalMismatch)
		return
	case req.EnricherID != "" && req.EnricherID != id:
		writeError(w, http.StatusBadRequest, ccs.CodeBadRequest)
		return
	}
	e, ok := findEnricher(id)
	if fx, fixture := (*s.fixtures.Load())[id]; !ok && fixture {
		e, ok = fx.enricher(id), true
	}
	if !ok {
		writeError(w, http.StatusNotFound, ccs.CodeUnknownEnricher)
		return
	}

	fault, err := s.faultFor(r, req.Principal, id)
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_fault")
		return
	}
	if !wait(r.Context(), fault) {
		return // the caller is gone; nobody will read an answer
	}
	if fault.HTTPStatus != 0 && fault.HTTPStatus != http.StatusOK {
		writeError(w, fault.HTTPStatus, codeForStatus(fault.HTTPStatus))
		return
	}

	env, err := s.envelope(e, req, fault)
	if errors.Is(err, errInvalidParams) {
		writeError(w, http.StatusBadRequest, ccs.CodeInvalidParams)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal")
		return
	}
	data, err := json.Marshal(env)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

func (s *Server) authorized(r *http.Request) bool {
	if s.credential == "" {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.credential)) == 1
}

// faultFor picks the fault of this request: the header's when allowed and present, else an
// injected one.
func (s *Server) faultFor(r *http.Request, principal, id string) (Fault, error) {
	if h := r.Header.Get(HeaderFault); s.allowHeader && h != "" {
		return ParseFault(h)
	}
	f, _ := s.takeFault(principal, id)
	return f, nil
}

// wait applies Hang and Latency; it reports false when the request's context ended first.
func wait(ctx context.Context, f Fault) bool {
	if f.Hang {
		<-ctx.Done()
		return false
	}
	if f.Latency <= 0 {
		return true
	}
	t := time.NewTimer(f.Latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func writeError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(ccs.ErrorBody{Error: code})
}

// codeForStatus gives an injected HTTP failure the body a real CCS would send with it.
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return ccs.CodeMissingPrincipal
	case http.StatusUnauthorized:
		return ccs.CodeUnauthorized
	case http.StatusForbidden:
		return ccs.CodePrincipalMismatch
	case http.StatusNotFound:
		return ccs.CodeUnknownEnricher
	case http.StatusTooManyRequests:
		return "rate_limited"
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		return "unavailable"
	default:
		return "internal"
	}
}
