package ccsdemo

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/principal"
)

func principalOf(p string) principal.Principal { return principal.Principal(p) }

func TestEveryEnricherServesBothUsers(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	required := map[string]map[string]any{
		"offers.search": {"query": "shoes"},
		"prices.lookup": {"product": "headphones"},
		"hotels.search": {"city": "Tokyo"},
	}
	if got := len(Enrichers()); got != 12 {
		t.Fatalf("len(Enrichers()) = %d, want 12", got)
	}
	for _, e := range Enrichers() {
		for _, user := range []string{Alice, Bob, "carol"} {
			t.Run(e.ID+"/"+user, func(t *testing.T) {
				resp, err := h.enrich(t, user, e.ID, required[e.ID])
				if err != nil {
					t.Fatalf("Enrich() error = %v", err)
				}
				want := ccs.RawResponse{Status: ccs.StatusOK, Principal: user, DomainType: e.DomainType, EnricherID: e.ID, Version: e.Version}
				got := ccs.RawResponse{Status: resp.Status, Principal: resp.Principal, DomainType: resp.DomainType, EnricherID: resp.EnricherID, Version: resp.Version}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("envelope mismatch (-want +got):\n%s", diff)
				}
				if resp.CacheMeta.Key == "" || resp.CacheMeta.Cacheable != (e.TTL != "") {
					t.Errorf("cache_meta = %+v, want a key and cacheable=%v", resp.CacheMeta, e.TTL != "")
				}
				if _, err := h.reg.Decode(resp); err != nil {
					t.Errorf("Decode() error = %v", err)
				}
			})
		}
	}
}

