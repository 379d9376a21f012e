package ccsdemo

// Catalog data that is the same for every user: store prices, hotels, rewards.

type product struct {
	name   string
	quotes []StoreQuote
}

var products = []product{
	{"Nike Pegasus 41", []StoreQuote{{"Nike", 130.00, true}, {"Running Warehouse", 119.95, true}, {"Zappos", 124.99, true}}},
	{"Brooks Ghost 16", []StoreQuote{{"Brooks Running", 139.95, true}, {"Running Warehouse", 118.95, true}, {"REI", 139.95, false}}},
	{"Garmin Forerunner 165 watch", []StoreQuote{{"Garmin", 249.99, true}, {"REI", 199.99, true}, {"Amazon", 219.00, true}}},
	{"Sony WH-1000XM5 headphones", []StoreQuote{{"Best Buy", 298.00, true}, {"Amazon", 299.99, true}, {"Target", 329.99, false}}},
	{"Apple AirPods Pro 2 earbuds", []StoreQuote{{"Amazon", 189.00, true}, {"Apple", 249.00, true}, {"Walmart", 199.00, true}}},
	{"Kindle Paperwhite ereader", []StoreQuote{{"Amazon", 124.99, true}, {"Best Buy", 149.99, true}}},
}

var hotels = []Hotel{
	{Name: "Park Hyatt Tokyo", City: "Tokyo", Neighborhood: "Shinjuku", PricePerNight: 820, Currency: "USD", Rating: 4.7},
	{Name: "Hotel Gracery Shinjuku", City: "Tokyo", Neighborhood: "Kabukicho", PricePerNight: 165, Currency: "USD", Rating: 4.2},
	{Name: "Mitsui Garden Hotel Ginza", City: "Tokyo", Neighborhood: "Ginza", PricePerNight: 210, Currency: "USD", Rating: 4.4},
	{Name: "The Langham Chicago", City: "Chicago", Neighborhood: "River North", PricePerNight: 495, Currency: "USD", Rating: 4.8},
	{Name: "Hotel Zachary", City: "Chicago", Neighborhood: "Wrigleyville", PricePerNight: 269, Currency: "USD", Rating: 4.5},
	{Name: "The Lenox", City: "Boston", Neighborhood: "Back Bay", PricePerNight: 389, Currency: "USD", Rating: 4.6},
	{Name: "citizenM Boston North Station", City: "Boston", Neighborhood: "West End", PricePerNight: 229, Currency: "USD", Rating: 4.4},
	{Name: "The Hoxton, Williamsburg", City: "New York", Neighborhood: "Williamsburg", PricePerNight: 310, Currency: "USD", Rating: 4.5},
	{Name: "Arlo SoHo", City: "New York", Neighborhood: "SoHo", PricePerNight: 275, Currency: "USD", Rating: 4.3},
	{Name: "Hôtel des Grands Boulevards", City: "Paris", Neighborhood: "2nd arrondissement", PricePerNight: 340, Currency: "USD", Rating: 4.6},
	{Name: "Hotel Emblem", City: "San Francisco", Neighborhood: "Union Square", PricePerNight: 219, Currency: "USD", Rating: 4.3},
}

// cityAliases maps common short forms to the catalog's city names (normalized).
var cityAliases = map[string]string{
	"nyc": "newyork", "ny": "newyork", "sf": "sanfrancisco", "chi": "chicago", "tyo": "tokyo",
}

var rewards = []Reward{
	{ID: "rw-coffee", Name: "Coffee shop gift card, $5", Cost: 500},
	{ID: "rw-ship", Name: "Free express shipping for a year", Cost: 2500},
	{ID: "rw-gc25", Name: "$25 store gift card", Cost: 2500},
	{ID: "rw-socks", Name: "Performance running socks, 3-pack", Cost: 3000},
	{ID: "rw-earbuds", Name: "Wireless sport earbuds", Cost: 9000},
	{ID: "rw-lounge", Name: "Airport lounge day pass", Cost: 12000},
	{ID: "rw-hotel", Name: "One hotel night at a partner hotel", Cost: 25000},
}
