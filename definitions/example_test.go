package definitions_test

import (
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/switchboard-ai/switchboard/definitions"
)

func ExampleLoadFS() {
	fsys := fstest.MapFS{
		"agents/hub.yaml": {Data: []byte(`kind: orchestrator
id: hub
description: Routes shopping and travel questions.
sub_agents: [shop, travel]
`)},
		"agents/shop.yaml": {Data: []byte(`kind: sub_agent
id: shop
description: Finds deals, coupons and prices.
tool: []
`)},
	}
	_, err := definitions.LoadFS(fsys, "agents")
	var le *definitions.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// agents/hub.yaml:4: unknown sub-agent "travel" in sub_agents (known ids: shop)
	// agents/shop.yaml:4: unknown key "tool" (did you mean "tools"?)
}
