package style

import (
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/encoder"
)

func TestWeightsFitTheEncoder(t *testing.T) {
	w, err := weights()
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != encoder.Dims+1 {
		t.Fatalf("weights.bin holds %d weights, want %d (one per dimension and a bias)", len(w), encoder.Dims+1)
	}
}

// Messages written for this test, in neither training file nor any evaluation set.
func TestAside(t *testing.T) {
	enc, err := encoder.Load()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text  string
		aside bool
	}{
		{"why do cats purr when they are happy", true},
		{"who painted the ceiling of the sistine chapel", true},
		{"what is the boiling point of water at altitude", true},
		{"can you move my dentist appointment to friday", false},
		{"my electricity bill doubled this month, what's going on", false},
		{"cancel the yoga class I booked for tomorrow", false},
	}
	for _, tt := range tests {
		p := Aside(enc.Embed(tt.text))
		if (p >= 0.5) != tt.aside {
			t.Errorf("Aside(%q) = %.2f, want aside %v", tt.text, p, tt.aside)
		}
	}
}

func TestAsideOfAForeignVector(t *testing.T) {
	if p := Aside(make([]float32, 3)); p != 0 {
		t.Errorf("Aside(3 dims) = %v, want 0", p)
	}
	if p := Aside(nil); p != 0 {
		t.Errorf("Aside(nil) = %v, want 0", p)
	}
}
