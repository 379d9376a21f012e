package evals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseDataset feeds the loader arbitrary bytes: it must never panic, and whatever it
// accepts must satisfy the invariants the runner relies on.
func FuzzParseDataset(f *testing.F) {
	// Small seeds: the fuzzer minimises every input that finds new coverage, and the shipped
	// datasets (kilobytes each) make that crawl. TestShippedDatasets covers them whole.
	f.Add([]byte("name: intent-switch\ncases:\n  - id: shop-rewards-1\n    user: bob\n    turns:\n      - {user: \"any deals?\", expect: [shop]}\n      - user: and my points\n        expect: [rewards]\n"))
	f.Add([]byte("name: no-route\ncases:\n  - id: hi\n    turns: [{user: hi, expect: []}]\n"))
	f.Add([]byte("name: d\ncases:\n  - id: a\n    faults: {shop: timeout}\n    turns: [{user: hi, expect: [shop], acknowledge_failure: [shop]}]\n"))
	f.Add([]byte("name: d\ncases: &x [*x]\n"))
	f.Add([]byte("name: d\ncases:\n  - id: a\n    turns: [{user: tier?, expect: [rewards], reply_mentions: [\"Silver\", \"2,550|2550\"], reply_excludes: [Gold member, \"|\"]}]\n"))
	f.Add([]byte("name: d\ncases:\n  - id: a\n    turns: [{user: hi, expect: [], reply_excludes: [\"no \", 3, ~, [x]]}]\n"))
	f.Add([]byte("{name: 1, cases: [{id: 2, user: 3, turns: [{user: 4, expect: [~]}]}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseDataset("f.yaml", data, demoAgents)
		if err != nil {
			if ds != nil {
				t.Fatalf("ParseDataset() returned a dataset with error %v", err)
			}
			return
		}
		if ds.Name == "" || len(ds.Cases) == 0 {
			t.Fatalf("accepted dataset without name or cases: %+v", ds)
		}
		seen := map[string]bool{}
		for _, c := range ds.Cases {
			if c.ID == "" || seen[c.ID] || c.User == "" || len(c.Turns) == 0 {
				t.Fatalf("accepted bad case %+v", c)
			}
			seen[c.ID] = true
			for agent, kind := range c.Faults {
				if !kind.valid() || !contains(demoAgents, agent) {
					t.Fatalf("accepted bad fault %s=%s", agent, kind)
				}
			}
			for _, turn := range c.Turns {
				if turn.Message == "" || turn.Expect == nil {
					t.Fatalf("accepted bad turn %+v", turn)
				}
				for _, id := range append(append([]string{}, turn.Expect...), turn.AcknowledgeFailure...) {
					if !contains(demoAgents, id) {
						t.Fatalf("accepted unknown agent %q", id)
					}
				}
				for _, phrase := range append(append([]string{}, turn.ReplyMentions...), turn.ReplyExcludes...) {
					// An empty alternative would match every reply: the assertion would test nothing.
					for _, alt := range alternatives(phrase) {
						if strings.TrimSpace(alt) == "" {
							t.Fatalf("accepted phrase %q with an empty alternative", phrase)
						}
					}
					if len([]rune(phrase)) > maxPhraseLength {
						t.Fatalf("accepted a phrase of %d characters", len([]rune(phrase)))
					}
				}
				if turn.ReplyMentions != nil && len(turn.ReplyMentions) == 0 || turn.ReplyExcludes != nil && len(turn.ReplyExcludes) == 0 {
					t.Fatalf("accepted an empty reply assertion list: %+v", turn)
				}
				for _, id := range turn.AcknowledgeFailure {
					if _, ok := c.Faults[id]; !ok {
						t.Fatalf("accepted acknowledge_failure %q without a fault", id)
					}
				}
			}
		}
	})
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
