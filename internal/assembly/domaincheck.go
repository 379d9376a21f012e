package assembly

import (
	"context"
	"fmt"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/definitions"
)

// DomainMismatch is a tool whose domain_type is not the one the embedded demo CCS answers its
// enricher with. The sub-agent rejects an envelope of another domain type as malformed, so the
// agent would answer every question with "unavailable".
type DomainMismatch struct {
	Agent *definitions.Definition
	Tool  definitions.Tool
	// Served is the domain type the demo CCS answers the tool's enricher with.
	Served string
	// Fixture says the answer comes from a fixture of the agents folder (whose domain_type is
	// the one to fix, or the tool's) rather than from one of the demo's own enrichers.
	Fixture bool
}

// DomainMismatches lists the tools of set whose domain_type the embedded demo CCS, with
// fixtures, does not answer with: its own enrichers first, then the fixtures.
func DomainMismatches(set *definitions.Set, fixtures map[string]ccsdemo.Fixture) []DomainMismatch {
	own := map[string]string{}
	for _, e := range ccsdemo.Enrichers() {
		own[e.ID] = e.DomainType
	}
	var out []DomainMismatch
	for _, d := range set.All() {
		for _, t := range d.Tools {
			if served, ok := own[t.Enricher]; ok {
				if served != t.DomainType {
					out = append(out, DomainMismatch{Agent: d, Tool: t, Served: served})
				}
				continue
			}
			if f, ok := fixtures[t.Enricher]; ok && f.DomainType != t.DomainType {
				out = append(out, DomainMismatch{Agent: d, Tool: t, Served: f.DomainType, Fixture: true})
			}
		}
	}
	return out
}

// warnDomainMismatches logs each tool the embedded demo CCS answers with another domain type,
// at start and at each reload: otherwise the first sign would be a turn that says the agent is
// unavailable.
func (a *App) warnDomainMismatches(ctx context.Context, set *definitions.Set, fixtures map[string]ccsdemo.Fixture) {
	for _, m := range DomainMismatches(set, fixtures) {
		from := "enricher " + m.Tool.Enricher
		if m.Fixture {
			from = "the fixture " + m.Tool.Enricher + ".json"
		}
		a.log.WarnContext(ctx, fmt.Sprintf("agent %s: tool %s expects domain_type %s, but the demo CCS answers %s with %s: every answer will be rejected (switchboard validate says where to fix it)",
			m.Agent.ID, m.Tool.Name, m.Tool.DomainType, from, m.Served),
			"agent", m.Agent.ID, "tool", m.Tool.Name, "enricher", m.Tool.Enricher)
	}
}
