// Package agents holds the demo Agent Definitions (the concierge orchestrator and the shop,
// rewards, support and travel sub-agents) and embeds them, so the binary can run without an
// agents directory on disk. Load them with definitions.LoadFS(agents.FS, ".").
package agents

import "embed"

// FS holds every *.yaml file of this folder.
//
//go:embed *.yaml
var FS embed.FS
