package app

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

// BenchmarkTurn measures a whole two-intent turn in process: offline model, embedded demo CCS,
// the store, the turn log and its guard; everything a turn costs except the network. The
// postgres case runs only when SWITCHBOARD_TEST_POSTGRES_DSN names a scratch database (it
// leaves its turns there).
func BenchmarkTurn(b *testing.B) {
	for _, driver := range []string{"memory", "sqlite", "postgres"} {
		b.Run(driver, func(b *testing.B) {
			cfg := config.Default()
			cfg.Store.Driver = driver
			cfg.Store.DSN = b.TempDir() + "/bench.db"
			if driver == "postgres" {
				if cfg.Store.DSN = os.Getenv("SWITCHBOARD_TEST_POSTGRES_DSN"); cfg.Store.DSN == "" {
					b.Skip("SWITCHBOARD_TEST_POSTGRES_DSN not set")
				}
			}
			cfg.Auth.HS256Secret = "bench-secret-bench-secret-bench-secret"
			cfg.Limits = config.Limits{} // one principal runs b.N turns as fast as it can
			a, err := New(b.Context(), Options{Config: cfg, AgentsDir: "../../agents", Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			b.ReportAllocs()
			for b.Loop() {
				rec, _, err := a.Service.Start(b.Context(), orchestrator.StartRequest{
					Principal: "alice", Message: "any deals on running shoes? and how many points do I have?",
				})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
				for r, err := range a.Hub.Follow(ctx, rec.ID, 0) {
					if err != nil {
						b.Fatal(err)
					}
					if tc, ok := r.Event.(stream.TurnCompleted); ok && tc.Outcome != stream.OutcomeOK {
						b.Fatalf("outcome %s", tc.Outcome)
					}
				}
				cancel()
			}
			_ = a.Service.Wait(b.Context())
		})
	}
}
