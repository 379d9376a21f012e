package assembly

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/switchboard-ai/switchboard/a2aserver"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/internal/audit"
	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/store"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/subagents"
)

// auditRecorder is where st keeps its audit log: the SQL stores in their audit_log table;
// beside the memory store it lives in memory too.
func auditRecorder(st appStore) audit.Recorder {
	if r, ok := st.(audit.Recorder); ok {
		return r
	}
	return audit.NewMemory()
}

// openAudit starts the audit log over st's; Close writes what is left before the store closes.
func (a *App) openAudit(st appStore, o Input) error {
	l, err := audit.New(audit.Config{Recorder: auditRecorder(st), Logger: o.Logger, Meters: o.MeterProvider})
	if err != nil {
		return err
	}
	a.Audit = l
	a.closers = append(a.closers, l.Close)
	return nil
}

// auditor turns what the parts report into audit entries, keeping identifiers and outcomes
// only. Its methods are hooks: each returns at once.
type auditor struct{ a *App }

var _ orchestrator.Auditor = auditor{}

// TurnAccepted implements orchestrator.Auditor.
func (x auditor) TurnAccepted(ctx context.Context, rec orchestrator.TurnRecord) {
	x.a.Audit.Record(ctx, rec.Principal, audit.TurnAccepted{
		EpisodeID: rec.EpisodeID, TurnID: rec.ID, IdempotencyKeySHA256: keyHash(rec.IdempotencyKey),
	})
}

// TurnEnded implements orchestrator.Auditor: the routing decision, with each agent's outcome.
func (x auditor) TurnEnded(ctx context.Context, rec orchestrator.TurnRecord) {
	d := audit.RoutingDecision{TurnID: rec.ID, Outcome: string(rec.Outcome), Agents: []audit.AgentOutcome{}}
	if dec := rec.Decision; dec != nil {
		d.Intents, d.Cap, d.Dropped = dec.IntentCount, dec.CapBehaviour, len(dec.Dropped)
		d.Agents = make([]audit.AgentOutcome, 0, len(dec.Agents))
		for _, ag := range dec.Agents {
			d.Agents = append(d.Agents, audit.AgentOutcome{Agent: ag.Agent, Outcome: string(ag.Outcome)})
		}
	}
	x.a.Audit.Record(ctx, rec.Principal, d)
}

// TurnCancelled implements orchestrator.Auditor.
func (x auditor) TurnCancelled(ctx context.Context, p principal.Principal, turnID string) {
	x.a.Audit.Record(ctx, p, audit.TurnCancelled{TurnID: turnID})
}

func (x auditor) suppressed(ctx context.Context, s subagents.Suppression) {
	x.a.Audit.Record(ctx, s.Principal, audit.EnvelopeSuppressed{
		TurnID: s.TurnID, Agent: s.Agent, Enricher: s.Enricher, Reason: string(s.Reason),
	})
}

func (x auditor) delegated(ctx context.Context, d a2aserver.Delegation) {
	x.a.Audit.Record(ctx, d.Principal, audit.ServiceActed{
		Service: string(d.Service), Method: d.Method, TaskID: d.TaskID, TraceID: d.TraceID,
	})
}

func (x auditor) reloaded(ctx context.Context, agents int, err error) {
	d := audit.DefinitionsReloaded{Result: "ok", Agents: agents}
	if err != nil {
		d.Result, d.Problems = "error", 1
		var le *definitions.LoadError
		if errors.As(err, &le) {
			d.Problems = len(le.Problems)
		}
	}
	x.a.Audit.Record(ctx, "", d)
}

// devLogin mints a dev token through mint and records that it did, for sub only.
func (x auditor) devLogin(mint func(sub string) (string, error)) func(sub string) (string, error) {
	return func(sub string) (string, error) {
		tok, err := mint(sub)
		if err == nil {
			x.a.Audit.Record(context.Background(), principal.Principal(sub), audit.DevTokenMinted{})
		}
		return tok, err
	}
}

// limited counts a refusal in the metric and, per principal per minute, in the audit log.
func (x auditor) limited(count func(limit string)) func(p principal.Principal, limit string) {
	return func(p principal.Principal, limit string) {
		count(limit)
		x.a.Audit.Refused(p, limit)
	}
}

// keyHash is the hex SHA-256 of an idempotency key, or empty for none.
func keyHash(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// OpenAuditReader opens the audit log of the store c names, for `switchboard audit`. The
// memory store has none that outlives its process. A SQLite file that does not exist is an
// error rather than a new, empty store: run in the wrong folder, a reader must not leave a
// database behind and report that nothing matches. The caller must call close.
func OpenAuditReader(ctx context.Context, c config.Store) (r audit.Reader, close func() error, err error) {
	if c.Driver == "memory" {
		return nil, nil, errors.New("the memory store keeps no audit log beyond its process: read it from a sqlite or postgres store")
	}
	if file := sqliteFile(c); file != "" {
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no SQLite store at %s: run audit where serve keeps its store, or name it with --config (store.dsn) or SWITCHBOARD_STORE_DSN", file)
		}
	}
	s, err := openDurable(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	reader, ok := s.(audit.Reader)
	if !ok {
		s.Close()
		return nil, nil, errors.New("this store keeps no audit log")
	}
	return reader, s.Close, nil
}

// sqliteFile is the file of the SQLite store c names, or "" when c names another driver or an
// in-memory database.
func sqliteFile(c config.Store) string {
	if c.Driver == "postgres" {
		return ""
	}
	return store.SQLiteFile(cmp.Or(c.DSN, defaultSQLiteFile))
}
