package route

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

func TestNamesNewSubject(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"stadium", "Football club ticket office: match tickets, kick-off times, gates and seats."}},
		{Texts: []string{"shop", "Deals and prices on products.", "how much are airpods"}},
	})
	prev := []Intent{{Tool: 0}}
	tests := []struct {
		text string
		to   int // the agent the message reaches, or -1
		want bool
	}{
		{"whats the earliest you can do", -1, false}, // a superlative mid-sentence
		{"which gate is closest?", -1, false},        // a superlative after "is"
		{"send me 3 packs", -1, false},               // the request's verb and a measure
		{"ok book the earliest", -1, false},          // the verb after an acknowledgment
		{"can i pay monthly?", -1, false},
		{"the 21st is fine", -1, false},         // an ordinal is a date
		{"within 2 miles", -1, false},           // a preposition, a number and its unit
		{"about 30 euros each", -1, false},      // a number's unit
		{"and for my sister too", -1, false},    // whom it is for
		{"friday morning if needed", -1, false}, // a condition left unsaid
		// What the user would do after a modal, and a person left unnamed.
		{"and can i bring someone with me?", -1, false},
		{"could we invite anybody", -1, false},
		{"how much are neck pillows", -1, true},
		{"any deals on headphones", -1, true},
		// A word neither agent uses is the kind of thing of the one nearer in meaning.
		{"how much for the derby", 1, false},
		{"how much are neck pillows", 1, true},
		{"3 deals please", 1, true}, // a count of the reached agent's thing is no unit
	}
	for _, tt := range tests {
		if got := ix.namesNewSubject(lang.ScanWords(tt.text), prev, tt.to, false); got != tt.want {
			t.Errorf("namesNewSubject(%q, to %d) = %v, want %v", tt.text, tt.to, got, tt.want)
		}
	}
}

// The thing of someone named before ("her phone number") and the kind of a price ("a late
// fee") are sides of the earlier subject, whichever agent's texts use the words; a possessed
// thing that names an agent ("his support ticket") is a subject of its own.
func TestNamesNewSubjectPointedOwner(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"renovation", "Renovation portal: the project schedule, the project manager and invoices."}},
		{Texts: []string{"support", "Customer support: orders, returns, late deliveries, and updating the email or phone number on the account."}},
	})
	prev := []Intent{{Tool: 0}}
	tests := []struct {
		text string
		want bool
	}{
		{"whats her phone number", false},
		{"what is their email", false},
		{"did they charge us a late fee", false},
		{"can you send me her email", false},
		{"whats my phone number", true},                    // the user's own
		{"do delivery firms pay their drivers late", true}, // their own, not the earlier one's
		{"is my delivery late", true},
		{"what about his support ticket", true}, // names an agent
	}
	for _, tt := range tests {
		if got := ix.namesNewSubject(lang.ScanWords(tt.text), prev, 1, false); got != tt.want {
			t.Errorf("namesNewSubject(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// A word many agents use ("due") says which side of the earlier thing a follow-up asks about;
// a word of one agent's trade ("registration") names a thing of its own.
func TestNamesNewSubjectCommonWord(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"coworking", "Coworking space: desk and meeting room bookings, monthly membership invoices."}},
		{Texts: []string{"library", "Public library: loans, holds, and when a book is due back.", "when is my book due"}},
		{Texts: []string{"vehicle", "Your car: registration, insurance and service dates.", "when is my registration due"}},
		{Texts: []string{"pharmacy", "Pharmacy: prescriptions and refills, and when a refill is due."}},
	})
	prev := []Intent{{Tool: 0}}
	tests := []struct {
		text string
		to   int
		want bool
	}{
		{"when is the next one due", 2, false},
		{"when is the registration due", 2, true},
	}
	for _, tt := range tests {
		if got := ix.namesNewSubject(lang.ScanWords(tt.text), prev, tt.to, false); got != tt.want {
			t.Errorf("namesNewSubject(%q, to %d) = %v, want %v", tt.text, tt.to, got, tt.want)
		}
	}
	humans := []string{"why was my november invoice higher than normal", "when is the next one due"}
	if got := Decide(ix, humans, 0, Settings{MinScore: lang.Number("minScore"), Margin: lang.Number("margin")}); len(got) != 1 || got[0].Tool != 0 {
		t.Errorf("Decide(%q) = %v, want agent 0", humans, got)
	}
}

