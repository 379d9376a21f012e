package agui

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
	"github.com/switchboard-ai/switchboard/internal/surfacetest"
	"github.com/switchboard-ai/switchboard/principal"
)

// mountAlone builds the AG-UI handler over a running service, without web's middleware.
func mountAlone(t *testing.T) surfacetest.Mount {
	svc := surfacetest.New(t, offline.New())
	return func(auth principal.Authenticator, logger *slog.Logger) (http.Handler, error) {
		return New(Config{Service: svc.Service, Hub: svc.Hub, Logger: logger, Auth: auth})
	}
}

// Mounted alone, a request still continues its caller's trace: the turn it starts joins it.
func TestHandlerContinuesTheCallersTrace(t *testing.T) {
	surfacetest.CheckContinuesTrace(t, mountAlone(t), Route)
}

// Mounted alone, the handler still answers a panic with a plain 500 and logs what panicked.
func TestHandlerRecoversPanics(t *testing.T) {
	surfacetest.CheckRecoversPanics(t, mountAlone(t), Route)
}
