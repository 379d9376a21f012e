package assembly

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-ai/switchboard/internal/config"
	"github.com/switchboard-ai/switchboard/principal"
)

// Input is what [New] wires the service from. The root package fills it from its Options;
// the fields mean what they mean there.
type Input struct {
	// Agents is the folder of Agent Definition YAML files; with AgentsFS, a folder inside it.
	Agents   string
	AgentsFS fs.FS
	// Config is the validated configuration, secrets resolved.
	Config *config.Config
	// Models replace the configured models by alias.
	Models         map[string]llms.Model
	CCSTransport   http.RoundTripper
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Metrics is served at GET /metrics when set.
	Metrics http.Handler
	Logger  *slog.Logger
	// Version is shown on the A2A agent card.
	Version string
	// Authenticate, when set, tells whom each request speaks for instead of the configured
	// bearer tokens, on every surface.
	Authenticate principal.Authenticator
	// A2ACredential returns the bearer token sent to remote sub-agents for a turn's user.
	A2ACredential func(ctx context.Context, user principal.Principal) (string, error)
	// Clock tells sub-agents today's date; nil is time.Now.
	Clock func() time.Time
}
