package agui

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkAGUIRun is one two-intent AG-UI run over HTTP, read to RUN_FINISHED, against the
// same turn streamed by POST /v1/turns with Accept: text/event-stream: the difference is what
// the AG-UI translation costs (and the routing record it reads at the end).
func BenchmarkAGUIRun(b *testing.B) {
	for _, route := range []string{"agui", "v1-turns"} {
		b.Run(route, func(b *testing.B) {
			h := newHarness(b, nil)
			client := h.srv.Client()
			b.ReportAllocs()
			end := "turn.completed"
			if route == "agui" {
				end = "RUN_FINISHED"
			}
			for i := 0; b.Loop(); i++ {
				var req *http.Request
				if route == "agui" {
					body := fmt.Sprintf(`{"threadId":"th-%d","runId":"run-%d","messages":[{"id":"u","role":"user","content":%q}]}`, i, i, twoIntents)
					req, _ = http.NewRequest(http.MethodPost, h.srv.URL+"/agui", strings.NewReader(body))
				} else {
					req, _ = http.NewRequest(http.MethodPost, h.srv.URL+"/v1/turns", strings.NewReader(fmt.Sprintf(`{"message":%q}`, twoIntents)))
				}
				req.Header.Set("Authorization", "Bearer tok-alice")
				req.Header.Set("Accept", "text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				data, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d, %v", resp.StatusCode, err)
				}
				if !strings.Contains(string(data), end) {
					b.Fatalf("stream did not end with %s: %s", end, data)
				}
			}
		})
	}
}
