package answer

import "testing"

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
