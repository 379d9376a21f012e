package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/store"
)

// auditDB writes a SQLite store holding entries and a config naming it, and returns the
// config's path.
func auditDB(t *testing.T, entries []audit.Entry) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.db")
	s, err := store.OpenSQLite(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendAudit(t.Context(), entries); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "switchboard.yaml")
	if err := os.WriteFile(cfg, []byte("store: {driver: sqlite, dsn: "+db+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestAuditCommand(t *testing.T) {
	now := time.Now().UTC()
	cfg := auditDB(t, []audit.Entry{
		{Time: now.Add(-3 * time.Hour), Principal: "alice", Detail: audit.TurnAccepted{EpisodeID: "ep_1", TurnID: "turn_1", IdempotencyKeySHA256: "ab12"}},
		{Time: now.Add(-3 * time.Hour), Principal: "alice", Detail: audit.RoutingDecision{TurnID: "turn_1", Outcome: "degraded", Intents: 2, Cap: "within",
			Agents: []audit.AgentOutcome{{Agent: "shop", Outcome: "ok"}, {Agent: "rewards", Outcome: "unavailable"}}}},
		{Time: now.Add(-90 * time.Minute), Principal: "bob", Detail: audit.TurnCancelled{TurnID: "turn_2"}},
		{Time: now.Add(-10 * time.Minute), Detail: audit.DefinitionsReloaded{Result: "ok", Agents: 5}},
		{Time: now.Add(-time.Minute).Truncate(time.Minute), Principal: "carol", Detail: audit.LimitRefusals{Count: 3, Limits: map[string]int{"turns_per_minute": 3}}},
	})
	tests := []struct {
		name string
		args []string
		want []string // the TYPE and PRINCIPAL columns, or the line
	}{
		{"everything", nil, []string{"turn_accepted alice", "routing_decision alice", "turn_cancelled bob", "definitions_reloaded -", "limit_refusals carol"}},
		{"principal", []string{"--principal", "alice"}, []string{"turn_accepted alice", "routing_decision alice"}},
		{"type", []string{"--type", "limit_refusals"}, []string{"limit_refusals carol"}},
		{"since a duration", []string{"--since", "2h"}, []string{"turn_cancelled bob", "definitions_reloaded -", "limit_refusals carol"}},
		{"since days", []string{"--since", "1d"}, []string{"turn_accepted alice", "routing_decision alice", "turn_cancelled bob", "definitions_reloaded -", "limit_refusals carol"}},
		{"since a time", []string{"--since", now.Add(-20 * time.Minute).Format(time.RFC3339)}, []string{"definitions_reloaded -", "limit_refusals carol"}},
		{"nothing matches", []string{"--principal", "mallory"}, []string{"no audit entries match"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(t.Context(), append([]string{"audit", "--config", cfg}, tt.args...), &out, &errOut, envMap(nil)); code != 0 {
				t.Fatalf("audit %v = exit %d: %s", tt.args, code, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var got []string
			for i, l := range lines {
				f := strings.Fields(l)
				switch {
				case i == 0 && len(f) > 0 && f[0] == "TIME":
					continue
				case len(f) >= 3 && f[0] != "no":
					got = append(got, f[1]+" "+f[2])
				default:
					got = append(got, l)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("audit %v rows (-want +got):\n%s\n%s", tt.args, diff, out.String())
			}
		})
	}
}

func TestAuditCommandDetailColumn(t *testing.T) {
	cfg := auditDB(t, []audit.Entry{
		{Time: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Principal: "alice", Detail: audit.RoutingDecision{TurnID: "turn_1", Outcome: "degraded", Intents: 2, Cap: "within",
			Agents: []audit.AgentOutcome{{Agent: "shop", Outcome: "ok"}, {Agent: "rewards", Outcome: "unavailable"}}}},
		{Time: time.Date(2026, 11, 27, 12, 1, 0, 0, time.UTC), Principal: "carol", Detail: audit.LimitRefusals{Count: 3, Limits: map[string]int{"turns_per_minute": 2, "turns_running": 1}}},
	})
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"audit", "--config", cfg}, &out, &errOut, envMap(nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"2026-11-27T12:00:00.000Z  routing_decision  alice      turn_id=turn_1 outcome=degraded intents=2 cap=within agents=shop:ok,rewards:unavailable",
		"2026-11-27T12:01:00.000Z  limit_refusals    carol      count=3 limits=turns_per_minute:2,turns_running:1",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("audit table lacks\n%s\nin\n%s", want, out.String())
		}
	}
}

func TestAuditCommandJSON(t *testing.T) {
	in := []audit.Entry{
		{Time: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Principal: "alice", Detail: audit.ServiceActed{Service: "svc-hub", Method: "message/send", TaskID: "turn_1", TraceID: "4bf9"}},
		{Time: time.Date(2026, 11, 27, 12, 1, 0, 0, time.UTC), Principal: "erin", Detail: audit.DevTokenMinted{}},
	}
	cfg := auditDB(t, in)
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"audit", "--config", cfg, "--json"}, &out, &errOut, envMap(nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got []audit.Entry
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		got = append(got, e)
	}
	for i := range in {
		in[i].Seq = int64(i + 1)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("audit --json (-want +got):\n%s", diff)
	}
}

// The store can come from the environment, as serve reads it; a model key that is not set
// does not matter to the audit log.
func TestAuditCommandStoreFromEnv(t *testing.T) {
	cfg := auditDB(t, []audit.Entry{{Time: time.Now(), Principal: "erin", Detail: audit.DevTokenMinted{}}})
	db := filepath.Join(filepath.Dir(cfg), "audit.db")
	other := filepath.Join(t.TempDir(), "switchboard.yaml")
	body := "store: {driver: sqlite, dsn_env: AUDIT_DSN}\nmodels:\n  default: {provider: openai, model: m, api_key_env: UNSET_KEY}\n"
	if err := os.WriteFile(other, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"audit", "--config", other}, &out, &errOut, envMap(map[string]string{"AUDIT_DSN": db})); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "dev_token_minted") {
		t.Errorf("audit = %q, want erin's entry", out.String())
	}
}

