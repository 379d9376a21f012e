package definitions_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
)

// head is a valid sub_agent on lines 1-3; cases append lines from 4 on.
const head = "kind: sub_agent\nid: shop\ndescription: Finds offers and coupons for the user.\n"

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // "line: message fragment", in order
	}{
		{name: "valid", yaml: head},
		{name: "unknown key with suggestion", yaml: head + "descripton: x\nfoo: 1\n",
			want: []string{`4: unknown key "descripton" (did you mean "description"?)`, `5: unknown key "foo"`}},
		{name: "duplicate key", yaml: head + "id: other\n",
			want: []string{`4: duplicate key "id" (first at line 2)`}},
		{name: "bad id", yaml: "kind: sub_agent\nid: Shop\ndescription: Finds offers and coupons for the user.\n",
			want: []string{`2: bad id "Shop"`}},
		{name: "one-letter id", yaml: "kind: sub_agent\nid: s\ndescription: Finds offers and coupons for the user.\n",
			want: []string{`2: bad id "s"`}},
		{name: "missing id", yaml: "kind: sub_agent\ndescription: Finds offers and coupons for the user.\n",
			want: []string{`1: id is required`}},
		{name: "short description", yaml: "kind: sub_agent\nid: shop\ndescription: Shops.\n",
			want: []string{`3: description is too short (6 characters, want at least 20)`}},
		{name: "blank description", yaml: "kind: sub_agent\nid: shop\ndescription: '   '\n",
			want: []string{`3: description is required`}},
		{name: "missing kind", yaml: "id: shop\ndescription: Finds offers and coupons for the user.\n",
			want: []string{`1: kind is required`}},
		{name: "unknown kind", yaml: "kind: agent\nid: shop\ndescription: Finds offers and coupons for the user.\n",
			want: []string{`1: unknown kind "agent"`}},
		{name: "string field given a number", yaml: head + "model: 4\n",
			want: []string{`4: model: want a string, got int`}},
		{name: "examples not a list", yaml: head + "examples: hello\n",
			want: []string{`4: examples: want a list of strings`}},
		{name: "empty example", yaml: head + "examples:\n  - hi\n  - ''\n",
			want: []string{`6: examples: entry 2 is empty`}},
		{name: "bad durations", yaml: head + "timeout: 8\n",
			want: []string{`4: timeout: bad duration "8"`}},
		{name: "non-positive timeout", yaml: head + "timeout: -1s\n",
			want: []string{`4: timeout must be positive, got -1s`}},
		{name: "enabled of the wrong type", yaml: head + "enabled: 3\n",
			want: []string{`4: enabled: want true, false or a feature flag name, got "3"`}},
		{name: "bad flag name", yaml: head + "enabled: 'new shop'\n",
			want: []string{`4: bad feature flag name "new shop"`}},
		{name: "tool without name or enricher", yaml: head + "tools:\n  - domain_type: offer_list\n    description: Search offers.\n",
			want: []string{`5: tool #1 has no name`, `5: tool #1 has no enricher`}},
		{name: "tool entry not a mapping", yaml: head + "tools:\n  - search\n",
			want: []string{`5: tools: want tool entries to be mappings`}},
		{name: "duplicate tool names", yaml: head + "tools:\n" +
			"  - {name: search, enricher: offers.search, domain_type: offer_list, description: Search offers.}\n" +
			"  - {name: search, enricher: coupons.list, domain_type: coupon_list, description: List coupons.}\n",
			want: []string{`6: duplicate tool name "search"`}},
		{name: "undeclared status event", yaml: head + "tools:\n" +
			"  - name: search\n    enricher: offers.search\n    domain_type: offer_list\n    description: Search offers.\n" +
			"    status_event: searching\n",
			want: []string{`9: tool search uses status event "searching", which status_events does not declare`}},
		{name: "bad policy and event id", yaml: head + "status_events:\n  searching: {text: Searching…, policy: shout}\n  Busy: {text: Busy…}\n",
			want: []string{`5: status event searching: unknown policy "shout"`, `6: bad status event id "Busy"`}},
		{name: "event without text", yaml: head + "status_events:\n  searching: {policy: forward}\n",
			want: []string{`5: status event searching has no text`}},
		{name: "placeholder with forward", yaml: head + "status_events:\n  searching: {text: 'Searching {query}…'}\n",
			want: []string{`5: status event searching: placeholders render only with policy transform`}},
		{name: "transform without placeholder", yaml: head + "status_events:\n  searching: {text: 'Searching…', policy: transform}\n",
			want: []string{`5: status event searching: policy transform needs a {placeholder}`}},
		{name: "malformed template", yaml: head + "status_events:\n  searching: {text: 'Searching {Query…', policy: transform}\n",
			want: []string{`5: status event searching: bad template: unclosed "{"`}},
		{name: "placeholder not a required parameter", yaml: head + "tools:\n" +
			"  - name: search\n    enricher: offers.search\n    domain_type: offer_list\n    description: Search offers.\n" +
			"    parameters: {type: object, properties: {query: {type: string}}}\n    status_event: searching\n" +
			"status_events:\n  searching:\n    text: 'Searching {query} in {city}…'\n    policy: transform\n",
			want: []string{
				`13: status event searching: placeholder {query} is not a required parameter of tool search`,
				`13: status event searching: placeholder {city} is not a required parameter of tool search`,
			}},
		{name: "parameters schema", yaml: head + "tools:\n" +
			"  - name: search\n    enricher: offers.search\n    domain_type: offer_list\n    description: Search offers.\n" +
			"    parameters:\n      type: array\n      properties: {query: string}\n      required: [query, city]\n      maximum: .inf\n",
			want: []string{
				`10: tool search: parameters type must be object`,
				`11: tool search: parameter "query" must be a schema mapping`,
				`12: tool search: required parameter city is not in properties`,
				`13: tools[0].parameters.maximum: ".inf" is not a JSON number`,
			}},
		{name: "parameters not a mapping", yaml: head + "tools:\n" +
			"  - {name: search, enricher: offers.search, domain_type: offer_list, description: Search offers., parameters: [query]}\n",
			want: []string{`5: tools[0].parameters: want a JSON Schema mapping`}},
		{name: "a2a_url with tools", yaml: head + "a2a_url: https://shop.example.com/a2a\ntools:\n" +
			"  - {name: search, enricher: offers.search, domain_type: offer_list, description: Search offers.}\n",
			want: []string{`4: a2a_url and tools exclude each other`}},
		{name: "bad a2a_url", yaml: head + "a2a_url: shop.example.com\n",
			want: []string{`4: bad a2a_url "shop.example.com"`}},
		{name: "orchestrator fields on a sub_agent", yaml: head + "sub_agents: [travel]\nfan_out_cap: 2\nrendering: {batch_window: 1s}\n",
			want: []string{`4: sub_agents is only for orchestrators`, `5: fan_out_cap is only for orchestrators`, `6: rendering is only for orchestrators`}},
		{name: "tools on an orchestrator", yaml: "kind: orchestrator\nid: hub\ndescription: Routes every question somewhere.\nsub_agents: [shop]\ntools:\n" +
			"  - {name: search, enricher: offers.search, domain_type: offer_list, description: Search offers.}\n",
			want: []string{`5: tools is only for sub_agents`}},
		{name: "orchestrator limits", yaml: "kind: orchestrator\nid: hub\ndescription: Routes every question somewhere.\n" +
			"sub_agents: [shop, shop]\nfan_out_cap: 0\nrendering:\n  batch_window: soon\n  min_interval: -1s\n  jitter: 1s\n",
			want: []string{
				`4: sub_agents lists "shop" twice`,
				`5: fan_out_cap must be at least 1, got 0`,
				`7: rendering.batch_window: bad duration "soon"`,
				`8: min_interval must not be negative`,
				`9: unknown key "jitter"`,
			}},
		{name: "orchestrator without sub_agents", yaml: "kind: orchestrator\nid: hub\ndescription: Routes every question somewhere.\nfan_out_cap: many\n",
			want: []string{`1: an orchestrator needs at least one sub_agents entry`, `4: fan_out_cap: want an integer, got "many"`}},
		{name: "anchors and aliases", yaml: head + "examples: &ex [a, b]\nprompt: *ex\n",
			want: []string{`4: YAML anchors and aliases are not supported`, `5: YAML anchors and aliases are not supported`}},
		{name: "syntax error", yaml: head + "examples: [a, b\n",
			want: []string{`4: invalid YAML: did not find expected ',' or ']'`}},
		{name: "bad indentation", yaml: "kind: sub_agent\n  id: shop\n",
			want: []string{`2: invalid YAML: mapping values are not allowed in this context`}},
		// yaml.v3 names no line for a problem on the first one; it is still the file's line 1.
		{name: "syntax error on the first line", yaml: "```yaml\nkind: sub_agent\n",
			want: []string{"1: invalid YAML: found character that cannot start any token"}},
		{name: "mapping error on the first line", yaml: "kind: sub_agent: shop\n",
			want: []string{`1: invalid YAML: mapping values are not allowed in this context`}},
		// A byte that is not text stops the reader, which keeps no line: none is claimed.
		{name: "invalid UTF-8", yaml: head + "examples: [\"caf\xe9\"]\n",
			want: []string{`0: invalid YAML: invalid trailing UTF-8 octet`}},
		{name: "unknown alias", yaml: head + "prompt: *nowhere\n",
			want: []string{`0: invalid YAML: unknown anchor 'nowhere' referenced`}},
		{name: "empty file", yaml: "# nothing here\n",
			want: []string{`0: file is empty`}},
		{name: "two documents", yaml: head + "---\nkind: sub_agent\n",
			want: []string{`4: more than one YAML document`}},
		{name: "not a mapping", yaml: "- kind: sub_agent\n",
			want: []string{`1: want a mapping of definition keys`}},
		// The misspelt key is the cause of the missing one: it comes first, and the missing
		// key says which line is probably it.
		{name: "misspelt required key", yaml: "kind: sub_agent\nid: shop\nmodel: default\ndescripton: Finds offers and coupons for the user.\n",
			want: []string{
				`4: unknown key "descripton" (did you mean "description"?)`,
				`1: description is required: it is what the orchestrator routes on; line 4 has the unknown key "descripton": rename it to "description"`,
			}},
		{name: "misspelt tool key", yaml: head + "tools:\n  - name: search\n    enricer: offers.search\n    domain_type: offer_list\n    description: Search offers.\n",
			want: []string{
				`6: unknown key "enricer" (did you mean "enricher"?)`,
				`5: tool search has no enricher; line 6 has the unknown key "enricer": rename it to "enricher"`,
			}},
		// An unknown key no suggestion ties to a missing one still comes first: it may be it.
		{name: "unknown key and a missing one", yaml: "kind: sub_agent\nid: shop\nabout: Finds offers and coupons for the user.\n",
			want: []string{`3: unknown key "about"`, `1: description is required: it is what the orchestrator routes on`}},
		{name: "every problem at once", yaml: "kind: robot\nid: X\ndescription: tiny\ntimeout: forever\ncolour: blue\n",
			want: []string{`1: unknown kind "robot"`, `2: bad id "X"`, `3: description is too short`, `4: timeout: bad duration`, `5: unknown key "colour"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := definitions.Parse("agent.yaml", []byte(tt.yaml))
			var got []string
			for _, p := range problems {
				if p.Source.File != "agent.yaml" {
					t.Errorf("problem %q names file %q, want agent.yaml", p, p.Source.File)
				}
				got = append(got, fmt.Sprintf("%d: %s", p.Source.Line, p.Message))
			}
			if !matchPrefixes(tt.want, got) {
				t.Errorf("Parse() problems =\n%s\nwant (as prefixes)\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// matchPrefixes reports whether got has one entry per want, in order, each starting with it.
func matchPrefixes(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want *definitions.Definition
	}{
		{
			name: "sub_agent",
			yaml: head + "tools:\n  - {name: count, enricher: widgets.count, domain_type: widget_count, description: Count widgets.}\n" +
				"status_events:\n  counting: {text: Counting…}\n",
			want: &definitions.Definition{
				Kind: definitions.KindSubAgent, ID: "shop", Name: "shop",
				Description: "Finds offers and coupons for the user.",
				Model:       "default", Timeout: 8 * time.Second, Enabled: definitions.Enabled{Value: true},
				Tools: []definitions.Tool{{
					Name: "count", Enricher: "widgets.count", DomainType: "widget_count", Description: "Count widgets.",
					Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
				}},
				StatusEvents: map[string]definitions.StatusEvent{"counting": {Text: "Counting…", Policy: definitions.PolicyForward}},
				Source:       definitions.Source{File: "agent.yaml", Line: 1},
			},
		},
		{
			name: "orchestrator",
			yaml: "kind: orchestrator\nid: hub\nname: Hub\ndescription: Routes every question somewhere.\nsub_agents: [shop]\nenabled: hub_v2\n",
			want: &definitions.Definition{
				Kind: definitions.KindOrchestrator, ID: "hub", Name: "Hub",
				Description: "Routes every question somewhere.",
				Model:       "default", Timeout: 8 * time.Second, Enabled: definitions.Enabled{Flag: "hub_v2"},
				SubAgents: []string{"shop"}, FanOutCap: 3,
				Rendering: definitions.Rendering{BatchWindow: 250 * time.Millisecond, MinInterval: 300 * time.Millisecond},
				Source:    definitions.Source{File: "agent.yaml", Line: 1},
			},
		},
		{
			name: "explicit values kept",
			yaml: head + "model: fast\ntimeout: 3s\nenabled: false\nexamples: []\n" +
				"tools:\n  - name: search\n    enricher: offers.search\n    domain_type: offer_list\n    description: Search offers.\n" +
				"    parameters: {type: object, properties: {query: {type: string, maxLength: 80}, page: {type: number, default: 1.5}}, required: [query]}\n" +
				"    status_event: searching\nstatus_events:\n  searching: {text: 'Searching {query}…', policy: transform}\n",
			want: &definitions.Definition{
				Kind: definitions.KindSubAgent, ID: "shop", Name: "shop",
				Description: "Finds offers and coupons for the user.", Examples: []string{},
				Model: "fast", Timeout: 3 * time.Second, Enabled: definitions.Enabled{Value: false},
				Tools: []definitions.Tool{{
					Name: "search", Enricher: "offers.search", DomainType: "offer_list", Description: "Search offers.",
					Parameters: map[string]any{
						"type": "object",
						"properties": map[string]any{
							"query": map[string]any{"type": "string", "maxLength": 80},
							"page":  map[string]any{"type": "number", "default": 1.5},
						},
						"required": []any{"query"},
					},
					StatusEvent: "searching",
				}},
				StatusEvents: map[string]definitions.StatusEvent{"searching": {Text: "Searching {query}…", Policy: definitions.PolicyTransform}},
				Source:       definitions.Source{File: "agent.yaml", Line: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := definitions.Parse("agent.yaml", []byte(tt.yaml))
			if len(problems) > 0 {
				t.Fatalf("Parse() problems = %v, want none", problems)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