func TestFixtures(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	tests := []struct {
		name   string
		user   string
		id     string
		params map[string]any
		want   any
	}{
		{"alice running shoes ranked by match then discount", Alice, "offers.search", map[string]any{"query": "any deals on running shoes?"}, OfferList{
			Query: "any deals on running shoes?", MatchedQuery: true, Offers: []Offer{
				{ID: "off-a-101", Title: "Nike Pegasus 41 road running shoes", Merchant: "Nike", Price: 104, Currency: "USD", DiscountPercent: 20, Ends: "2026-03-08"},
				{ID: "off-a-102", Title: "Brooks Ghost 16 running shoes", Merchant: "Running Warehouse", Price: 118.95, Currency: "USD", DiscountPercent: 15, Ends: "2026-03-05"},
				{ID: "off-a-103", Title: "Adidas Samba OG sneakers", Merchant: "Foot Locker", Price: 80, Currency: "USD", DiscountPercent: 20, Ends: "2026-03-12"},
				{ID: "off-a-104", Title: "Garmin Forerunner 165 GPS running watch", Merchant: "REI", Price: 199.99, Currency: "USD", DiscountPercent: 20, Ends: "2026-03-06"},
				{ID: "off-a-105", Title: "Lululemon Swiftly Tech short-sleeve running shirt", Merchant: "Lululemon", Price: 58, Currency: "USD", DiscountPercent: 15, Ends: "2026-03-10"},
			}}},
		{"bob headphones", Bob, "offers.search", map[string]any{"query": "noise cancelling headphones"}, OfferList{
			Query: "noise cancelling headphones", MatchedQuery: true, Offers: []Offer{
				{ID: "off-b-201", Title: "Sony WH-1000XM5 noise cancelling headphones", Merchant: "Best Buy", Price: 298, Currency: "USD", DiscountPercent: 25, Ends: "2026-03-07"},
				{ID: "off-b-202", Title: "Apple AirPods Pro 2", Merchant: "Amazon", Price: 189, Currency: "USD", DiscountPercent: 24, Ends: "2026-03-04"},
			}}},
		{"unknown principal has no offers", "carol", "offers.search", map[string]any{"query": "shoes"}, OfferList{Query: "shoes", Offers: []Offer{}}},
		{"alice coupons by category", Alice, "coupons.list", map[string]any{"category": "Shoes"}, CouponList{Category: "Shoes", Coupons: []Coupon{
			{Code: "RUN15", Description: "15% off running shoes at Running Warehouse", Category: "shoes", Expires: "2026-03-11"},
		}}},
		{"bob coupons unknown category", Bob, "coupons.list", map[string]any{"category": "garden"}, CouponList{Category: "garden", Coupons: []Coupon{}}},
		{"prices cheapest first", Bob, "prices.lookup", map[string]any{"product": "Sony XM5 headphones"}, PriceQuote{
			Product: "Sony WH-1000XM5 headphones", Currency: "USD", Quotes: []StoreQuote{{"Best Buy", 298, true}, {"Amazon", 299.99, true}, {"Target", 329.99, false}},
		}},
		{"prices unknown product", Alice, "prices.lookup", map[string]any{"product": "lawn mower"}, PriceQuote{Product: "lawn mower", Currency: "USD", Quotes: []StoreQuote{}}},
		{"alice points", Alice, "points.balance", nil, PointsBalance{Points: 12450, Pending: 300, ExpiringSoon: 1200, ExpiresOn: "2026-03-23"}},
		{"bob points", Bob, "points.balance", nil, PointsBalance{Points: 48900, Pending: 2100}},
		{"unknown principal points", "carol", "points.balance", nil, PointsBalance{}},
		{"bob tier", Bob, "rewards.tier", nil, TierStatus{Name: "Gold", NextTier: "Platinum", PointsToNext: 11100}},
		{"rewards under a budget given as a string", Alice, "rewards.catalog", map[string]any{"max_points": "2500"}, RewardList{MaxPoints: 2500, Rewards: []Reward{
			{ID: "rw-coffee", Name: "Coffee shop gift card, $5", Cost: 500},
			{ID: "rw-ship", Name: "Free express shipping for a year", Cost: 2500},
			{ID: "rw-gc25", Name: "$25 store gift card", Cost: 2500},
		}}},
		{"alice orders", Alice, "orders.recent", nil, OrderList{Orders: []Order{
			{ID: "A-10231", Item: "Nike Pegasus 41, women's size 8", Status: "shipped", ETA: "2026-03-04"},
			{ID: "A-10198", Item: "Balega running socks, 3-pack", Status: "delivered"},
			{ID: "A-10177", Item: "Garmin HRM-Pro Plus heart-rate strap", Status: "processing", ETA: "2026-03-07"},
		}}},
		{"bob one return", Bob, "returns.status", map[string]any{"order_id": "b-55790"}, ReturnStatus{OrderID: "b-55790", Returns: []ReturnCase{
			{OrderID: "B-55790", Item: "Logitech MX Keys keyboard", Status: "in_transit", RefundAmount: 99.99, Currency: "USD", Updated: "2026-03-01"},
		}}},
		{"alice profile", Alice, "account.profile", nil, AccountProfile{
			Name: "Alice Johnson", Email: "a***@example.com", Phone: "+1 ***-***-**42",
			ShippingAddress: "221 Harbor Way, Apt 4, Seattle, WA 98101", MemberSince: "2019-04-12",
		}},
		{"bob trips", Bob, "trips.upcoming", nil, TripList{Trips: []Trip{
			{ID: "TR-B-31", Destination: "Tokyo, Japan", Start: "2026-03-14", End: "2026-03-21", Flight: "UA 837", Hotel: "Park Hyatt Tokyo"},
			{ID: "TR-B-35", Destination: "Chicago, IL", Start: "2026-04-11", End: "2026-04-13", Flight: "AA 2211", Hotel: "The Langham Chicago"},
		}}},
		{"bob one flight", Bob, "flights.status", map[string]any{"flight": "ua837"}, FlightStatus{Flights: []Flight{
			{Number: "UA 837", From: "SFO", To: "NRT", Departs: "2026-03-14T18:20:00Z", Status: "on_time", Gate: "G98"},
		}}},
		{"alice has no such flight", Alice, "flights.status", map[string]any{"flight": "UA 837"}, FlightStatus{Flights: []Flight{}}},
		{"bob hotels at member rate", Bob, "hotels.search", map[string]any{"city": "chicago"}, HotelList{City: "Chicago", Hotels: []Hotel{
			{Name: "The Langham Chicago", City: "Chicago", Neighborhood: "River North", PricePerNight: 445.5, Currency: "USD", Rating: 4.8},
			{Name: "Hotel Zachary", City: "Chicago", Neighborhood: "Wrigleyville", PricePerNight: 242.1, Currency: "USD", Rating: 4.5},
		}}},
		{"hotels city alias", "carol", "hotels.search", map[string]any{"city": "NYC"}, HotelList{City: "New York", Hotels: []Hotel{
			{Name: "The Hoxton, Williamsburg", City: "New York", Neighborhood: "Williamsburg", PricePerNight: 310, Currency: "USD", Rating: 4.5},
			{Name: "Arlo SoHo", City: "New York", Neighborhood: "SoHo", PricePerNight: 275, Currency: "USD", Rating: 4.3},
		}}},
		{"hotels unknown city", Bob, "hotels.search", map[string]any{"city": "Atlantis"}, HotelList{City: "Atlantis", Hotels: []Hotel{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h.mustDecode(t, tt.user, tt.id, tt.params)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("payload mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOffersFallBackToAll(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	got := h.mustDecode(t, Alice, "offers.search", map[string]any{"query": "garden hose"}).(OfferList)
	if got.MatchedQuery || len(got.Offers) != 6 {
		t.Fatalf("offers.search(garden hose) = matched %v, %d offers; want unmatched, all 6", got.MatchedQuery, len(got.Offers))
	}
	if got.Offers[0].ID != "off-a-106" {
		t.Errorf("first fallback offer = %s, want the best discount off-a-106", got.Offers[0].ID)
	}
}

func TestInvalidParams(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	tests := []struct {
		name   string
		id     string
		params map[string]any
	}{
		{"query missing", "offers.search", nil},
		{"query blank", "offers.search", map[string]any{"query": "  "}},
		{"query not a string", "offers.search", map[string]any{"query": 3}},
		{"product missing", "prices.lookup", map[string]any{}},
		{"city missing", "hotels.search", nil},
		{"max_points negative", "rewards.catalog", map[string]any{"max_points": -5}},
		{"max_points fractional", "rewards.catalog", map[string]any{"max_points": 2.5}},
		{"max_points word", "rewards.catalog", map[string]any{"max_points": "lots"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := h.enrich(t, Alice, tt.id, tt.params)
			var he *ccs.HTTPError
			if !errors.Is(err, ccs.ErrUnavailable) || !errors.As(err, &he) || he.Code != ccs.CodeInvalidParams {
				t.Errorf("Enrich() error = %v, want unavailable with code %s", err, ccs.CodeInvalidParams)
			}
		})
	}
}

func TestCacheMeta(t *testing.T) {
	h := newHarness(t, Options{}, ccs.ClientConfig{})
	params := map[string]any{"city": "Tokyo"}
	first, err := h.enrich(t, Bob, "hotels.search", params)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.enrich(t, Bob, "hotels.search", params)
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.enrich(t, Alice, "hotels.search", params)
	if err != nil {
		t.Fatal(err)
	}
	if first.CacheMeta.Cached || !second.CacheMeta.Cached || other.CacheMeta.Cached {
		t.Errorf("cached = %v, %v, %v; want false, true, false", first.CacheMeta.Cached, second.CacheMeta.Cached, other.CacheMeta.Cached)
	}
	if first.CacheMeta.Key != second.CacheMeta.Key || first.CacheMeta.Key == other.CacheMeta.Key {
		t.Errorf("keys = %q, %q, %q; want the same key per principal and params only", first.CacheMeta.Key, second.CacheMeta.Key, other.CacheMeta.Key)
	}
	if strings.Contains(first.CacheMeta.Key, Bob) {
		t.Errorf("cache key %q shows the principal", first.CacheMeta.Key)
	}
}
