package offline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tmc/langchaingo/llms"
)

// A statement of what happened, or of what the user is doing, sets the scene for the question
// after it, or explains the question before it, and asks no agent of its own; a complaint or
// a worry is a request of its own.
func TestRouteSceneSettingStatements(t *testing.T) {
	checkRoutes(t, conciergeAgents, []routeCase{
		{"two statements", []string{"my flight got cancelled last month and the airline refunded me, how many points do i have now?"}, []string{"ask_rewards"}},
		{"no article", []string{"booked a hotel in rome for the 12th, how many points do i have"}, []string{"ask_rewards"}},
		{"an aside on the way", []string{"just got back from rome, what a week. anyway how many points do i have now?"}, []string{"ask_rewards"}},
		{"what the user is doing", []string{"we're flying to lisbon on friday, any deals on a big suitcase?"}, []string{"ask_shop"}},
		{"what the user is doing, after", []string{"show me deals on backpacks, i'm off travelling around asia for two months"}, []string{"ask_shop"}},
		{"a second request that says when", []string{"any deals on backpacks, and find me a hotel in lisbon that weekend"}, []string{"ask_shop", "ask_travel"}},
		{"an explanation after", []string{"any deals on a big suitcase? we booked a trip to rome for june"}, []string{"ask_shop"}},
		{"a statement a question points back at", []string{"I booked a flight to Rome yesterday, can you check it's confirmed and find me deals on a suitcase"}, []string{"ask_travel", "ask_shop"}},
		{"a wish is no scene", []string{"I want to return the jacket and I need a hotel in lisbon for that weekend"}, []string{"ask_support", "ask_travel"}},
		{"news after news", []string{"my flight got cancelled, my refund came through"}, []string{"ask_travel", "ask_support"}},
		{"news after a request", []string{"show me tv deals, my flight left without me"}, []string{"ask_shop", "ask_travel"}},
		{"a complaint", []string{"my order never arrived, and how many points do i have?"}, []string{"ask_support", "ask_rewards"}},
		{"a complaint after", []string{"any deals on a big suitcase? also my refund never came through"}, []string{"ask_shop", "ask_support"}},
		{"a question first", []string{"is my flight delayed, and how many points do i have"}, []string{"ask_travel", "ask_rewards"}},
		{"a worry", []string{"I'm worried about my refund, and how many points do i have"}, []string{"ask_support", "ask_rewards"}},
		{"an interest", []string{"I'm interested in the gold tier, where is my order?"}, []string{"ask_rewards", "ask_support"}},
		{"how things stand", []string{"the hotel is booked and the flights are sorted, so what deals are there on sun cream?"}, []string{"ask_shop"}},
		{"a pronoun's state", []string{"she's mad about travelling. where's my order with her present?"}, []string{"ask_support"}},
		{"a wish after a scene", []string{"I used my points last month for a hotel voucher. Now I need a deal on headphones"}, []string{"ask_shop"}},
		{"a wish no agent answers leads on", []string{"our trip got cancelled, so I want to treat myself - what can I get with my points"}, []string{"ask_rewards"}},
		{"a bare noun phrase asks", []string{"deals on sneakers, my points balance and where my order is"}, []string{"ask_shop", "ask_rewards", "ask_support"}},
		{"a request after a scene", []string{"I got a hotel voucher with my points last week and loved it. Now: show me deals on headphones"}, []string{"ask_shop"}},
		{"a pivot on its own", []string{"Just got back from a trip to rome and the hotel alone cost a fortune. Anyway, how many points have I got?"}, []string{"ask_rewards"}},
		{"a request with news in it", []string{"check if my order shipped, find deals on coffee machines"}, []string{"ask_support", "ask_shop"}},
		{"news set aside", []string{"the hotel was noisy all night, ugh. separate thing though - where's my order?"}, []string{"ask_support"}},
		{"the actual problem", []string{"my flight was late yesterday, we got home in the end. my actual problem: my order never arrived"}, []string{"ask_support"}},
		{"a complaint still asks", []string{"my flight still has no gate, where's my order?"}, []string{"ask_travel", "ask_support"}},
		{"is there", []string{"I'm in gold tier now (yay) - is there a deal on running shoes"}, []string{"ask_shop"}},
		{"a wish for what was asked about", []string{"Where is my order? I need it before my flight on Friday"}, []string{"ask_support"}},
		{"back from", []string{"just back from a trip to japan with about 900 photos. any deals on a photo printer?"}, []string{"ask_shop"}},
		{"no doing", []string{"the refund landed in my account this morning, anything good in headphone deals"}, []string{"ask_shop"}},
		{"news after a question, its subject left out", []string{"how many points do i have? booked a hotel in rome last month"}, []string{"ask_rewards"}},
		{"news after a request, its subject left out", []string{"any deals on suitcases, booked a flight to rome for june"}, []string{"ask_shop"}},
		{"a question about the user's own thing", []string{"i booked a hotel in rome last week, where's my delivery"}, []string{"ask_support"}},
		{"news set aside before a question about the user's own thing", []string{"the hotel in rome was lovely, we got back yesterday. anyway where's my delivery?"}, []string{"ask_support"}},
		{"something kept", []string{"we keep our points for holidays, any deals on a big suitcase?"}, []string{"ask_shop"}},
		{"something that keeps happening", []string{"I keep getting logged out of my account, how many points do i have?"}, []string{"ask_support", "ask_rewards"}},
		{"a condition with a wish in it", []string{"if I need to cancel my trip, will I lose my points?"}, []string{"ask_rewards"}},
		{"an exclaimed request", []string{"refund my order now! how many points do i have?"}, []string{"ask_support", "ask_rewards"}},
		{"an exclaimed request with please", []string{"deals on laptops please! how many points do i have?"}, []string{"ask_shop", "ask_rewards"}},
		{"a past participle before a noun", []string{"how many points do i have? discounted headphones in the sale"}, []string{"ask_rewards", "ask_shop"}},
		{"what we're supposed to do is a plan", []string{"we're supposed to be going to lisbon next month, any deals on suitcases?"}, []string{"ask_shop"}},
		{"a state before a question about the user's own thing", []string{"the hotel in rome is lovely, where's my delivery"}, []string{"ask_support"}},
		{"what happened sets the scene of a question in passing", []string{"just got back from my trip to rome (loved it!!) so I'm treating myself to a camera, any offers?"}, []string{"ask_shop"}},
		{"what someone says", []string{"my sister says I'm due a trip to lisbon - how many points do i have?"}, []string{"ask_rewards"}},
		{"an exclamation", []string{"first trip abroad for the kids! any deals on a big suitcase?"}, []string{"ask_shop"}},
		{"an exclaimed complaint still asks", []string{"my order never arrived! how many points do i have?"}, []string{"ask_support", "ask_rewards"}},
		{"what the request costs", []string{"find me a hotel in lisbon for friday, how much would it cost"}, []string{"ask_travel"}},
		{"what was supposed to happen", []string{"my order was supposed to arrive on monday. also how many points do i have"}, []string{"ask_support", "ask_rewards"}},
		{"what the user remembers", []string{"any deals on headphones? I remember getting an email about my account and a sale"}, []string{"ask_shop"}},
		{"a noun phrase after a question", []string{"where's my order from last week, the headphones"}, []string{"ask_support"}},
		{"a change of subject keeps the complaint", []string{"I was double charged for my last order. Separate question: how many points do I have?"}, []string{"ask_support", "ask_rewards"}},
		{"a different question keeps the complaint", []string{"my refund never came through. different question - is flight UA123 on time?"}, []string{"ask_support", "ask_travel"}},
		{"setting aside reaches back to the request before it", []string{"my order never arrived. how many points do i have? anyway, find me a hotel in lisbon"}, []string{"ask_support", "ask_rewards", "ask_travel"}},
		{"something going on is news", []string{"my refund is taking ages, how many points do I have"}, []string{"ask_support", "ask_rewards"}},
		{"anything is no doing", []string{"anything on discount in running shoes, and how many points do i have"}, []string{"ask_shop", "ask_rewards"}},
		{"heading somewhere", []string{"Heading to the hotel in lisbon after work, meanwhile how many points do i have"}, []string{"ask_rewards"}},
		{"a bad time that is over", []string{"our flight landed 3 hours late and we missed the first day, gutted. how many points do I have?"}, []string{"ask_rewards"}},
		{"a bad time going on", []string{"my flight is late again, how many points do I have?"}, []string{"ask_travel", "ask_rewards"}},
		{"a question that points back asks about the news before it", []string{"my flight landed late last night and I missed my parcel delivery, can I rearrange it"}, []string{"ask_support"}},
		{"what happened, then a question about it", []string{"I booked a flight to Rome yesterday, can you check it's confirmed"}, []string{"ask_travel"}},
		{"a question in passing asks about the statement", []string{"my points balance is way lower than usual, what happened"}, []string{"ask_rewards"}},
	})
}

// An unmatched clause that points back goes with the request before it: the travel agent is
// asked to check the flight, the shop for the suitcase.
func TestRoutePointingClauseJoinsTheRequestBefore(t *testing.T) {
	m := New()
	msgs := routeMessages(orchestratorPrompt(3, conciergeAgents...), "I booked a flight to Rome yesterday, can you check it's confirmed and find me deals on a suitcase")
	resp, err := m.GenerateContent(t.Context(), msgs, llms.WithTools(askTools(conciergeAgents...)))
	if err != nil {
		t.Fatal(err)
	}
	want := []routed{
		{"ask_travel", "I booked a flight to Rome yesterday, can you check it's confirmed"},
		{"ask_shop", "find me deals on a suitcase"},
	}
	if diff := cmp.Diff(want, routedCalls(t, resp.Choices[0])); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
}
