package subagents_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/subagents"
)

// envelopeServer is a CCS that answers every enrich call with whatever bytes it was handed
// last, and records the principals each call carried.
type envelopeServer struct {
	mu    sync.Mutex
	body  []byte
	calls [][2]string // body principal, X-Principal
}

func (s *envelopeServer) set(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body, s.calls = body, nil
}

func (s *envelopeServer) recorded() [][2]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][2]string(nil), s.calls...)
}

func (s *envelopeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req ccs.EnricherRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	s.calls = append(s.calls, [2]string{req.Principal, r.Header.Get(ccs.HeaderPrincipal)})
	body := s.body
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// profileCall is the support agent's account.profile tool, the target of both tests below.
var profileCall = call("c1", "get_account_profile", "{}")

// TestPrincipalProperty serves many random envelopes for account.profile (random owner among
// look-alikes of the caller, random status, version, ids and partial[]) and checks, for every
// one: a payload owned by anyone but the caller never reaches an LLM message, partial[] never
// does, a fully valid envelope does reach it, and the mismatch counter counts exactly the
// foreign envelopes.
func TestPrincipalProperty(t *testing.T) {
	h := newBareHarness(t)
	es := &envelopeServer{}
	srv := httptest.NewServer(es)
	defer srv.Close()
	client, err := ccs.NewClient(ccs.ClientConfig{BaseURL: srv.URL})
	if err != nil {
		t.Fatalf("NewClient() = %v", err)
	}

	callers := []string{ccsdemo.Alice, ccsdemo.Bob, "carol"}
	owners := []string{ccsdemo.Alice, ccsdemo.Bob, "carol", "Alice", "alice ", " bob", "", "carol\u200b", "bob\x00", "mallory"}
	statuses := []string{ccs.StatusOK, ccs.StatusPartial, ccs.StatusError, "OK", "", "degraded"}
	versions := []string{"1.2.0", "1.0.0-rc.1", "2.0.0", "0.9.1", "1", "v1.0.0", ""}
	rng := rand.New(rand.NewPCG(3, 1415926)) // fixed: a failure reproduces
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }

	const runs = 600
	var foreign, delivered int
	for i := range runs {
		caller := pick(callers)
		env := ccs.EnricherResponse[ccsdemo.AccountProfile]{
			Principal:  caller,
			Status:     pick(statuses),
			Version:    pick(versions),
			EnricherID: "account.profile",
			DomainType: "account_profile",
			Payload: ccsdemo.AccountProfile{
				Name:        fmt.Sprintf("name-%016x", rng.Uint64()),
				Email:       fmt.Sprintf("%016x@leak.example", rng.Uint64()),
				MemberSince: "2020-01-02",
			},
		}
		if rng.IntN(2) == 0 {
			env.Principal = pick(owners)
		}
		switch rng.IntN(10) {
		case 0:
			env.EnricherID = "offers.search"
		case 1:
			env.EnricherID = ""
		case 2:
			env.DomainType = "offer_list"
		case 3: // a registered pair, but not the one asked for
			env.EnricherID, env.DomainType = "offers.search", "offer_list"
		}
		if rng.IntN(2) == 0 {
			env.Partial = []ccs.FailedSource{{
				Source: fmt.Sprintf("src-%x", rng.Uint64()), Critical: rng.IntN(2) == 0,
				Reason: fmt.Sprintf("upstream 503 %x", rng.Uint64()),
			}}
		}
		body, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		es.set(body)

		m := &scriptedModel{toolCalls: []llms.ToolCall{profileCall}}
		reply, err := h.agentWith("support", m, client, ccs.CheckOptions{}).Ask(t.Context(), ask.Question{
			Request:   "what email is on my account?",
			Inherited: ask.Inherited{Principal: principal.Principal(caller)},
		})
		where := fmt.Sprintf("run %d: caller %q, envelope %s", i, caller, body)
		if err != nil {
			t.Fatalf("%s: Ask() error = %v", where, err)
		}
		transcript := m.transcript()
		results := m.toolResults("")
		if len(results) != 1 {
			t.Fatalf("%s: tool results = %q, want one", where, results)
		}
		for _, c := range es.recorded() {
			if c != [2]string{caller, caller} {
				t.Errorf("%s: CCS call carried principal %q / header %q", where, c[0], c[1])
			}
		}
		for _, fs := range env.Partial {
			if strings.Contains(transcript, fs.Source) || strings.Contains(transcript, fs.Reason) {
				t.Errorf("%s: partial[] reached the LLM", where)
			}
		}

		leaked := strings.Contains(transcript, env.Payload.Name) || strings.Contains(transcript, env.Payload.Email)
		valid := env.Principal == caller && (env.Status == ccs.StatusOK || env.Status == ccs.StatusPartial) &&
			(env.Version == "1.2.0" || env.Version == "1.0.0-rc.1") &&
			env.EnricherID == "account.profile" && env.DomainType == "account_profile"
		switch {
		case env.Principal != caller:
			foreign++
			if leaked {
				t.Errorf("%s: another principal's payload reached the LLM", where)
			}
			if results[0] != unavailableResult || reply.Outcome != ask.OutcomeUnavailable || len(reply.Components) != 0 {
				t.Errorf("%s: result %s, outcome %q, %d components; want suppressed", where, results[0], reply.Outcome, len(reply.Components))
			}
		case valid:
			delivered++
			if !leaked || string(reply.Outcome) != env.Status {
				t.Errorf("%s: valid envelope not delivered (outcome %q, result %s)", where, reply.Outcome, results[0])
			}
		default:
			if leaked || results[0] != unavailableResult || reply.Outcome != ask.OutcomeUnavailable {
				t.Errorf("%s: unusable envelope gave result %s, outcome %q", where, results[0], reply.Outcome)
			}
		}
	}

	t.Logf("%d runs: %d foreign envelopes, %d valid ones", runs, foreign, delivered)
	if foreign < runs/5 || delivered < 10 {
		t.Fatalf("generator covered %d foreign and %d valid envelopes of %d; too few to mean anything", foreign, delivered, runs)
	}
	want := map[string]int64{"consumer=switchboard": int64(foreign)}
	if got := h.counter(mismatchMetric); got["consumer=switchboard"] != want["consumer=switchboard"] || len(got) != 1 {
		t.Errorf("%s = %v, want %v", mismatchMetric, got, want)
	}
}

