package store

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/audit/audittest"
)

func TestSQLiteAudit(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Store {
		return openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
	})
}

func TestPostgresAudit(t *testing.T) {
	skipWithoutPostgres(t)
	audittest.Run(t, func(t *testing.T) audittest.Store { return openPostgres(t, postgresSchema(t)) })
}

// auditStore is a store under test with a connection that may write anything: what an
// operator, or a bug, could send the database.
type auditStore interface {
	audittest.Store
	raw() *sql.DB
}

func (s *sqlStore) raw() *sql.DB { return s.write }

// The database refuses to change or remove an audit entry, whatever the statement.
func TestAuditAppendOnly(t *testing.T) {
	stores := []struct {
		name  string
		open  func(t *testing.T) auditStore
		extra []string // statements only this database has
	}{
		{"sqlite", func(t *testing.T) auditStore {
			return openSQLite(t, filepath.Join(t.TempDir(), "switchboard.db"))
		}, nil},
		{"postgres", func(t *testing.T) auditStore {
			skipWithoutPostgres(t)
			return openPostgres(t, postgresSchema(t))
		}, []string{`TRUNCATE audit_log`}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			in := audittest.Samples()
			if err := s.AppendAudit(t.Context(), in); err != nil {
				t.Fatalf("AppendAudit() = %v", err)
			}
			before, err := s.ReadAudit(t.Context(), audit.Query{})
			if err != nil {
				t.Fatalf("ReadAudit() = %v", err)
			}
			statements := append([]string{
				`UPDATE audit_log SET principal = 'mallory'`,
				`UPDATE audit_log SET detail = '{}' WHERE type = 'turn_accepted'`,
				`DELETE FROM audit_log WHERE principal = 'alice'`,
				`DELETE FROM audit_log`, // SQLite's truncate optimisation must not skip the trigger
			}, st.extra...)
			for _, stmt := range statements {
				_, err := s.raw().ExecContext(t.Context(), stmt)
				if err == nil || !strings.Contains(err.Error(), "audit_log is append-only") {
					t.Errorf("Exec(%q) = %v, want the append-only refusal", stmt, err)
				}
			}
			after, err := s.ReadAudit(t.Context(), audit.Query{})
			if err != nil {
				t.Fatalf("ReadAudit() = %v", err)
			}
			if diff := cmp.Diff(before, after, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("audit log changed (-before +after):\n%s", diff)
			}
			// Appending still works.
			if err := s.AppendAudit(t.Context(), in[:1]); err != nil {
				t.Errorf("AppendAudit() after the refusals = %v", err)
			}
		})
	}
}
