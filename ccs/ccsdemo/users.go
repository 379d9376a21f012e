package ccsdemo

import "time"

// The demo users. Dates are relative to the server's clock so the data never goes stale.
const (
	Alice = "alice" // a runner: sneakers, running gear, a marathon trip to Boston
	Bob   = "bob"   // electronics and travel: headphones, gadgets, trips to Tokyo and Chicago
)

// userData is everything the CCS knows about one user.
type userData struct {
	offers  []taggedOffer
	coupons []Coupon
	points  PointsBalance
	tier    TierStatus
	orders  []Order
	returns []ReturnCase
	profile AccountProfile
	trips   []Trip
	flights []Flight
	// hotelRate is the member-rate multiplier applied to hotel prices.
	hotelRate float64
}

// taggedOffer is an offer plus search terms that are not in its title.
type taggedOffer struct {
	Offer
	tags string
}

// calendar formats dates relative to a fixed "now".
type calendar struct{ now time.Time }

func (c calendar) day(offset int) string {
	return c.now.AddDate(0, 0, offset).Format(time.DateOnly)
}

func (c calendar) at(offset, hour, minute int) string {
	d := c.now.UTC().AddDate(0, 0, offset)
	return time.Date(d.Year(), d.Month(), d.Day(), hour, minute, 0, 0, time.UTC).Format(time.RFC3339)
}

// lookupUser returns the fixtures of principal p; ok is false for anyone but the demo users.
func lookupUser(p string, c calendar) (userData, bool) {
	switch p {
	case Alice:
		return alice(c), true
	case Bob:
		return bob(c), true
	default:
		return userData{}, false
	}
}

// newMember is what an unknown principal sees: a fresh account with nothing on it.
func newMember(p string, c calendar) userData {
	return userData{
		points:    PointsBalance{},
		tier:      TierStatus{Name: "Member", NextTier: "Silver", PointsToNext: 5000},
		profile:   AccountProfile{Name: p, Email: "", MemberSince: c.day(0)},
		hotelRate: 1,
	}
}

func alice(c calendar) userData {
	return userData{
		offers: []taggedOffer{
			{Offer{ID: "off-a-101", Title: "Nike Pegasus 41 road running shoes", Merchant: "Nike", Price: 104.00, Currency: "USD", DiscountPercent: 20, Ends: c.day(6)}, "sneaker trainer road run"},
			{Offer{ID: "off-a-102", Title: "Brooks Ghost 16 running shoes", Merchant: "Running Warehouse", Price: 118.95, Currency: "USD", DiscountPercent: 15, Ends: c.day(3)}, "sneaker trainer run"},
			{Offer{ID: "off-a-103", Title: "Adidas Samba OG sneakers", Merchant: "Foot Locker", Price: 80.00, Currency: "USD", DiscountPercent: 20, Ends: c.day(10)}, "shoe casual"},
			{Offer{ID: "off-a-104", Title: "Garmin Forerunner 165 GPS running watch", Merchant: "REI", Price: 199.99, Currency: "USD", DiscountPercent: 20, Ends: c.day(4)}, "smartwatch fitness tracker run"},
			{Offer{ID: "off-a-105", Title: "Lululemon Swiftly Tech short-sleeve running shirt", Merchant: "Lululemon", Price: 58.00, Currency: "USD", DiscountPercent: 15, Ends: c.day(8)}, "apparel top clothing"},
			{Offer{ID: "off-a-106", Title: "Hydro Flask 24 oz water bottle", Merchant: "Dick's Sporting Goods", Price: 29.95, Currency: "USD", DiscountPercent: 25, Ends: c.day(12)}, "hydration"},
		},
		coupons: []Coupon{
			{Code: "RUN15", Description: "15% off running shoes at Running Warehouse", Category: "shoes", Expires: c.day(9)},
			{Code: "SOCKS3", Description: "Buy two pairs of running socks, get a third free", Category: "apparel", Expires: c.day(20)},
			{Code: "FREESHIP50", Description: "Free shipping on orders over $50", Category: "general", Expires: c.day(30)},
		},
		points: PointsBalance{Points: 12450, Pending: 300, ExpiringSoon: 1200, ExpiresOn: c.day(21)},
		tier:   TierStatus{Name: "Silver", NextTier: "Gold", PointsToNext: 2550},
		orders: []Order{
			{ID: "A-10231", Item: "Nike Pegasus 41, women's size 8", Status: "shipped", ETA: c.day(2)},
			{ID: "A-10198", Item: "Balega running socks, 3-pack", Status: "delivered"},
			{ID: "A-10177", Item: "Garmin HRM-Pro Plus heart-rate strap", Status: "processing", ETA: c.day(5)},
		},
		returns: []ReturnCase{
			{OrderID: "A-10102", Item: "Adidas Ultraboost Light (wrong size)", Status: "refund_issued", RefundAmount: 190.00, Currency: "USD", Updated: c.day(-3)},
		},
		profile: AccountProfile{
			Name: "Alice Johnson", Email: "a***@example.com", Phone: "+1 ***-***-**42",
			ShippingAddress: "221 Harbor Way, Apt 4, Seattle, WA 98101", MemberSince: "2019-04-12",
		},
		trips: []Trip{
			{ID: "TR-A-7", Destination: "Boston, MA", Start: c.day(30), End: c.day(34), Flight: "DL 1432", Hotel: "The Lenox"},
		},
		flights: []Flight{
			{Number: "DL 1432", From: "SFO", To: "BOS", Departs: c.at(30, 15, 5), Status: "scheduled", Gate: "B12"},
		},
		hotelRate: 0.95,
	}
}

