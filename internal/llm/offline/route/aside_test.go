package route

import "testing"

func TestIsAside(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		// Closings, small talk, creative asks and questions about the world.
		{"thanks, that is all for now, have a nice day!", true},
		{"thank u so much, thats everything", true},
		{"ta very much", true},               // British thanks
		{"cheers, thats all i needed", true}, // what the user needed is had
		{"hows your day going", true},
		{"hey, how are you?", true},
		{"tell me a fun fact about electricity", true},
		{"can you write me a short poem about my cat", true},
		{"recommend a good book about the history of shopping malls", true},
		{"whats the history of the olympic games", true},
		{"why do flights get so bumpy over the ocean", true},
		{"how do airplanes stay in the air", true},
		{"is yoga actually good for back pain", true},
		{"are electric cars really better for the environment", true},
		{"did the lakers win last night", true},
		{"whats the weather going to be in lisbon this weekend", true},
		{"what does a claims adjuster do all day", true},
		{"how tall is the eiffel tower", true},
		{"who am i talking to?", true},
		{"tell me about the history of insurance", true},
		{"explain how airplanes stay up", true},
		{"translate good morning into spanish", true},
		{"who scored the winning goal in the final", true},
		// Requests, however they open.
		{"thanks! can you check my points", false},
		{"how do i return my order", false},
		{"how does the points program work", false},
		{"is my refund through yet", false},
		{"is there a coupon for running shoes", false},
		{"are the galaxy buds on sale anywhere", false},
		{"did the parcel arrive", false},
		{"did the game i ordered ship", false},
		{"why is my bill so high", false},
		{"and why is it higher than last month", false},
		{"why was flight UA 123 delayed", false},
		{"how are my points looking", false},
		{"hows my order doing, it was due monday", false},
		{"how do you win bonus points", false},
		{"tell me about the hotel i booked", false},
		{"tell me about the rewards program", false},
		{"remind me when my flight leaves", false},
		{"did i win the holiday raffle", false},
		// Found by review: service requests that open like small talk or world questions.
		{"are there any good deals on laptops", false},
		{"is there a good hotel near the airport", false},
		{"are the headphones worth buying", false},
		{"whats up with my order?", false},
		{"how is your return policy", false},
		{"who is this charge from?", false},
		{"whats the minimum credit score for financing", false},
		{"price beat guarantee details", false},
		{"did the package get lost", false},
		{"will it rain in lisbon tomorrow", true},
		{"how many points did lebron score last night", true},
		{"", false},
	} {
		if got := isAside(plainWords(tc.text), nil); got != tc.want {
			t.Errorf("isAside(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// A question that may be about the world or about a service is an aside only when none of its
// words belongs to an agent's trade.
func TestOpenQuestionsNeedNoTradeWords(t *testing.T) {
	trade := func(stem string) bool { return stem == "refund" || stem == "point" }
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"why is the refund taking so long", false},
		{"explain how the points program works", false},
		{"why do airplanes get bumpy over the ocean", true},
		{"whats the history of loyalty points", false},
		{"whats the history of the olympic games", true},
	} {
		if got := isAside(plainWords(tc.text), trade); got != tc.want {
			t.Errorf("isAside(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