// A word a fifth of the agents use ("deadline") is common, but a word two agents of ten use
// ("showing") may still be one trade's.
func TestCommon(t *testing.T) {
	texts := [][]string{
		{"solar", "Solar panels: the install, the loan and its paydown."},
		{"rental", "Car rental: the pick-up, the return deadline and fees."},
		{"library", "Public library: loans, holds and the deadline to return a book."},
		{"hr", "Human resources: benefits, the enrollment deadline and time off."},
		{"cinema", "Cinema: what is showing tonight and seats."},
		{"tutoring", "Tutoring: lessons, and showing parents the progress notes."},
		{"shop", "Shopping deals on products."},
		{"gym", "Gym classes and membership."},
		{"dentist", "Dental appointments and cleanings."},
		{"vet", "Vet visits for your pets."},
	}
	var sources []Source
	for _, tx := range texts {
		sources = append(sources, Source{Texts: tx})
	}
	ix := NewIndex(sources)
	for _, tt := range []struct {
		word string
		want bool
	}{
		{"deadline", true},
		{"showing", false},
		{"paydown", false},
	} {
		if got := ix.common(tt.word); got != tt.want {
			t.Errorf("common(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}

// What the user would do ("can i still cancel"), where the user goes after it ("drive home"),
// how the thing wanted stands to the earlier one ("anything cheaper"), money the user paid ("my deposit"), a
// particle after the thing it is done to ("get my deposit back") and "till" name no subject of
// their own; a particle right after its verb ("get back") means what the phrasal verb means,
// and one after an article is a noun.
func TestNamesNewSubjectWaysAndMoney(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"clinic", "Foot clinic: appointments, nail surgery, dressings and what is paid."}},
		{Texts: []string{"shop", "Cheap deals on products for the home, kitchen and garden."}},
		{Texts: []string{"support", "Customer support: orders, returns and money back, cancel an order, the back office."}},
	})
	prev := []Intent{{Tool: 0}}
	tests := []struct {
		text string
		to   int
		want bool
	}{
		{"can i drive home after", 1, false},
		{"can i buy a home", 1, true},
		{"is there anything cheaper nearby", 1, false}, // how it stands to the earlier thing
		{"any cheap deals", 1, true},
		{"will i get my deposit back?", 2, false},
		{"will i get my money back", 2, false},
		{"how much will i get back", 2, true},
		{"whats at the back", 2, true},
		{"paid up till when", -1, false},
		{"can i still cancel", 2, false}, // an adverb between the user and the verb
		{"can i cancel", 2, false},
		{"can you cancel the order", 2, true},
	}
	for _, tt := range tests {
		if got := ix.namesNewSubject(lang.ScanWords(tt.text), prev, tt.to, false); got != tt.want {
			t.Errorf("namesNewSubject(%q, to %d) = %v, want %v", tt.text, tt.to, got, tt.want)
		}
	}
}

// A short follow-up whose subject is a pronoun for someone named before ("what does he need to
// do") or one of the earlier things ("the childcare one") asks on about the earlier subject,
// however much its sentence sounds like chat.
func TestDecideFollowUpPointsAtPerson(t *testing.T) {
	ix := NewIndex([]Source{
		{Texts: []string{"campervans", "Campervan hire: bookings, pick-up and return, the driver licence checks for each named driver, and the deposit.",
			"is my campervan booking confirmed", "has the licence check for my husband gone through"}},
		{Texts: []string{"taxprep", "Tax preparation: the documents the preparer still needs from you, the return's progress and meetings with your accountant.",
			"what paperwork do you still need from me", "when is my tax return going to be filed"}},
		{Texts: []string{"shop", "Shopping deals specialist: finds deals and coupons on products.", "any deals on headphones"}},
	})
	checkDecide(t, ix, []dialogue{
		{[]string{"has toms licence check gone thru for the campervan", "what does he need to do"}, []int{0}},
		{[]string{"what paperwork are you still waiting on from me", "why do you need the childcare one"}, []int{1}},
	})
}

func TestPointsAtPerson(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"what does he need to do", true},
		{"has she paid it", true},
		{"what should i do", false},
	} {
		if got := pointsAtPerson(lang.ScanWords(tt.text)); got != tt.want {
			t.Errorf("pointsAtPerson(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
