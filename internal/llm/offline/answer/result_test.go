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