func TestAuditCommandUsage(t *testing.T) {
	cfg := auditDB(t, nil)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--type", "turn_acepted"}, 2, "want one of turn_accepted"},
		{[]string{"--since", "yesterday"}, 2, "neither a duration"},
		{[]string{"--since", "-2h"}, 2, "negative"},
		{[]string{"extra"}, 2, "no arguments"},
		{[]string{"--bogus"}, 2, "flag provided but not defined"},
	} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), append([]string{"audit", "--config", cfg}, tc.args...), &out, &errOut, envMap(nil))
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("audit %v = exit %d, stderr %q; want %d and %q", tc.args, code, errOut.String(), tc.code, tc.want)
		}
	}
	var out, errOut bytes.Buffer
	memory := filepath.Join(t.TempDir(), "memory.yaml")
	if err := os.WriteFile(memory, []byte("store: {driver: memory}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := run(t.Context(), []string{"audit", "--config", memory}, &out, &errOut, envMap(nil)); code != 1 || !strings.Contains(errOut.String(), "memory store keeps no audit log") {
		t.Errorf("audit on the memory store = exit %d, %q; want 1 and why", code, errOut.String())
	}
}

func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"2h", "7d", "90m", "2026-11-27", "2026-11-27T12:00:00Z", "2026-11-27 12:00:00", "-1h", "d", "99999999999d"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseSince(s, now)
		if err == nil && got.After(now) && !strings.ContainsAny(s, "-:") {
			t.Errorf("parseSince(%q) = %v, after now for a duration", s, got)
		}
	})
}

// Reading the log never creates a store: run where no switchboard.db exists, audit says so
// instead of making an empty database there and reporting that nothing matches.
func TestAuditWithoutStoreCreatesNone(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "switchboard.db")
	cfg := filepath.Join(dir, "switchboard.yaml")
	if err := os.WriteFile(cfg, []byte("store: {driver: sqlite, dsn: "+db+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"audit", "--config", cfg}, &out, &errOut, envMap(nil)); code != 1 {
		t.Errorf("audit with no store = exit %d, want 1; stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), db) {
		t.Errorf("audit with no store says %q, want it to name %s", errOut.String(), db)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("audit created %s (stat: %v), want no file", db, err)
	}
}
