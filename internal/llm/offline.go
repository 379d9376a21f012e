package llm

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/switchboard-ai/switchboard/internal/llm/offline"
)

// defaultOffline builds the offline model when no [WithOffline] option is given.
func defaultOffline() llms.Model { return offline.New() }
