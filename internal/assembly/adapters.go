package assembly

import (
	"os"

	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/orchestrator"
	"github.com/switchboard-ai/switchboard/stream"
)

type llmModel = llms.Model

// appStore is what the service needs from a store.
type appStore interface {
	orchestrator.Store
	stream.LogStore
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
