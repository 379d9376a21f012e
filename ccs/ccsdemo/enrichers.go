package ccsdemo

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Enricher describes one demo enricher.
type Enricher struct {
	ID         string
	DomainType string
	// Version is the semver of the payload schema the demo serves (always major 1).
	Version string
	// Source is the internal upstream the demo blames in partial and error envelopes.
	Source string
	// TTL is how long a response may be cached; empty means not cacheable.
	TTL string

	serve func(r request) (any, error)
}

// request is what an enricher needs to build its payload.
type request struct {
	principal string
	user      userData
	params    map[string]any
}

var enrichers = []Enricher{
	{ID: "offers.search", DomainType: "offer_list", Version: "1.3.0", Source: "offers-ranker", TTL: "", serve: searchOffers},
	{ID: "coupons.list", DomainType: "coupon_list", Version: "1.1.0", Source: "coupon-svc", TTL: "10m", serve: listCoupons},
	{ID: "prices.lookup", DomainType: "price_quote", Version: "1.0.2", Source: "pricing-svc", TTL: "5m", serve: lookupPrices},
	{ID: "points.balance", DomainType: "points_balance", Version: "1.2.0", Source: "loyalty-ledger", serve: pointsBalance},
	{ID: "rewards.tier", DomainType: "tier_status", Version: "1.0.0", Source: "loyalty-tiers", TTL: "1h", serve: rewardsTier},
	{ID: "rewards.catalog", DomainType: "reward_list", Version: "1.1.1", Source: "rewards-catalog", TTL: "1h", serve: rewardsCatalog},
	{ID: "orders.recent", DomainType: "order_list", Version: "1.4.0", Source: "order-mgmt", serve: recentOrders},
	{ID: "returns.status", DomainType: "return_status", Version: "1.0.1", Source: "returns-svc", serve: returnStatus},
	{ID: "account.profile", DomainType: "account_profile", Version: "1.2.0", Source: "identity-svc", TTL: "15m", serve: accountProfile},
	{ID: "trips.upcoming", DomainType: "trip_list", Version: "1.0.0", Source: "trips-db", TTL: "5m", serve: upcomingTrips},
	{ID: "flights.status", DomainType: "flight_status", Version: "1.1.0", Source: "flight-tracker", serve: flightStatus},
	{ID: "hotels.search", DomainType: "hotel_list", Version: "1.0.3", Source: "hotel-inventory", TTL: "15m", serve: searchHotels},
}

// Enrichers lists the demo enrichers in a stable order.
func Enrichers() []Enricher { return slices.Clone(enrichers) }

func findEnricher(id string) (Enricher, bool) {
	i := slices.IndexFunc(enrichers, func(e Enricher) bool { return e.ID == id })
	if i < 0 {
		return Enricher{}, false
	}
	return enrichers[i], true
}

// searchOffers ranks the user's offers by how many query terms they match; when nothing matches
// it returns all of them, best discount first, and says so.
func searchOffers(r request) (any, error) {
	query, err := stringParam(r.params, "query", true)
	if err != nil {
		return nil, err
	}
	terms := words(query)
	type scored struct {
		o Offer
		n int
	}
	var hits []scored
	for _, o := range r.user.offers {
		if n := score(terms, o.Title+" "+o.Merchant+" "+o.tags); n > 0 {
			hits = append(hits, scored{o.Offer, n})
		}
	}
	out := OfferList{Query: query, MatchedQuery: len(hits) > 0, Offers: []Offer{}}
	if len(hits) == 0 {
		for _, o := range r.user.offers {
			hits = append(hits, scored{o: o.Offer})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(b.o.DiscountPercent, a.o.DiscountPercent))
	})
	for _, h := range hits {
		out.Offers = append(out.Offers, h.o)
	}
	return out, nil
}

