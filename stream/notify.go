package stream

// AppendWatcher is implemented by a [LogStore] shared by several processes that can tell a
// follower when any of them appends records to a turn, so that a follower of a turn running on
// another replica reads the store when something is there rather than on a timer.
//
// The signal is a hint, not a delivery: it carries no records, and it may come late, twice or
// not at all (a dropped database connection, say), so a [Hub] still re-reads the store at its
// poll interval as the fallback.
type AppendWatcher interface {
	// WatchAppends starts watching the turn. The channel receives a value after records of
	// the turn are appended (values for several appends may merge into one) and also,
	// spuriously, whenever the watcher may have missed one. stop ends the watch; it must be
	// called once, and the channel is never closed.
	WatchAppends(turnID string) (appended <-chan struct{}, stop func())
}
