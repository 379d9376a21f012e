package store

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/switchboard-ai/switchboard/stream"
)

// BenchmarkAppendEvent measures the hot path of a streaming turn: one word-sized reply.delta
// per call, each committed on its own. PostgreSQL is measured too when its test DSN is set.
func BenchmarkAppendEvent(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchmarkAppendEvent(b, func(b *testing.B) stream.LogStore {
			s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatalf("OpenSQLite() = %v", err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		})
	})
	b.Run("postgres", func(b *testing.B) {
		benchmarkAppendEvent(b, func(b *testing.B) stream.LogStore { return openPostgres(b, postgresSchema(b)) })
	})
}

func benchmarkAppendEvent(b *testing.B, open func(b *testing.B) stream.LogStore) {
	delta := stream.ReplyDelta{Text: "word "}

	b.Run("one turn", func(b *testing.B) {
		s := open(b)
		var id uint64
		for b.Loop() {
			id++
			if err := s.AppendEvent(b.Context(), "turn", stream.Record{ID: id, Event: delta}); err != nil {
				b.Fatalf("AppendEvent() = %v", err)
			}
		}
	})
	// Concurrent turns, one per goroutine, all funnelled through the single writer.
	b.Run("parallel turns", func(b *testing.B) {
		s := open(b)
		var turns atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			turn := fmt.Sprintf("turn-%d", turns.Add(1))
			var id uint64
			for pb.Next() {
				id++
				if err := s.AppendEvent(b.Context(), turn, stream.Record{ID: id, Event: delta}); err != nil {
					b.Errorf("AppendEvent() = %v", err)
					return
				}
			}
		})
	})
}
