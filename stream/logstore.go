package stream

import (
	"context"
	"fmt"
	"sync"
)

// LogStore keeps each turn's event log: the source of truth for replay, shared by every replica.
// Implementations encode events with [Marshal] and decode them with [Decode]. They must be safe
// for concurrent use; streamtest.LogStoreSuite checks the contract.
type LogStore interface {
	// AppendEvent stores rec as the next record of the turn. It fails with an error wrapping
	// [ErrRecordExists] if the turn already has a record with rec.ID.
	AppendEvent(ctx context.Context, turnID string, rec Record) error
	// Events returns the turn's records with an ID greater than after, in ID order. A turn with
	// no records gives an empty slice and no error.
	Events(ctx context.Context, turnID string, after uint64) ([]Record, error)
}

// BatchLogStore is implemented by a [LogStore] that can store several records of a turn at
// once, as one transaction. A [TurnLog] uses it, when its store has it, to commit a burst of
// streamed events in one round trip instead of one commit each.
type BatchLogStore interface {
	// AppendEvents stores recs, in increasing ID order, as the next records of the turn: all of
	// them or, on error, none. It fails with an error wrapping [ErrRecordExists] if the turn
	// already has a record with one of their ids or recs repeats an id. No records is a no-op.
	AppendEvents(ctx context.Context, turnID string, recs []Record) error
}

// MemoryLogStore is a [LogStore] in process memory, for tests and single-process runs. It keeps
// every record until the process exits.
type MemoryLogStore struct {
	mu    sync.RWMutex
	turns map[string][]storedRecord
}

type storedRecord struct {
	id   uint64
	name string
	data []byte
}

var (
	_ LogStore      = (*MemoryLogStore)(nil)
	_ BatchLogStore = (*MemoryLogStore)(nil)
)

// NewMemoryLogStore returns an empty store.
func NewMemoryLogStore() *MemoryLogStore {
	return &MemoryLogStore{turns: map[string][]storedRecord{}}
}

// AppendEvent implements [LogStore]. Records are stored encoded, as a database would, so that
// callers can neither share nor mutate them afterwards.
func (s *MemoryLogStore) AppendEvent(_ context.Context, turnID string, rec Record) error {
	name, data, err := rec.Marshal()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.turns[turnID]
	if n := len(recs); n > 0 && recs[n-1].id >= rec.ID {
		return fmt.Errorf("stream: turn %s record %d: %w", turnID, rec.ID, ErrRecordExists)
	}
	s.turns[turnID] = append(recs, storedRecord{id: rec.ID, name: name, data: data})
	return nil
}

// AppendEvents implements [BatchLogStore]. Like AppendEvent it accepts only ids beyond the
// turn's last one, so every id of recs must be greater than the one before it.
func (s *MemoryLogStore) AppendEvents(_ context.Context, turnID string, recs []Record) error {
	encoded := make([]storedRecord, len(recs))
	for i, rec := range recs {
		name, data, err := rec.Marshal()
		if err != nil {
			return err
		}
		encoded[i] = storedRecord{id: rec.ID, name: name, data: data}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := uint64(0)
	if have := s.turns[turnID]; len(have) > 0 {
		last = have[len(have)-1].id
	}
	for _, r := range encoded {
		if r.id <= last {
			return fmt.Errorf("stream: turn %s record %d: %w", turnID, r.id, ErrRecordExists)
		}
		last = r.id
	}
	s.turns[turnID] = append(s.turns[turnID], encoded...)
	return nil
}

// Events implements [LogStore].
func (s *MemoryLogStore) Events(_ context.Context, turnID string, after uint64) ([]Record, error) {
	s.mu.RLock()
	recs := s.turns[turnID]
	s.mu.RUnlock()
	out := []Record{}
	for _, r := range recs {
		if r.id <= after {
			continue
		}
		ev, err := Decode(r.name, r.data)
		if err != nil {
			return nil, err
		}
		out = append(out, Record{ID: r.id, Event: ev})
	}
	return out, nil
}
