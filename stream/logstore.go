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

var _ LogStore = (*MemoryLogStore)(nil)

// NewMemoryLogStore returns an empty store.
func NewMemoryLogStore() *MemoryLogStore {
	return &MemoryLogStore{turns: map[string][]storedRecord{}}
}

// AppendEvent implements [LogStore]. Records are stored encoded, as a database would, so that
// callers can neither share nor mutate them afterwards.
func (s *MemoryLogStore) AppendEvent(_ context.Context, turnID string, rec Record) error {
	name, data, err := Marshal(rec.Event)
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
