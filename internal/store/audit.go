package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/principal"
)

// The audit log is append-only, and the database itself holds to that: triggers refuse every
// UPDATE and DELETE of its rows (and on PostgreSQL a TRUNCATE), whoever sends them. On
// PostgreSQL the application's role should also lack those privileges (docs/operations.md);
// the triggers stand even for a role that has them, short of the table's owner dropping them.
// detail is the entry's JSON: identifiers, counts and outcomes, never message text.

var sqliteAuditMigration = []string{
	`CREATE TABLE audit_log (
		seq       INTEGER PRIMARY KEY,
		at        TIMESTAMP NOT NULL,
		type      TEXT NOT NULL,
		principal TEXT NOT NULL,
		detail    TEXT NOT NULL
	)`,
	`CREATE INDEX audit_log_at ON audit_log(at)`,
	`CREATE INDEX audit_log_principal ON audit_log(principal, seq)`,
	`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
		BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: UPDATE refused'); END`,
	`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
		BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: DELETE refused'); END`,
}

var postgresAuditMigration = []string{
	`CREATE TABLE audit_log (
		seq       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		at        TIMESTAMPTZ NOT NULL,
		type      TEXT NOT NULL,
		principal TEXT NOT NULL,
		detail    JSONB NOT NULL
	)`,
	`CREATE INDEX audit_log_at ON audit_log(at)`,
	`CREATE INDEX audit_log_principal ON audit_log(principal, seq)`,
	`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
	END
	$$`,
	`CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
		FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
	`CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
		FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`,
}

const qAppendAudit = `INSERT INTO audit_log (at, type, principal, detail) VALUES (?, ?, ?, ?)`

var (
	_ audit.Recorder = (*SQLite)(nil)
	_ audit.Reader   = (*SQLite)(nil)
	_ audit.Recorder = (*Postgres)(nil)
	_ audit.Reader   = (*Postgres)(nil)
)

// AppendAudit implements audit.Recorder: the entries go in one transaction, on SQLite shared
// with other writes (see committer).
func (s *sqlStore) AppendAudit(ctx context.Context, entries []audit.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	details := make([]string, len(entries))
	for i, e := range entries {
		b, err := audit.EncodeDetail(e.Detail)
		if err != nil {
			return fmt.Errorf("store: audit: %w", err)
		}
		details[i] = string(b)
	}
	q := s.dialect(qAppendAudit)
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i, e := range entries {
			if _, err := s.exec(ctx, tx, q, storedTime(e.Time), string(e.Type()), string(e.Principal), details[i]); err != nil {
				return fmt.Errorf("store: append audit: %w", err)
			}
		}
		return nil
	})
}

// ReadAudit implements audit.Reader.
func (s *sqlStore) ReadAudit(ctx context.Context, q audit.Query) ([]audit.Entry, error) {
	var (
		where = []string{"seq > ?"}
		args  = []any{q.After}
	)
	if !q.Since.IsZero() {
		where, args = append(where, "at >= ?"), append(args, storedTime(q.Since))
	}
	if q.Principal != "" {
		where, args = append(where, "principal = ?"), append(args, string(q.Principal))
	}
	if q.Type != "" {
		where, args = append(where, "type = ?"), append(args, string(q.Type))
	}
	args = append(args, q.PageSize())
	stmt := s.dialect(`SELECT seq, at, type, principal, detail FROM audit_log WHERE ` +
		strings.Join(where, " AND ") + ` ORDER BY seq LIMIT ?`)
	rows, err := s.read.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read audit: %w", err)
	}
	defer rows.Close()
	out := []audit.Entry{}
	for rows.Next() {
		var (
			e              audit.Entry
			typ, p, detail string
		)
		if err := rows.Scan(&e.Seq, &e.Time, &typ, &p, &detail); err != nil {
			return nil, fmt.Errorf("store: read audit: %w", err)
		}
		if e.Detail, err = audit.DecodeDetail(audit.Type(typ), []byte(detail)); err != nil {
			return nil, fmt.Errorf("store: audit entry %d: %w", e.Seq, err)
		}
		e.Time, e.Principal = storedTime(e.Time), principal.Principal(p)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read audit: %w", err)
	}
	return out, nil
}
