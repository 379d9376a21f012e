package offline

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// summarise extracts the most representative sentences of the human content, in their
// original order, within the word budget. A sentence is worth the frequency of its content
// words across the whole text, so sentences about what recurs win.
func (m *Model) summarise(req *request) string {
	text := strings.Join(req.humans, "\n")
	budget := m.opts.summaryWords
	if words := strings.Fields(text); len(words) <= budget {
		return strings.Join(words, " ")
	}
	sentences := splitSentences(text)
	terms := make([][]string, len(sentences))
	freq := map[string]int{}
	for i, s := range sentences {
		terms[i] = lang.Terms(withoutLabel(s))
		for _, t := range terms[i] {
			freq[t]++
		}
	}
	type ranked struct {
		pos   int
		score float64
		words int
	}
	order := make([]ranked, len(sentences))
	for i, s := range sentences {
		sum := 0
		for _, t := range terms[i] {
			sum += freq[t]
		}
		order[i] = ranked{pos: i, score: float64(sum) / math.Sqrt(float64(len(terms[i])+1)), words: len(strings.Fields(s))}
	}
	slices.SortStableFunc(order, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	chosen := make([]bool, len(sentences))
	used := 0
	for _, r := range order {
		if r.score > 0 && used+r.words <= budget {
			chosen[r.pos] = true
			used += r.words
		}
	}
	var out []string
	for i, s := range sentences {
		if chosen[i] {
			out = append(out, s)
		}
	}
	if len(out) == 0 { // even the best sentence is over budget, or none stands out: cut
		words := strings.Fields(sentences[order[0].pos])
		if len(words) <= budget {
			return strings.Join(words, " ")
		}
		return strings.Join(words[:budget], " ") + "…"
	}
	return strings.Join(out, " ")
}

// withoutLabel drops a transcript's speaker label ("user: ...") from a sentence, so that
// who spoke does not count as what was said.
func withoutLabel(s string) string {
	label, rest, ok := strings.Cut(s, ":")
	if ok && len(strings.Fields(label)) <= 2 {
		return rest
	}
	return s
}

// splitSentences cuts text after . ! ? and at line breaks, keeping the punctuation.
func splitSentences(text string) []string {
	var out []string
	start := 0
	add := func(end int) {
		if s := strings.Join(strings.Fields(text[start:end]), " "); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			add(i + 1)
		case '.', '!', '?':
			if i+1 == len(text) || lang.IsSpace(text[i+1]) {
				add(i + 1)
			}
		}
	}
	add(len(text))
	return out
}