func listCoupons(r request) (any, error) {
	category, err := stringParam(r.params, "category", false)
	if err != nil {
		return nil, err
	}
	out := CouponList{Category: category, Coupons: []Coupon{}}
	for _, c := range r.user.coupons {
		if category == "" || strings.EqualFold(c.Category, category) {
			out.Coupons = append(out.Coupons, c)
		}
	}
	return out, nil
}

// lookupPrices quotes the catalog product that best matches the requested one, cheapest store
// first; an unknown product gets no quotes.
func lookupPrices(r request) (any, error) {
	name, err := stringParam(r.params, "product", true)
	if err != nil {
		return nil, err
	}
	terms := words(name)
	best, bestScore := -1, 0
	for i, p := range products {
		if n := score(terms, p.name); n > bestScore {
			best, bestScore = i, n
		}
	}
	out := PriceQuote{Product: name, Currency: "USD", Quotes: []StoreQuote{}}
	if best >= 0 {
		out.Product = products[best].name
		out.Quotes = slices.Clone(products[best].quotes)
		slices.SortStableFunc(out.Quotes, func(a, b StoreQuote) int { return cmp.Compare(a.Price, b.Price) })
	}
	return out, nil
}

func pointsBalance(r request) (any, error) { return r.user.points, nil }

func rewardsTier(r request) (any, error) { return r.user.tier, nil }

func rewardsCatalog(r request) (any, error) {
	limit, ok, err := intParam(r.params, "max_points")
	if err != nil {
		return nil, err
	}
	out := RewardList{Rewards: []Reward{}}
	if ok {
		out.MaxPoints = limit
	}
	for _, rw := range rewards {
		if !ok || rw.Cost <= limit {
			out.Rewards = append(out.Rewards, rw)
		}
	}
	return out, nil
}

func recentOrders(r request) (any, error) {
	return OrderList{Orders: append([]Order{}, r.user.orders...)}, nil
}

func returnStatus(r request) (any, error) {
	orderID, err := stringParam(r.params, "order_id", false)
	if err != nil {
		return nil, err
	}
	out := ReturnStatus{OrderID: orderID, Returns: []ReturnCase{}}
	for _, rc := range r.user.returns {
		if orderID == "" || normalize(rc.OrderID) == normalize(orderID) {
			out.Returns = append(out.Returns, rc)
		}
	}
	return out, nil
}

func accountProfile(r request) (any, error) { return r.user.profile, nil }

func upcomingTrips(r request) (any, error) {
	return TripList{Trips: append([]Trip{}, r.user.trips...)}, nil
}

// flightStatus reports the user's booked flights, or only the one asked for ("ua837" finds
// "UA 837").
func flightStatus(r request) (any, error) {
	number, err := stringParam(r.params, "flight", false)
	if err != nil {
		return nil, err
	}
	out := FlightStatus{Flights: []Flight{}}
	for _, f := range r.user.flights {
		if number == "" || normalize(f.Number) == normalize(number) {
			out.Flights = append(out.Flights, f)
		}
	}
	return out, nil
}

// searchHotels lists the catalog hotels in the city at the user's member rate, best rated
// first.
func searchHotels(r request) (any, error) {
	city, err := stringParam(r.params, "city", true)
	if err != nil {
		return nil, err
	}
	want := normalize(city)
	if alias, ok := cityAliases[want]; ok {
		want = alias
	}
	out := HotelList{City: city, Hotels: []Hotel{}}
	for _, h := range hotels {
		// Accept "Tokyo, Japan" for Tokyo: the city name only has to start the request.
		if n := normalize(h.City); n == want || (strings.HasPrefix(want, n) && len(n) >= 4) {
			h.PricePerNight = math.Round(h.PricePerNight*r.user.hotelRate*100) / 100
			out.City = h.City
			out.Hotels = append(out.Hotels, h)
		}
	}
	slices.SortStableFunc(out.Hotels, func(a, b Hotel) int { return cmp.Compare(b.Rating, a.Rating) })
	return out, nil
}