func bob(c calendar) userData {
	return userData{
		offers: []taggedOffer{
			{Offer{ID: "off-b-201", Title: "Sony WH-1000XM5 noise cancelling headphones", Merchant: "Best Buy", Price: 298.00, Currency: "USD", DiscountPercent: 25, Ends: c.day(5)}, "audio wireless bluetooth electronics"},
			{Offer{ID: "off-b-202", Title: "Apple AirPods Pro 2", Merchant: "Amazon", Price: 189.00, Currency: "USD", DiscountPercent: 24, Ends: c.day(2)}, "earbuds headphones audio wireless electronics"},
			{Offer{ID: "off-b-203", Title: "Anker 737 power bank, 24,000 mAh", Merchant: "Amazon", Price: 89.99, Currency: "USD", DiscountPercent: 31, Ends: c.day(7)}, "charger battery travel electronics"},
			{Offer{ID: "off-b-204", Title: "Samsonite Freeform carry-on spinner", Merchant: "Macy's", Price: 159.00, Currency: "USD", DiscountPercent: 40, Ends: c.day(9)}, "luggage suitcase travel bag"},
			{Offer{ID: "off-b-205", Title: "Samsung 55\" S90D OLED 4K TV", Merchant: "Best Buy", Price: 1199.99, Currency: "USD", DiscountPercent: 20, Ends: c.day(4)}, "television tv electronics"},
			{Offer{ID: "off-b-206", Title: "Kindle Paperwhite, 16 GB", Merchant: "Amazon", Price: 124.99, Currency: "USD", DiscountPercent: 25, Ends: c.day(11)}, "ereader book travel electronics"},
		},
		coupons: []Coupon{
			{Code: "TECH20", Description: "$20 off electronics orders over $150", Category: "electronics", Expires: c.day(14)},
			{Code: "TRAVEL10", Description: "10% off luggage and travel accessories", Category: "travel", Expires: c.day(25)},
			{Code: "FREESHIP50", Description: "Free shipping on orders over $50", Category: "general", Expires: c.day(30)},
		},
		points: PointsBalance{Points: 48900, Pending: 2100, ExpiringSoon: 0},
		tier:   TierStatus{Name: "Gold", NextTier: "Platinum", PointsToNext: 11100},
		orders: []Order{
			{ID: "B-55933", Item: "Samsonite packing cubes, set of 4", Status: "processing", ETA: c.day(4)},
			{ID: "B-55902", Item: "Anker 65W USB-C GaN charger", Status: "shipped", ETA: c.day(1)},
			{ID: "B-55810", Item: "Sony WH-1000XM5 headphones", Status: "delivered"},
		},
		returns: []ReturnCase{
			{OrderID: "B-55790", Item: "Logitech MX Keys keyboard", Status: "in_transit", RefundAmount: 99.99, Currency: "USD", Updated: c.day(-1)},
			{OrderID: "B-55655", Item: "Fitbit Charge 6", Status: "refund_issued", RefundAmount: 159.95, Currency: "USD", Updated: c.day(-12)},
		},
		profile: AccountProfile{
			Name: "Bob Martinez", Email: "b***@example.com", Phone: "+1 ***-***-**17",
			ShippingAddress: "1874 Larkin St, San Francisco, CA 94109", MemberSince: "2016-09-03",
		},
		trips: []Trip{
			{ID: "TR-B-31", Destination: "Tokyo, Japan", Start: c.day(12), End: c.day(19), Flight: "UA 837", Hotel: "Park Hyatt Tokyo"},
			{ID: "TR-B-35", Destination: "Chicago, IL", Start: c.day(40), End: c.day(42), Flight: "AA 2211", Hotel: "The Langham Chicago"},
		},
		flights: []Flight{
			{Number: "UA 837", From: "SFO", To: "NRT", Departs: c.at(12, 18, 20), Status: "on_time", Gate: "G98"},
			{Number: "AA 2211", From: "SFO", To: "ORD", Departs: c.at(40, 14, 45), Status: "scheduled"},
		},
		hotelRate: 0.9,
	}
}
