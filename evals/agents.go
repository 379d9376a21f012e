package evals

import (
	"github.com/switchboard-ai/switchboard/definitions"
)

// AgentInfo is what the scorers need to know about a registered sub-agent.
type AgentInfo struct {
	ID          string
	Name        string
	Description string
	// Examples are its definition's example requests: with Description, the words it is
	// routed by, which the report compares with the words users said (see MissingWords).
	Examples []string
	// Tools are its tools' descriptions: with Name and Description, the words a reply may use
	// to name this agent's data when acknowledging that it is unavailable.
	Tools []string
	// Enrichers are the CCS enricher ids it reads: faults are injected there, and no event
	// may ever show them.
	Enrichers []string
	// ToolNames are its tools' names, in the order of Tools and Enrichers: where --suggest
	// points a vertical team when one tool's data should have answered a turn.
	ToolNames []string
}

// AgentInfos describes definitions (typically the orchestrator's sub-agents, from
// [definitions.Set.SubAgents]) for [Config].SubAgents.
func AgentInfos(defs []*definitions.Definition) []AgentInfo {
	out := make([]AgentInfo, 0, len(defs))
	for _, d := range defs {
		if d == nil {
			continue
		}
		a := AgentInfo{ID: d.ID, Name: d.Name, Description: d.Description, Examples: d.Examples}
		for _, t := range d.Tools {
			a.Tools = append(a.Tools, t.Description)
			a.Enrichers = append(a.Enrichers, t.Enricher)
			a.ToolNames = append(a.ToolNames, t.Name)
		}
		out = append(out, a)
	}
	return out
}

func agentIDs(agents []AgentInfo) []string {
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	return ids
}
