package answer

import (
	"strings"
	"testing"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// TestNarrateEarlierSpelledAsData checks that a follow-up's earlier request is read as the
// data spells it: a typo there ("armchiar") still names the record, rather than a thing
// nothing is about.
func TestNarrateEarlierSpelledAsData(t *testing.T) {
	res := Result{Name: "jobs", Content: `{"status":"ok","data":{"customer":"A","jobs":[
		{"ref":"J-1","item":"wingback armchair","fabric":{"name":"Harris Tweed","metres":6}},
		{"ref":"J-2","item":"pair of oak stools","fabric":{"name":"linen","metres":1.5}}]}}`}
	domain := func() map[string]bool { return map[string]bool{"upholstery": true} }
	asked := "how many metres of it" + lang.EarlierMarker + "what fabric did we pick for the armchiar)"
	p := Narrate(res, asked, 5, domain)
	if got := p.found + "\n" + p.text; !strings.Contains(got, "fabric metres 6") || strings.Contains(got, "couldn't find") {
		t.Errorf("Narrate(%q) = %q, want the armchair's fabric metres", asked, got)
	}
}
