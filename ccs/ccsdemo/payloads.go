package ccsdemo

// Payload types of the demo enrichers. Money is a float with a currency code: good enough for a
// demo whose readers are LLMs and people, not ledgers. Dates are "YYYY-MM-DD", times RFC 3339.

// OfferList is the payload of offers.search (domain type offer_list).
type OfferList struct {
	Query string `json:"query"`
	// MatchedQuery is false when nothing matched the query and the list holds the user's
	// other current offers instead.
	MatchedQuery bool    `json:"matched_query"`
	Offers       []Offer `json:"offers"`
}

// Offer is one personalised retail offer.
type Offer struct {
	ID              string  `json:"id"`
	Title           string  `json:"title"`
	Merchant        string  `json:"merchant"`
	Price           float64 `json:"price"`
	Currency        string  `json:"currency"`
	DiscountPercent int     `json:"discount_percent"`
	Ends            string  `json:"ends"`
}

// CouponList is the payload of coupons.list (domain type coupon_list).
type CouponList struct {
	Category string   `json:"category,omitempty"`
	Coupons  []Coupon `json:"coupons"`
}

// Coupon is one coupon code the user can redeem.
type Coupon struct {
	Code        string `json:"code"`
	Description string `json:"description"`
	Category    string `json:"category"`
	Expires     string `json:"expires"`
}

// PriceQuote is the payload of prices.lookup (domain type price_quote).
type PriceQuote struct {
	Product  string       `json:"product"`
	Currency string       `json:"currency"`
	Quotes   []StoreQuote `json:"quotes"`
}

// StoreQuote is one store's price for the product.
type StoreQuote struct {
	Store   string  `json:"store"`
	Price   float64 `json:"price"`
	InStock bool    `json:"in_stock"`
}

// PointsBalance is the payload of points.balance (domain type points_balance).
type PointsBalance struct {
	Points       int    `json:"points"`
	Pending      int    `json:"pending"`
	ExpiringSoon int    `json:"expiring_soon"`
	ExpiresOn    string `json:"expires_on,omitempty"`
}

// TierStatus is the payload of rewards.tier (domain type tier_status).
type TierStatus struct {
	Name         string `json:"name"`
	NextTier     string `json:"next_tier,omitempty"`
	PointsToNext int    `json:"points_to_next"`
}

// RewardList is the payload of rewards.catalog (domain type reward_list).
type RewardList struct {
	MaxPoints int      `json:"max_points,omitempty"`
	Rewards   []Reward `json:"rewards"`
}

// Reward is one item redeemable for points.
type Reward struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Cost int    `json:"cost"`
}

// OrderList is the payload of orders.recent (domain type order_list).
type OrderList struct {
	Orders []Order `json:"orders"`
}

// Order is one recent order.
type Order struct {
	ID     string `json:"id"`
	Item   string `json:"item"`
	Status string `json:"status"`
	ETA    string `json:"eta,omitempty"`
}

// ReturnStatus is the payload of returns.status (domain type return_status).
type ReturnStatus struct {
	OrderID string       `json:"order_id,omitempty"`
	Returns []ReturnCase `json:"returns"`
}

// ReturnCase is one open or recent return.
type ReturnCase struct {
	OrderID      string  `json:"order_id"`
	Item         string  `json:"item"`
	Status       string  `json:"status"`
	RefundAmount float64 `json:"refund_amount"`
	Currency     string  `json:"currency"`
	Updated      string  `json:"updated"`
}

// AccountProfile is the payload of account.profile (domain type account_profile).
type AccountProfile struct {
	Name string `json:"name"`
	// Email is masked (j***@example.com): the full address never leaves the CCS.
	Email string `json:"email"`
	// Phone is masked too (last two digits).
	Phone           string `json:"phone,omitempty"`
	ShippingAddress string `json:"shipping_address,omitempty"`
	MemberSince     string `json:"member_since"`
}

// TripList is the payload of trips.upcoming (domain type trip_list).
type TripList struct {
	Trips []Trip `json:"trips"`
}

// Trip is one upcoming booked trip.
type Trip struct {
	ID          string `json:"id"`
	Destination string `json:"destination"`
	Start       string `json:"start"`
	End         string `json:"end"`
	Flight      string `json:"flight,omitempty"`
	Hotel       string `json:"hotel,omitempty"`
}

// FlightStatus is the payload of flights.status (domain type flight_status).
type FlightStatus struct {
	Flights []Flight `json:"flights"`
}

// Flight is the live status of one booked flight.
type Flight struct {
	Number  string `json:"number"`
	From    string `json:"from"`
	To      string `json:"to"`
	Departs string `json:"departs"`
	Status  string `json:"status"`
	Gate    string `json:"gate,omitempty"`
}

// HotelList is the payload of hotels.search (domain type hotel_list).
type HotelList struct {
	City   string  `json:"city"`
	Hotels []Hotel `json:"hotels"`
}

// Hotel is one available hotel with the user's member rate.
type Hotel struct {
	Name          string  `json:"name"`
	City          string  `json:"city"`
	Neighborhood  string  `json:"neighborhood"`
	PricePerNight float64 `json:"price_per_night"`
	Currency      string  `json:"currency"`
	Rating        float64 `json:"rating"`
}
