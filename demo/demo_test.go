package demo_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-ai/switchboard/definitions"
	"github.com/switchboard-ai/switchboard/demo"
)

// demoTool is one row of the demo verticals' table that the CCS fixtures, the evals and the
// offline model rely on.
type demoTool struct {
	Enricher, DomainType, StatusEvent string
	Params                            []string // property names
	Required                          []string
}

func TestEmbeddedDemoAgents(t *testing.T) {
	set, err := definitions.LoadFS(demo.Agents, ".")
	if err != nil {
		t.Fatalf("LoadFS(demo.Agents) error:\n%v", err)
	}
	want := map[string][]demoTool{
		"shop": {
			{"offers.search", "offer_list", "searching_offers", []string{"query"}, []string{"query"}},
			{"coupons.list", "coupon_list", "checking_coupons", []string{"category"}, nil},
			{"prices.lookup", "price_quote", "comparing_prices", []string{"product"}, []string{"product"}},
		},
		"rewards": {
			{"points.balance", "points_balance", "looking_up_points_balance", nil, nil},
			{"rewards.tier", "tier_status", "checking_tier", nil, nil},
			{"rewards.catalog", "reward_list", "browsing_rewards", []string{"max_points"}, nil},
		},
		"support": {
			{"orders.recent", "order_list", "looking_up_orders", nil, nil},
			{"returns.status", "return_status", "checking_return", []string{"order_id"}, nil},
			{"account.profile", "account_profile", "loading_account", nil, nil},
		},
		"travel": {
			{"trips.upcoming", "trip_list", "loading_trips", nil, nil},
			{"flights.status", "flight_status", "checking_flight", []string{"flight"}, nil},
			{"hotels.search", "hotel_list", "searching_hotels", []string{"city"}, []string{"city"}},
		},
	}
	for id, tools := range want {
		t.Run(id, func(t *testing.T) {
			def, ok := set.Get(id)
			if !ok {
				t.Fatalf("Get(%q) not found", id)
			}
			if def.Kind != definitions.KindSubAgent || def.Timeout != 8*time.Second {
				t.Errorf("%s: kind %s, timeout %s; want sub_agent, 8s", id, def.Kind, def.Timeout)
			}
			var got []demoTool
			for _, tool := range def.Tools {
				got = append(got, demoTool{tool.Enricher, tool.DomainType, tool.StatusEvent, properties(tool), required(tool)})
			}
			if diff := cmp.Diff(tools, got); diff != "" {
				t.Errorf("%s tools mismatch (-want +got):\n%s", id, diff)
			}
		})
	}
	concierge, ok := set.Get("concierge")
	if !ok || concierge.Kind != definitions.KindOrchestrator {
		t.Fatalf("Get(concierge) = %v, %v; want the orchestrator", concierge, ok)
	}
	if diff := cmp.Diff([]string{"shop", "rewards", "support", "travel"}, concierge.SubAgents); diff != "" {
		t.Errorf("concierge sub_agents mismatch (-want +got):\n%s", diff)
	}
}

func properties(tool definitions.Tool) []string {
	props, _ := tool.Parameters["properties"].(map[string]any)
	var names []string
	for name := range props {
		names = append(names, name) // every demo tool has at most one parameter
	}
	return names
}

func required(tool definitions.Tool) []string {
	list, _ := tool.Parameters["required"].([]any)
	var names []string
	for _, r := range list {
		name, _ := r.(string)
		names = append(names, name)
	}
	return names
}
