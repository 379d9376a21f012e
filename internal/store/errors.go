package store

import "errors"

var (
	// ErrSchemaVersion means the database was migrated by a newer switchboard than this one: its
	// schema version is above every migration this binary knows, so it refuses to touch it.
	ErrSchemaVersion = errors.New("store: database schema is newer than this binary")

	// ErrEventID means an event id does not fit the database's signed 64-bit column.
	ErrEventID = errors.New("store: event id out of range")
)
