package stream_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-ai/switchboard/stream"
)

// BenchmarkReplyStreaming measures what a chat user waits for: the time from a model chunk
// reaching the guard to the SSE frame carrying it reaching a client over HTTP. A fake model
// writes a reply in 4-character chunks every 2 ms through the guard, the turn log and
// ServeSSE; the client notes when each byte arrives. first-delta-ms is the wait for the first
// words, p50-ms and p99-ms the wait per chunk (a chunk ending mid-word waits for the word).
func BenchmarkReplyStreaming(b *testing.B) {
	prose := "Here are three offers on running shoes in your size, and your points balance is 1,250 with 200 pending. "
	for _, n := range []int{100, 600} {
		reply := strings.Repeat(prose, n/len(prose)+1)[:n]
		b.Run(fmt.Sprintf("%dchars", n), func(b *testing.B) {
			hub := stream.NewHub(stream.NewMemoryLogStore())
			defer hub.Close()
			policy := stream.CompileGuard(stream.GuardConfig{Forbidden: []string{"offers.search"}})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = stream.ServeSSE(w, r, hub, r.URL.Query().Get("turn"), 0, stream.SSEOptions{Heartbeat: -1})
			}))
			defer srv.Close()
			var first, chunk []time.Duration
			i := 0
			for b.Loop() {
				i++
				turn := fmt.Sprintf("t%d", i)
				log := hub.Open(turn)
				g := policy.Guard(log)
				resp, err := http.Get(srv.URL + "?turn=" + turn)
				if err != nil {
					b.Fatal(err)
				}
				arrived := make(chan []time.Time, 1) // per byte of the reply, when the client had it
				go func() {
					var at []time.Time
					for ev, err := range stream.ReadEvents(resp.Body) {
						if err != nil {
							break
						}
						if ev.Name == "reply.delta" {
							var d stream.ReplyDelta
							_ = json.Unmarshal(ev.Data, &d)
							now := time.Now()
							for range len(d.Text) {
								at = append(at, now)
							}
						}
						if ev.Name == "turn.completed" {
							break
						}
					}
					arrived <- at
				}()
				var sent []time.Time // per byte, when the model produced it
				tick := time.NewTicker(2 * time.Millisecond)
				for j := 0; j < len(reply); j += 4 {
					<-tick.C
					piece := reply[j:min(j+4, len(reply))]
					now := time.Now()
					for range len(piece) {
						sent = append(sent, now)
					}
					g.Publish(stream.ReplyDelta{Text: piece})
				}
				tick.Stop()
				g.Publish(stream.ReplyCompleted{Text: reply})
				g.Publish(stream.TurnCompleted{TurnID: turn, Outcome: stream.OutcomeOK})
				hub.Done(turn)
				at := <-arrived
				resp.Body.Close()
				if len(at) != len(reply) {
					b.Fatalf("the client got %d bytes of %d", len(at), len(reply))
				}
				first = append(first, at[0].Sub(sent[0]))
				for j := 0; j < len(reply); j += 4 {
					chunk = append(chunk, at[j].Sub(sent[j]))
				}
			}
			slices.Sort(first)
			slices.Sort(chunk)
			b.ReportMetric(ms(first[len(first)/2]), "first-delta-ms")
			b.ReportMetric(ms(chunk[len(chunk)/2]), "p50-ms")
			b.ReportMetric(ms(chunk[len(chunk)*99/100]), "p99-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
