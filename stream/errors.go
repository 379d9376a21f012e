package stream

import "errors"

var (
	// ErrRecordExists is returned (wrapped) by [LogStore.AppendEvent] when the turn already has a
	// record with that id: a log is append-only and ids are never reused.
	ErrRecordExists = errors.New("stream: record already exists")

	// ErrSlowClient is returned by [ServeSSE] when a client fell more than the backlog behind and
	// was disconnected. The client is expected to reconnect with Last-Event-ID.
	ErrSlowClient = errors.New("stream: slow client dropped")

	// ErrBadLastEventID is returned (wrapped) by [LastEventID] for a value that is not a
	// non-negative decimal integer.
	ErrBadLastEventID = errors.New("stream: bad Last-Event-ID")

	// ErrBadEventID is yielded by [ReadEvents] when an event carries an id that is not a
	// non-negative decimal integer (our servers only send numeric ids).
	ErrBadEventID = errors.New("stream: bad event id")

	// ErrLineTooLong is yielded by [ReadEvents] when a line or an event's data exceeds the
	// reader's limit, which keeps a hostile or broken server from growing memory without bound.
	ErrLineTooLong = errors.New("stream: SSE line too long")

	// ErrReplayUnavailable means the turn's log could not be read; nothing was written.
	ErrReplayUnavailable = errors.New("stream: turn log unavailable")
)
