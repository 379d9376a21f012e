package encoder

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// reference holds, for a few sentences, the piece ids and the vector that the TensorFlow.js
// model gives (the npm packages @energetic-ai/embeddings and model-embeddings-en, 0.2.0).
type reference struct {
	Text string    `json:"text"`
	IDs  []int     `json:"ids"`
	Vec  []float32 `json:"vec"`
}

func loadReference(t *testing.T) []reference {
	t.Helper()
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

func TestTokenizerMatchesReference(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loadReference(t) {
		if got := m.tok.encode(r.Text); !slices.Equal(got, r.IDs) {
			t.Errorf("encode(%q) = %v, want %v", r.Text, got, r.IDs)
		}
	}
}

// The weights are quantised to bytes, so the vectors differ from the reference in the third
// decimal; what matters is the direction.
func TestEmbedMatchesReference(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loadReference(t) {
		got := m.Embed(r.Text)
		if len(got) != Dims {
			t.Fatalf("Embed(%q) has %d dims", r.Text, len(got))
		}
		var dot float64
		for i := range got {
			dot += float64(got[i]) * float64(r.Vec[i])
		}
		if dot < 0.995 {
			t.Errorf("Embed(%q): cosine to the reference = %.4f, want >= 0.995", r.Text, dot)
		}
		t.Logf("%.5f %q", dot, r.Text)
	}
}

func TestEmbedIsUnitLength(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	v := m.Embed("where is my parcel")
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("|v|^2 = %v, want 1", n)
	}
	if m.Embed("") != nil {
		t.Error("Embed(\"\") is not nil")
	}
}

func BenchmarkEmbed(b *testing.B) {
	m, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m.Embed("the courier never showed up with my stuff")
	}
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzEmbed feeds the tokenizer and the model whatever a user may type: every id is a piece
// of the vocabulary, and the vector is nil or of unit length.
func FuzzEmbed(f *testing.F) {
	m, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"where is my parcel", "", " ", "🙂🙂 thanks!!", "a\u0301\u0000\xff", "ＡＢＣ ﬁ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range m.tok.encode(s) {
			if id < 0 || id >= len(m.tok.lengths) {
				t.Fatalf("encode(%q) gave id %d", s, id)
			}
		}
		if len(s) > 200 {
			return // the model's cost grows with the text; the tokenizer is what parses it
		}
		v := m.Embed(s)
		if v == nil {
			return
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.IsNaN(n) || math.Abs(n-1) > 1e-3 {
			t.Fatalf("Embed(%q): |v|^2 = %v", s, n)
		}
	})
}

// A Model is shared by the turns of a server: concurrent calls give the vectors a single call
// gives.
func TestEmbedConcurrently(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"where is my parcel", "any deals on running shoes", "book me a room in tokyo"}
	want := make([][]float32, len(texts))
	for i, s := range texts {
		want[i] = m.Embed(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			i := g % len(texts)
			if got := m.Embed(texts[i]); !slices.Equal(got, want[i]) {
				t.Errorf("Embed(%q) from goroutine %d differs", texts[i], g)
			}
		})
	}
	wg.Wait()
}

// The model reads at most maxLen pieces: a message as long as a request allows costs what
// that many pieces cost, and still gives a unit vector.
func TestEmbedLongInput(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("where is my parcel\t", 3000)
	if got := len(m.tok.encode(long[:m.maxLen*maxPieceRunes])); got < m.maxLen {
		t.Fatalf("the text kept for a long input has %d pieces, want at least maxLen %d", got, m.maxLen)
	}
	v := m.Embed(long)
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("|Embed(long)|^2 = %v, want 1", n)
	}
}
