package surfacetest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/ask"
	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/demo"
	"github.com/switchboard-ai/switchboard/internal/store"
	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/principal"
	"github.com/switchboard-ai/switchboard/stream"
)

// Service is a running turn service and what it was built from.
type Service struct {
	Service      *orchestrator.Service
	Hub          *stream.Hub
	Orchestrator *orchestrator.Orchestrator
	// Definition is the demo's orchestrator definition.
	Definition *definitions.Definition
	// Hang, while true, makes the rewards sub-agent wait for its turn's end.
	Hang atomic.Bool
}

// New starts the service; the test's cleanup cancels its turns and waits for them.
func New(t testing.TB, model llms.Model) *Service {
	t.Helper()
	defs, err := definitions.LoadFS(demo.Agents, ".")
	if err != nil {
		t.Fatal(err)
	}
	orcDef, _ := defs.Get("concierge")
	s := &Service{Definition: orcDef}
	answer := func(event, text string, hangs bool) ask.Agent {
		return ask.Func(func(ctx context.Context, q ask.Question) (ask.Answer, error) {
			q.Emit(event, nil)
			if hangs && s.Hang.Load() {
				<-ctx.Done()
				return ask.Answer{}, ctx.Err()
			}
			return ask.Answer{Text: text, Outcome: ask.OutcomeOK}, nil
		})
	}
	s.Orchestrator, err = orchestrator.New(orchestrator.Config{
		Definition: orcDef, SubAgents: defs.SubAgents(orcDef), Model: model,
		Runtimes: map[string]ask.Agent{
			"shop":    answer("searching_offers", "There are 2 offers on running shoes: 20% off Trail X.", false),
			"rewards": answer("looking_up_points_balance", "The member has 1,250 points.", true),
			"support": answer("looking_up_orders", "Order 1 shipped.", false),
			"travel":  answer("loading_trips", "A trip to Lisbon on Friday.", false),
		},
	}, orchestrator.WithTelemetry(ask.Telemetry{Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	s.Hub = stream.NewHub(st)
	s.Service, err = orchestrator.NewService(orchestrator.ServiceConfig{
		Orchestrator: s.Orchestrator, Store: st, Hub: s.Hub, Deadline: 20 * time.Second, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Service.CancelAll()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Service.Wait(ctx)
		s.Hub.Close()
	})
	return s
}

// Tokens authenticates bearer tokens by a fixed table: token -> principal.
type Tokens map[string]principal.Principal

// Verify implements principal.TokenVerifier.
func (ts Tokens) Verify(_ context.Context, tok string) (principal.Principal, error) {
	if p, ok := ts[tok]; ok {
		return p, nil
	}
	return "", errors.New("unknown token")
}

// Authenticate implements principal.Authenticator with the Authorization: Bearer header.
func (ts Tokens) Authenticate(r *http.Request) (principal.Principal, error) {
	return principal.BearerAuth(ts).Authenticate(r)
}

// AliceAndBob are the tokens the surfaces' tests sign in with.
var AliceAndBob = Tokens{"tok-alice": "alice", "tok-bob": "bob"}
