package store

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
	"github.com/switchboard-ai/switchboard/orchestrator"
)

// sqlBlocks returns the sql code blocks of docs/operations.md's "Audit log" section, in order.
func sqlBlocks(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Audit log\n")
	if !ok {
		t.Fatal(`docs/operations.md has no "## Audit log" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for {
		var block string
		if _, section, ok = strings.Cut(section, "```sql\n"); !ok {
			return blocks
		}
		block, section, _ = strings.Cut(section, "```")
		blocks = append(blocks, block)
	}
}

// TestPostgresAuditGrants runs the roles and grants docs/operations.md gives, as written but
// for the names: the application's role serves turns and appends entries, and cannot change
// the audit log, nor switch its triggers off.
func TestPostgresAuditGrants(t *testing.T) {
	dsn := skipWithoutPostgres(t)
	blocks := sqlBlocks(t)
	if len(blocks) != 2 {
		t.Fatalf("docs/operations.md's Audit log has %d sql blocks, want 2 (roles, then grants)", len(blocks))
	}
	admin, err := sql.Open(postgresDriver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	n := fmt.Sprintf("%d_%d", time.Now().UnixNano(), schemaSeq.Add(1))
	owner, app, schema := "sbowner_"+n, "sbapp_"+n, "sbaudit_"+n
	rename := func(block string) string {
		block = strings.NewReplacer("switchboard_owner", owner, "switchboard_app", app).Replace(block)
		return regexp.MustCompile(`\bswitchboard\b`).ReplaceAllString(block, schema)
	}
	t.Cleanup(func() {
		for _, stmt := range []string{"DROP SCHEMA IF EXISTS " + schema + " CASCADE", "DROP OWNED BY " + app, "DROP ROLE IF EXISTS " + app,
			"DROP OWNED BY " + owner, "DROP ROLE IF EXISTS " + owner} {
			_, _ = admin.Exec(stmt)
		}
	})
	if _, err := admin.ExecContext(t.Context(), rename(blocks[0])); err != nil {
		if strings.Contains(err.Error(), "permission denied") {
			t.Skipf("the test database's user may not create roles: %v", err)
		}
		t.Fatalf("roles block: %v", err)
	}
	as := func(role string) string {
		u, err := url.Parse(dsn)
		if err != nil || u.Scheme == "" {
			t.Skipf("%s is not a URL; this test needs one to connect as other roles", postgresDSNEnv)
		}
		u.User = url.User(role)
		return u.String()
	}
	// The owner creates the tables, then grants.
	ownerStore, err := OpenPostgres(t.Context(), as(owner))
	if err != nil {
		t.Skipf("cannot connect as a new role (the cluster wants a password?): %v", err)
	}
	ownerStore.Close()
	ownerDB, err := sql.Open(postgresDriver, as(owner))
	if err != nil {
		t.Fatal(err)
	}
	defer ownerDB.Close()
	if _, err := ownerDB.ExecContext(t.Context(), rename(blocks[1])); err != nil {
		t.Fatalf("grants block: %v", err)
	}

	s, err := OpenPostgres(t.Context(), as(app))
	if err != nil {
		t.Fatalf("OpenPostgres() as the application's role = %v", err)
	}
	defer s.Close()
	rec := turnRec(alice, "turn_grants", "ep_grants", "key-1")
	if _, _, err := s.CreateTurn(t.Context(), rec); err != nil {
		t.Errorf("CreateTurn() as the application's role = %v", err)
	}
	if err := s.FinishTurn(t.Context(), finished(rec)); err != nil {
		t.Errorf("FinishTurn() as the application's role = %v", err)
	}
	if err := s.RenewLease(t.Context(), time.Now().Add(time.Minute)); err != nil {
		t.Errorf("RenewLease() as the application's role = %v", err)
	}
	if _, err := s.AbandonOrphans(t.Context(), time.Now(), time.Now()); err != nil {
		t.Errorf("AbandonOrphans() as the application's role = %v", err)
	}
	if err := s.AppendAudit(t.Context(), audittest.Samples()); err != nil {
		t.Errorf("AppendAudit() as the application's role = %v", err)
	}
	if got, err := s.ReadAudit(t.Context(), audit.Query{}); err != nil || len(got) != len(audittest.Samples()) {
		t.Errorf("ReadAudit() as the application's role = %d entries, %v", len(got), err)
	}
	if _, err := s.Turn(t.Context(), alice, rec.ID); err != nil && err != orchestrator.ErrNotFound {
		t.Errorf("Turn() as the application's role = %v", err)
	}
	for _, stmt := range []string{
		`UPDATE audit_log SET principal = 'mallory'`,
		`DELETE FROM audit_log`,
		`TRUNCATE audit_log`,
		`ALTER TABLE audit_log DISABLE TRIGGER ALL`,
		`DROP TRIGGER audit_log_no_change ON audit_log`,
	} {
		_, err := s.write.ExecContext(t.Context(), stmt)
		if err == nil || !(strings.Contains(err.Error(), "permission denied") || strings.Contains(err.Error(), "must be owner")) {
			t.Errorf("Exec(%q) as the application's role = %v, want it refused for want of the privilege", stmt, err)
		}
	}
}
