package assembly

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool whose domain_type the embedded demo CCS does not answer with would reject every answer;
// serve says so when it starts and again at each reload that still has it (or now has it, from a
// fixture), rather than leaving the first sign to a turn that answers "unavailable".
func TestDomainMismatchIsWarnedAtStartAndReload(t *testing.T) {
	const enricherWarning = "agent shop: tool search_offers expects domain_type offers, but the demo CCS answers enricher offers.search with offer_list"
	const fixtureWarning = "agent shop: tool search_offers expects domain_type plant_list, but the demo CCS answers the fixture garden.plants.json with plants"
	dir := copyAgents(t, func(name string, data []byte) []byte {
		if name != "shop.yaml" {
			return data
		}
		return []byte(strings.Replace(string(data), "domain_type: offer_list", "domain_type: offers", 1))
	})
	logs := &obsBuffer{}
	ta := newAppWith(t, dir, func(o *Input) { o.Logger = slog.New(slog.NewJSONHandler(logs, nil)) })
	warned := func(msg string) int {
		n := 0
		for _, l := range logs.lines(t) {
			if strings.HasPrefix(l.str("msg"), msg) && l.str("level") == "WARN" {
				n++
			}
		}
		return n
	}
	if got := warned(enricherWarning); got != 1 {
		t.Fatalf("warnings at start = %d, want 1:\n%s", got, logs.String())
	}

	// The tool now reads a fixture of the folder, which answers with another domain type.
	shop := filepath.Join(dir, "shop.yaml")
	data, err := os.ReadFile(shop)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(strings.Replace(string(data), "domain_type: offers", "domain_type: plant_list", 1), "enricher: offers.search", "enricher: garden.plants", 1))
	if err := os.WriteFile(shop, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fixture := `{"domain_type": "plants", "payload": {"plants": []}}`
	if err := os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "garden.plants.json"), []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ta.Reload(t.Context()); err != nil {
		t.Fatalf("Reload() = %v", err)
	}
	if got := warned(fixtureWarning); got != 1 {
		t.Errorf("fixture warnings after reload = %d, want 1:\n%s", got, logs.String())
	}
	if got := warned(enricherWarning); got != 1 {
		t.Errorf("enricher warnings after reload = %d, want still 1 (the tool no longer reads offers.search)", got)
	}
}
