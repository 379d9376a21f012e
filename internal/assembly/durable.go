package assembly

import (
	"context"
	"errors"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/internal/store"
)

type durableStore interface {
	appStore
	Close() error
}

// defaultSQLiteFile is the SQLite store of a config that names none.
const defaultSQLiteFile = "switchboard.db"

// openDurable opens the SQLite (default) or PostgreSQL store.
func openDurable(ctx context.Context, c config.Store, opts ...store.Option) (durableStore, error) {
	switch c.Driver {
	case "postgres":
		if c.DSN == "" {
			return nil, errors.New("store: postgres needs dsn or dsn_env")
		}
		return store.OpenPostgres(ctx, c.DSN, opts...)
	default:
		dsn := c.DSN
		if dsn == "" {
			dsn = defaultSQLiteFile
		}
		return store.OpenSQLite(ctx, dsn, opts...)
	}
}

// storeReady is /readyz's check of the store: the durable stores can tell whether they reach
// their database; the memory store always can.
func storeReady(st appStore) func(context.Context) error {
	if r, ok := st.(interface{ Ready(context.Context) error }); ok {
		return r.Ready
	}
	return nil
}
