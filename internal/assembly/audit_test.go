package assembly

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/telemetry"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// auditApp is the whole service on a durable store, so that the audit log is read back from
// the database the way `switchboard audit` reads it, after the service has closed.
type auditApp struct {
	*testApp
	store config.Store
	stop  func()
}

const auditSecret = "audit-secret-audit-secret-audit-secret!"

func newAuditApp(t *testing.T, agents string, st config.Store, edit func(*config.Config)) *auditApp {
	t.Helper()
	cfg := config.Default()
	cfg.Store = st
	cfg.Auth.HS256Secret = auditSecret
	cfg.Turns.Deadline = 20 * time.Second
	if edit != nil {
		edit(&cfg)
	}
	a, err := New(t.Context(), Input{Config: &cfg, Agents: agents, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	srv := httptest.NewServer(a.Handler)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := a.Service.Wait(ctx); err != nil {
				a.Service.CancelAll()
				_ = a.Service.Wait(ctx)
			}
			if err := a.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return &auditApp{testApp: &testApp{App: a, srv: srv}, store: cfg.Store, stop: stop}
}

// closedLog stops the service (which writes what the audit log holds) and reads every entry
// back from the database.
func (aa *auditApp) closedLog(t *testing.T) []audit.Entry {
	t.Helper()
	aa.stop()
	r, closeStore, err := OpenAuditReader(t.Context(), aa.store)
	if err != nil {
		t.Fatalf("OpenAuditReader() = %v", err)
	}
	defer closeStore()
	var all []audit.Entry
	for q := (audit.Query{}); ; {
		page, err := r.ReadAudit(t.Context(), q)
		if err != nil {
			t.Fatalf("ReadAudit() = %v", err)
		}
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		q.After = page[len(page)-1].Seq
	}
}

func ofType[D audit.Detail](es []audit.Entry) []audit.Entry {
	var out []audit.Entry
	for _, e := range es {
		if _, ok := e.Detail.(D); ok {
			out = append(out, e)
		}
	}
	return out
}

// Every part that acts records its entry, end to end: a dev token minted, turns accepted and
// routed, an envelope suppressed, a cancellation, a trusted service acting for a user over
// A2A, reloads, and limit refusals counted once per principal and minute. No entry holds the
// messages, the idempotency key, a token or the secret.
func TestAuditLogEndToEnd(t *testing.T) {
	otel.SetTextMapPropagator(telemetry.Propagator()) // as serve does: traceparent is read
	t.Run("sqlite", func(t *testing.T) {
		testAuditLogEndToEnd(t, config.Store{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "switchboard.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		testAuditLogEndToEnd(t, config.Store{Driver: "postgres", DSN: replicaSchemaDSN(t)})
	})
}

func testAuditLogEndToEnd(t *testing.T, st config.Store) {
	const (
		canary  = "CANARY-TEXT-7f3a"
		idemKey = "idem-CANARY-KEY-91"
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	)
	dir := copyAgents(t, nil)
	aa := newAuditApp(t, dir, st, func(c *config.Config) {
		c.A2A.TrustedServices = []string{"svc-hub"}
		c.Limits.TurnsBurst, c.Limits.TurnsPerMinute = 3, 1 // carol's fourth start is refused
	})
	alice, dave, carol := aa.token(t, "alice"), aa.token(t, "dave"), aa.token(t, "carol")
	svc := aa.token(t, "svc-hub")
	secrets := []string{canary, idemKey, alice, dave, carol, svc, auditSecret}

	// A dev token minted through the chat page's sign-in.
	resp := aa.do(t, http.MethodPost, "/v1/dev/token", "", map[string]string{"sub": "erin"}, nil)
	var minted struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&minted); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("POST /v1/dev/token = %d, %v", resp.StatusCode, err)
	}
	secrets = append(secrets, minted.Token)

	// Alice's turn: shop's envelope names someone else and is suppressed.
	aa.Demo.InjectFor("alice", "offers.search", ccsdemo.Fault{WrongPrincipal: true})
	resp = aa.do(t, http.MethodPost, "/v1/turns", alice, map[string]string{"message": canary + " any deals on running shoes? and how many points do I have?"},
		map[string]string{"Accept": "text/event-stream", "Idempotency-Key": idemKey})
	var aliceTurn string
	for ev, err := range stream.ReadEvents(resp.Body) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Name == "turn.started" {
			aliceTurn = decode[stream.TurnStarted](t, ev).TurnID
		}
		if ev.Name == "turn.completed" {
			break
		}
	}
	stored, err := aa.Service.Turn(t.Context(), "alice", aliceTurn)
	if err != nil {
		t.Fatalf("alice's turn: %v", err)
	}

	// Dave cancels a turn whose CCS call hangs.
	aa.Demo.InjectFor("dave", "points.balance", ccsdemo.Fault{Hang: true})
	resp = aa.do(t, http.MethodPost, "/v1/turns", dave, map[string]string{"message": canary + " how many points do I have?"}, nil)
	var daves struct {
		TurnID string `json:"turn_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&daves); err != nil || daves.TurnID == "" {
		t.Fatalf("POST /v1/turns for dave = %d, %v", resp.StatusCode, err)
	}
	if got := aa.do(t, http.MethodDelete, "/v1/turns/"+daves.TurnID, dave, nil, nil).StatusCode; got != http.StatusNoContent {
		t.Fatalf("DELETE dave's turn = %d, want 204", got)
	}

	// A trusted service acts for alice over A2A, inside the caller's trace.
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"metadata":{"principal":"alice"},"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"` + canary + ` what tier am i in?"}]}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, aa.srv.URL+"/a2a", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+svc)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	var a2aResp *http.Response
	a2aResp, err = aa.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var task struct {
		Result struct{ ID string } `json:"result"`
	}
	raw, _ := io.ReadAll(a2aResp.Body)
	a2aResp.Body.Close()
	if err := json.Unmarshal(raw, &task); err != nil || task.Result.ID == "" {
		t.Fatalf("A2A message/send for alice = %s", raw)
	}

	// A reload that works, then one that does not.
	if err := aa.Reload(t.Context()); err != nil {
		t.Fatalf("Reload() = %v", err)
	}
	editFile(t, filepath.Join(dir, "concierge.yaml"), "sub_agents: [shop, rewards, support, travel]", "sub_agents: [shop, rewards, support, travel, nosuch]")
	if err := aa.Reload(t.Context()); err == nil {
		t.Fatal("Reload() of a broken folder = nil, want an error")
	}

	// Carol starts six turns at once: three are refused.
	var refused int
	for range 6 {
		resp := aa.do(t, http.MethodPost, "/v1/turns", carol, map[string]string{"message": canary + " how many points do I have?"}, nil)
		if resp.StatusCode == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused != 3 {
		t.Fatalf("carol's refusals = %d, want 3", refused)
	}

	entries := aa.closedLog(t)

	if got := ofType[audit.DevTokenMinted](entries); len(got) != 1 || got[0].Principal != "erin" {
		t.Errorf("dev_token_minted entries = %v, want one for erin", got)
	}

	accepted := map[string][]string{}
	for _, e := range ofType[audit.TurnAccepted](entries) {
		d := e.Detail.(audit.TurnAccepted)
		accepted[string(e.Principal)] = append(accepted[string(e.Principal)], d.TurnID)
		if d.TurnID == aliceTurn {
			sum := sha256.Sum256([]byte(idemKey))
			if d.IdempotencyKeySHA256 != hex.EncodeToString(sum[:]) || d.EpisodeID == "" {
				t.Errorf("alice's turn_accepted = %+v, want her episode and the SHA-256 of her key", d)
			}
		}
	}
	if want := map[string][]string{"alice": {aliceTurn, task.Result.ID}, "dave": {daves.TurnID}}; !cmp.Equal(want["alice"], accepted["alice"]) ||
		!cmp.Equal(want["dave"], accepted["dave"]) || len(accepted["carol"]) != 3 {
		t.Errorf("turn_accepted = %v, want alice %v, dave %v and three of carol's", accepted, want["alice"], want["dave"])
	}

	routed := map[string]audit.RoutingDecision{}
	for _, e := range ofType[audit.RoutingDecision](entries) {
		routed[e.Detail.(audit.RoutingDecision).TurnID] = e.Detail.(audit.RoutingDecision)
	}
	if len(routed) != 6 {
		t.Errorf("routing_decision entries for %d turns, want one for each of the 6 accepted", len(routed))
	}
	want := audit.RoutingDecision{TurnID: aliceTurn, Outcome: string(stored.Outcome), Intents: stored.Decision.IntentCount, Cap: stored.Decision.CapBehaviour}
	for _, ag := range stored.Decision.Agents {
		want.Agents = append(want.Agents, audit.AgentOutcome{Agent: ag.Agent, Outcome: string(ag.Outcome)})
	}
	if diff := cmp.Diff(want, routed[aliceTurn]); diff != "" || len(want.Agents) != 2 {
		t.Errorf("alice's routing_decision (-want +got), want two agents:\n%s", diff)
	}
	if got := routed[daves.TurnID].Outcome; got != string(stream.OutcomeCancelled) {
		t.Errorf("dave's routing_decision outcome = %q, want cancelled", got)
	}

	wantSuppressed := []audit.Entry{{Principal: "alice", Detail: audit.EnvelopeSuppressed{TurnID: aliceTurn, Agent: "shop", Enricher: "offers.search", Reason: "principal_mismatch"}}}
	if diff := cmp.Diff(wantSuppressed, ofType[audit.EnvelopeSuppressed](entries), cmpEntry); diff != "" {
		t.Errorf("envelope_suppressed (-want +got):\n%s", diff)
	}
	wantCancelled := []audit.Entry{{Principal: "dave", Detail: audit.TurnCancelled{TurnID: daves.TurnID}}}
	if diff := cmp.Diff(wantCancelled, ofType[audit.TurnCancelled](entries), cmpEntry); diff != "" {
		t.Errorf("turn_cancelled (-want +got):\n%s", diff)
	}
	wantActed := []audit.Entry{{Principal: "alice", Detail: audit.ServiceActed{Service: "svc-hub", Method: "message/send", TaskID: task.Result.ID, TraceID: traceID}}}
	if diff := cmp.Diff(wantActed, ofType[audit.ServiceActed](entries), cmpEntry); diff != "" {
		t.Errorf("service_acted_for_user (-want +got):\n%s", diff)
	}
	agents := len(aa.Current().SubAgents()) + 1
	wantReloads := []audit.Entry{
		{Detail: audit.DefinitionsReloaded{Result: "ok", Agents: agents}},
		{Detail: audit.DefinitionsReloaded{Result: "error", Agents: agents, Problems: 1}},
	}
	if diff := cmp.Diff(wantReloads, ofType[audit.DefinitionsReloaded](entries), cmpEntry); diff != "" {
		t.Errorf("definitions_reloaded (-want +got):\n%s", diff)
	}
	wantRefusals := []audit.Entry{{Principal: "carol", Detail: audit.LimitRefusals{Count: 3, Limits: map[string]int{orchestrator.LimitTurnsPerMinute: 3}}}}
	if diff := cmp.Diff(wantRefusals, ofType[audit.LimitRefusals](entries), cmpEntry); diff != "" {
		t.Errorf("limit_refusals (-want +got):\n%s", diff)
	}

	var types []audit.Type
	for _, e := range entries {
		if !slices.Contains(types, e.Type()) {
			types = append(types, e.Type())
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("entry %s holds %.24q", b, s)
			}
		}
	}
	slices.Sort(types)
	all := slices.Clone(audit.Types)
	slices.Sort(all)
	if diff := cmp.Diff(all, types); diff != "" {
		t.Errorf("types recorded (-every type +recorded):\n%s", diff)
	}
}

// cmpEntry compares entries by whom and what, leaving out when and their place in the log.
var cmpEntry = cmp.Transformer("whomWhat", func(e audit.Entry) audit.Entry { return audit.Entry{Principal: e.Principal, Detail: e.Detail} })

// An audit log the database will not take fails no turn: the turn completes, and each entry
// that could not be written is logged whole and counted.
func TestAuditWriteFailureFailsNoTurn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "switchboard.db")
	reader := sdkmetric.NewManualReader()
	logs := &obsBuffer{}
	cfg := config.Default()
	cfg.Store = config.Store{Driver: "sqlite", DSN: db}
	cfg.Auth.HS256Secret = auditSecret
	a, err := New(t.Context(), Input{Config: &cfg, Agents: "../../demo", Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// What a broken or full database does to the audit table's inserts.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(t.Context(), "DROP TABLE audit_log"); err != nil {
		t.Fatal(err)
	}

	rec, _, err := a.Service.Start(t.Context(), orchestrator.StartRequest{Principal: "alice", Message: "how many points do I have?"})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	var outcome stream.Outcome
	for r, err := range a.Hub.Follow(t.Context(), rec.ID, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := r.Event.(stream.TurnCompleted); ok {
			outcome = c.Outcome
		}
	}
	if outcome != stream.OutcomeOK {
		t.Errorf("turn outcome = %q, want ok whatever the audit log", outcome)
	}
	// The turn's entries are recorded as its goroutine ends, just after its clients see
	// turn.completed: wait for that before flushing.
	if err := a.Service.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := a.Audit.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	var failures int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "switchboard_audit_write_failures_total" {
				for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
					failures += dp.Value
				}
			}
		}
	}
	if failures != 2 {
		t.Errorf("switchboard_audit_write_failures_total = %d, want 2 (the turn accepted and routed)", failures)
	}
	for _, want := range []string{`"msg":"audit entry not written"`, `"type":"turn_accepted"`, `"type":"routing_decision"`, rec.ID} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %s:\n%s", want, logs.String())
		}
	}
}