// FuzzToolWrapper feeds raw bytes as the CCS's answer to alice's account.profile call. The
// wrapper must never panic, must hand the LLM a well-formed tool result, and must suppress
// (and count) every envelope that decodes with a principal other than alice.
func FuzzToolWrapper(f *testing.F) {
	seed := func(p, status, version string, payload any) []byte {
		b, _ := json.Marshal(map[string]any{
			"status": status, "principal": p, "domain_type": "account_profile", "enricher_id": "account.profile",
			"version": version, "payload": payload, "cache_meta": map[string]any{},
		})
		return b
	}
	profile := map[string]any{"name": "Bob Martinez", "email": "b***@example.com", "member_since": "2016-09-03"}
	f.Add(seed(ccsdemo.Alice, "ok", "1.2.0", profile))
	f.Add(seed(ccsdemo.Bob, "ok", "1.2.0", profile))
	f.Add(seed("Alice", "partial", "1.0.0", profile))
	f.Add(seed(ccsdemo.Alice, "error", "1.2.0", nil))
	f.Add(seed(ccsdemo.Alice, "ok", "2.0.0", profile))
	f.Add(seed(ccsdemo.Alice, "ok", "1.2.0", []any{1, "x"}))
	f.Add([]byte(`{"status":"ok","principal":"alice","principal":"bob","domain_type":"account_profile","enricher_id":"account.profile","version":"1.0.0","payload":{"name":"dup"}}`))
	f.Add([]byte(`{"status":"ok","principal":"bob"} trailing`))
	f.Add([]byte(`{"status":"error","principal":"alice","domain_type":"account_profile","enricher_id":"account.profile","version":"1.0.0","payload":{},"\u017ftatus":"ok"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	f.Add([]byte(`[{"principal":"alice"}]`))

	set, err := definitions.Load("../demo")
	if err != nil {
		f.Fatal(err)
	}
	def, ok := set.Get("support")
	if !ok {
		f.Fatal("no support definition")
	}
	reg := ccs.NewRegistry()
	if err := ccsdemo.Register(reg); err != nil {
		f.Fatal(err)
	}
	es := &envelopeServer{}
	// The in-process transport runs the real client code without a socket per input.
	client, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL: "http://fuzz.invalid", HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(es)},
	})
	if err != nil {
		f.Fatal(err)
	}
	reader := sdkmetric.NewManualReader()
	opts := []subagents.Option{
		subagents.WithTelemetry(ask.Telemetry{
			Meters: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		}),
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		es.set(data)
		m := &scriptedModel{toolCalls: []llms.ToolCall{profileCall}}
		a, err := subagents.New(subagents.Config{Definition: def, Model: m, CCS: client, Registry: reg}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		before := collectCounter(t, reader, mismatchMetric)["consumer=switchboard"]
		reply, err := a.Ask(t.Context(), alice("what email is on my account?"))
		if err != nil {
			t.Fatalf("Ask() error = %v", err)
		}
		counted := collectCounter(t, reader, mismatchMetric)["consumer=switchboard"] - before

		results := m.toolResults("")
		if len(results) != 1 {
			t.Fatalf("tool results = %q, want one", results)
		}
		var res struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(results[0]), &res); err != nil {
			t.Fatalf("tool result %q is not JSON: %v", results[0], err)
		}
		if res.Status != "ok" && res.Status != "partial" && res.Status != "unavailable" {
			t.Fatalf("tool result status %q", res.Status)
		}

		env, err := ccs.DecodeEnvelope(data)
		switch {
		case errors.Is(err, ccs.ErrEnvelopePrincipal):
			// A principal given twice or not as a string names no single user: a mismatch.
			if results[0] != unavailableResult || len(reply.Components) != 0 || counted != 1 {
				t.Fatalf("envelope without one principal: result %s, %d components, mismatch counted %d; want suppressed and counted once",
					results[0], len(reply.Components), counted)
			}
		case err != nil:
			if results[0] != unavailableResult || counted != 0 {
				t.Fatalf("undecodable envelope: result %s, mismatch counted %d", results[0], counted)
			}
		case env.Principal != ccsdemo.Alice:
			if results[0] != unavailableResult || len(reply.Components) != 0 || counted != 1 {
				t.Fatalf("envelope of %q: result %s, %d components, mismatch counted %d; want suppressed and counted once",
					env.Principal, results[0], len(reply.Components), counted)
			}
		default:
			if counted != 0 {
				t.Fatalf("alice's own envelope counted as a mismatch")
			}
		}
	})
}
