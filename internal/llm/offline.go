package llm

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
)

// defaultOffline builds the offline model when no [WithOffline] option is given.
func defaultOffline() llms.Model { return offline.New() }

// Preparer is a model that can do, when a server binds its agents, work that would otherwise
// fall on a user's turn: the offline model reads its agents' texts then.
type Preparer interface {
	Prepare(system string, tools []llms.Tool)
}
