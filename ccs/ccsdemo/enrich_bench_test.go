package ccsdemo

import (
	"net/http"
	"testing"

	"github.com/switchboard-ai/switchboard/ccs"
)

// BenchmarkEnrichInProcess calls the demo CCS through the in-process transport from parallel
// callers, as the embedded mode does for each sub-agent's tool call.
func BenchmarkEnrichInProcess(b *testing.B) {
	c, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL:    "http://ccs.embedded",
		HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(New(Options{}))},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Enrich(b.Context(), ccs.EnricherRequest{Principal: Alice, EnricherID: "offers.search",
				Params: map[string]any{"query": "running shoes"}}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
