package answer

import (
	"testing"
	"time"
)

// TestNewResultDecodesOnce: a result made by NewResult is decoded once for all its copies, so
// the checks a turn runs on one result and its narration share one decoded value.
func TestNewResultDecodesOnce(t *testing.T) {
	const content = ` {"status":"ok","data":{"orders":[{"id":"A-1","status":"shipped"}]}} `
	res := NewResult("orders", content)
	copied := res
	first, err := res.value()
	if err != nil {
		t.Fatal(err)
	}
	again, err := copied.value()
	if err != nil {
		t.Fatal(err)
	}
	a, b := first.([]field), again.([]field)
	if &a[0] != &b[0] {
		t.Error("a copy of the result decoded its content again")
	}
	// A Result written as a literal has no memo and still reads its content.
	if _, data, ok := okData(Result{Name: "orders", Content: content}); !ok || data == nil {
		t.Errorf("okData of a literal Result = %v, %v", data, ok)
	}
	if _, err := NewResult("orders", `{"status":`).value(); err == nil {
		t.Error("a truncated result decoded without error")
	}
}

// TestSpelledAsOnce: the request read as the data spells it is worked out once per result and
// request text, and is the text spellAsData gives.
func TestSpelledAsOnce(t *testing.T) {
	res := NewResult("bookings", `{"status":"ok","data":{"bookings":[{"room":"Juniper","catering":"lunch"}]}}`)
	v, err := res.value()
	if err != nil {
		t.Fatal(err)
	}
	const asked = "who is the caterer for juniper"
	want := spellAsData(asked, v, nil)
	for range 2 {
		if got := res.spelledAs(asked, v, nil); got != want {
			t.Errorf("spelledAs(%q) = %q, want %q", asked, got, want)
		}
	}
	if got, ok := res.decoded.spelled[asked]; !ok || got != want {
		t.Errorf("kept spelling of %q = %q, %v; want %q", asked, got, ok, want)
	}
	if got := (Result{}).spelledAs(asked, v, nil); got != want {
		t.Errorf("spelledAs without a memo = %q, want %q", got, want)
	}
}

// TestRequestRendererKept: the renderer a result keeps answers only the request and list
// limit it was made for, and the days named from today are read on each use, since the checks
// before the reply run without today's date and the reply with it.
func TestRequestRendererKept(t *testing.T) {
	const results = `{"status":"ok","data":{"results":[
		{"date":"2026-11-22","opponent":"Vauxhall Motors FC","outcome":"won"},
		{"date":"2026-11-15","opponent":"Kennington Athletic","outcome":"lost"},
		{"date":"2026-11-08","opponent":"Brixton Rovers","outcome":"drew"}]}}`
	saturday := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	domain := func() map[string]bool { return map[string]bool{"match": true} }
	narrated := func(p Piece) string { return p.found + "\n" + p.text }
	res := NewResult("matches", results)
	HoldsNothingAsked(res, "did we win last sunday", 5, domain) // the check, with no today
	for _, tt := range []struct {
		asked     string
		listLimit int
		today     time.Time
	}{
		{"did we win last sunday", 5, saturday},
		{"did we win last sunday", 5, time.Time{}},
		{"how did our matches go", 5, saturday},
		{"how did our matches go", 1, saturday},
		{"how did we do against kennington", 1, saturday},
		{"did we win last sunday", 5, saturday},
	} {
		kept := res
		kept.Today = tt.today
		fresh := Result{Name: res.Name, Content: res.Content, Today: tt.today}
		got := narrated(Narrate(kept, tt.asked, tt.listLimit, domain))
		if want := narrated(Narrate(fresh, tt.asked, tt.listLimit, domain)); got != want {
			t.Errorf("Narrate(%q, limit %d, today %v) after other requests = %q, want %q", tt.asked, tt.listLimit, tt.today, got, want)
		}
	}
}
