package route

import "testing"

// TestExamplesDissent: a sub-agent's examples are read by meaning (milliseconds a request)
// only when their wording leans to another tool than the words chose, or the words chose none.
func TestExamplesDissent(t *testing.T) {
	withExamples := NewIndex([]Source{
		{Texts: []string{"stamp count", "How many stamps the member has collected.", "how many stamps do i have"}},
		{Texts: []string{"prize shelf", "Prizes a member can swap stamps for.", "what can i swap my stamps for"}},
		{Texts: []string{"opening hours", "When each branch is open."}},
	})
	noExamples := NewIndex([]Source{
		{Texts: []string{"stamp count", "How many stamps the member has collected."}},
		{Texts: []string{"prize shelf", "Prizes a member can swap stamps for."}},
	})
	for _, tc := range []struct {
		name    string
		ix      *Index
		text    string
		intents []Intent
		want    bool
	}{
		{"another tool's example is worded closest", withExamples, "what could i swap my stamps for", []Intent{{Tool: 0}}, true},
		{"the chosen tool's example is worded closest", withExamples, "how many stamps have i got", []Intent{{Tool: 0}}, false},
		{"one shared word leans to the chosen tool", withExamples, "stamps", []Intent{{Tool: 0}}, false},
		{"no example shares a word", withExamples, "opening times downtown", []Intent{{Tool: 2}}, false},
		{"the words chose none", withExamples, "what could i swap them for", nil, true},
		{"another tool's example shares a word or two only", withExamples, "what prizes do i qualify for", []Intent{{Tool: 0}}, false},
		{"no tool has examples", noExamples, "what could i swap my stamps for", []Intent{{Tool: 0}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.ix.examplesDissent(tc.text, tc.intents); got != tc.want {
				t.Errorf("examplesDissent(%q, %v) = %v, want %v", tc.text, tc.intents, got, tc.want)
			}
		})
	}
}

func TestSharedShare(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want float64
	}{
		{nil, nil, 0},
		{[]string{"a", "b"}, []string{"a", "b"}, 1},
		{[]string{"a", "b"}, []string{"b", "c"}, 0.5},
		{[]string{"a"}, []string{"b", "c", "d"}, 0},
	} {
		if got := sharedShare(tc.a, tc.b); got != tc.want {
			t.Errorf("sharedShare(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
