package store

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// BenchmarkAppendEvent measures the hot path of a streaming turn: word-sized reply.deltas,
// each committed on its own, or in batches as a TurnLog writes them. PostgreSQL is measured too when its test DSN is set.
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
	// What a TurnLog does with a burst: one transaction per 64 events. Reported per event.
	b.Run("batches of 64", func(b *testing.B) {
		s := open(b).(stream.BatchLogStore)
		batch := make([]stream.Record, 64)
		var id uint64
		for b.Loop() {
			for i := range batch {
				id++
				batch[i] = stream.Record{ID: id, Event: delta}
			}
			if err := s.AppendEvents(b.Context(), "turn", batch); err != nil {
				b.Fatalf("AppendEvents() = %v", err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(id), "ns/event")
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

// BenchmarkEpisodeHistory compares what a new turn of a 200-turn episode reads for its history:
// the whole episode, as Start once did, or only the LLM's window.
func BenchmarkEpisodeHistory(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatalf("OpenSQLite() = %v", err)
		}
		b.Cleanup(func() { s.Close() })
		benchmarkEpisodeHistory(b, s)
	})
	b.Run("postgres", func(b *testing.B) { benchmarkEpisodeHistory(b, openPostgres(b, postgresSchema(b))) })
}

func benchmarkEpisodeHistory(b *testing.B, s orchestrator.Store) {
	ctx := b.Context()
	for i := range 200 {
		rec := turnRec(alice, fmt.Sprintf("t%d", i), "e1", "")
		if _, _, err := s.CreateTurn(ctx, rec); err != nil {
			b.Fatalf("CreateTurn() = %v", err)
		}
		if err := s.FinishTurn(ctx, finished(rec)); err != nil {
			b.Fatalf("FinishTurn() = %v", err)
		}
	}
	b.Run("Episode", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Episode(ctx, alice, "e1"); err != nil {
				b.Fatalf("Episode() = %v", err)
			}
		}
	})
	b.Run("RecentTurns 6", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RecentTurns(ctx, alice, "e1", 6); err != nil {
				b.Fatalf("RecentTurns() = %v", err)
			}
		}
	})
}

// BenchmarkTurnWrites drives what a turn writes, from c turns at once: CreateTurn, a batch of
// streamed events mid-turn, then the end (the stored turn and the last batch, closed by
// turn.completed, in one transaction). It reports turns/s and the time from a turn's start to its end being
// committed (p50, p99): how far SQLite's single writer lets concurrent turns go.
func BenchmarkTurnWrites(b *testing.B) {
	for _, c := range []int{1, 8, 32, 128} {
		b.Run(fmt.Sprintf("sqlite/concurrency=%d", c), func(b *testing.B) {
			s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatalf("OpenSQLite() = %v", err)
			}
			b.Cleanup(func() { s.Close() })
			benchmarkTurnWrites(b, s, c, orderedID)
		})
	}
}

// BenchmarkTurnWritesIDOrder is BenchmarkTurnWrites at 32 turns at once with ids that sort in
// the order turns start (as the service makes them) against ids in random order: a turn's rows
// then go to a random page of each index, which a large table mostly has to read first. Run it
// with -benchtime 20000x or more, for a table larger than SQLite's page cache.
func BenchmarkTurnWritesIDOrder(b *testing.B) {
	for _, ids := range []struct {
		name string
		id   func(i int) string
	}{{"ordered", orderedID}, {"random", randomID}} {
		b.Run(ids.name, func(b *testing.B) {
			s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatalf("OpenSQLite() = %v", err)
			}
			b.Cleanup(func() { s.Close() })
			benchmarkTurnWrites(b, s, 32, ids.id)
		})
	}
}

func orderedID(i int) string { return fmt.Sprintf("turn-%012d", i) }

func randomID(int) string { return "turn-" + rand.Text() }

func benchmarkTurnWrites(b *testing.B, s *SQLite, c int, newID func(i int) string) {
	ctx := b.Context()
	var next atomic.Int64
	lat := make([]time.Duration, b.N)
	tx0 := s.group.transactions.Load()
	delta := stream.ReplyDelta{Text: "word "}
	cpu0 := processCPU(b)
	b.ResetTimer()
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				start := time.Now()
				id := newID(i)
				rec := turnRec(alice, id, "ep-"+id, "")
				if _, _, err := s.CreateTurn(ctx, rec); err != nil {
					b.Errorf("CreateTurn() = %v", err)
					return
				}
				mid := make([]stream.Record, 8)
				for j := range mid {
					mid[j] = stream.Record{ID: uint64(j + 1), Event: delta}
				}
				if err := s.AppendEvents(ctx, id, mid); err != nil {
					b.Errorf("AppendEvents() = %v", err)
					return
				}
				end := make([]stream.Record, 0, 10)
				for j := range 8 {
					end = append(end, stream.Record{ID: uint64(9 + j), Event: delta})
				}
				end = append(end, stream.Record{ID: 17, Event: stream.TurnCompleted{TurnID: id, Outcome: stream.OutcomeOK}})
				if err := finishTurn(ctx, s, finished(rec), end); err != nil {
					b.Errorf("finish = %v", err)
					return
				}
				lat[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	cpu := processCPU(b) - cpu0
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/turn")
	b.ReportMetric(float64(s.group.transactions.Load()-tx0)/float64(b.N), "tx/turn")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// finishTurn writes a turn's end as the service does: the stored turn and its log's last
// events in one transaction.
func finishTurn(ctx context.Context, s *SQLite, rec orchestrator.TurnRecord, end []stream.Record) error {
	return s.FinishTurnWithEvents(ctx, rec, end)
}

// processCPU is the CPU time (user and system) this process has used: on a shared machine
// it varies less than the wall time per operation.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTurnEnd measures what a streamed turn's end writes on SQLite, one turn at a time:
// the stored turn and its whole log, 18 records (the default two-intent message's count), in
// one transaction. The turn is created outside the timer.
func BenchmarkTurnEnd(b *testing.B) {
	ctx := b.Context()
	s, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatalf("OpenSQLite() = %v", err)
	}
	b.Cleanup(func() { s.Close() })
	const records = 18
	delta := stream.ReplyDelta{Text: "word "}
	var cpu time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		id := orderedID(i)
		rec := turnRec(alice, id, "ep-"+id, "")
		if _, _, err := s.CreateTurn(ctx, rec); err != nil {
			b.Fatalf("CreateTurn() = %v", err)
		}
		end := make([]stream.Record, 0, records)
		for j := range records - 1 {
			end = append(end, stream.Record{ID: uint64(j + 1), Event: delta})
		}
		end = append(end, stream.Record{ID: records, Event: stream.TurnCompleted{TurnID: id, Outcome: stream.OutcomeOK}})
		cpu0 := processCPU(b)
		b.StartTimer()
		if err := finishTurn(ctx, s, finished(rec), end); err != nil {
			b.Fatalf("finish = %v", err)
		}
		cpu += processCPU(b) - cpu0
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(i), "cpu-µs/turn")
}
