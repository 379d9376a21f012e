//go:build pgx

package store

// The driver sits behind the pgx build tag until github.com/jackc/pgx/v5 is in go.mod; once it
// is, delete the build constraint above. Without it, OpenPostgres returns ErrNoPostgresDriver.
import _ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
