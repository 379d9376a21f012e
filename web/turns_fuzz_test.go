package web

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/switchboard-ai/switchboard/orchestrator"
)

// FuzzDecodeTurnRequest: any body either decodes to a valid turn or is refused with a client
// message that never echoes the body back.
func FuzzDecodeTurnRequest(f *testing.F) {
	for _, seed := range []string{
		`{"message":"hi"}`, `{"message":"  "}`, `{"message":"hi","episode_id":"ep_1","locale":"en-GB"}`,
		`{"message":1}`, `{"mesage":"x"}`, `{"message":"a"}{"message":"b"}`, `[]`, ``, `{"message":"\u0000"}`,
		"{\"message\":\"\xff\"}", `{"message":"\ud800"}`, `{"message":"\ufffd"}`,
		`{"message":"hi \ud800","locale":"\ufffd"}`, `{"message":"see \\ufffd and \ud800"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, bad := decodeTurnRequest(strings.NewReader(body))
		if bad != nil {
			if bad.Code == "" || bad.Message == "" || bad.Status < 400 || bad.Status > 499 {
				t.Fatalf("refusal %+v lacks a code, message or 4xx status", bad)
			}
			if len(body) > 12 && strings.Contains(bad.Message, body) {
				t.Fatalf("refusal echoes the body: %q", bad.Message)
			}
			return
		}
		if !utf8.ValidString(body) {
			t.Fatalf("accepted a body of invalid UTF-8: %q", body)
		}
		// Every U+FFFD accepted was sent as one, raw or escaped: none stands for text that JSON
		// decoding replaced (a lone surrogate).
		got := strings.Count(req.Message+req.EpisodeID+req.Locale+req.Location, "\uFFFD")
		if sent := strings.Count(body, "\uFFFD") + strings.Count(strings.ToLower(body), `\ufffd`); got > sent {
			t.Fatalf("accepted text that JSON decoding replaced: %q", body)
		}
		if strings.TrimSpace(req.Message) == "" || !utf8.ValidString(req.Message) || utf8.RuneCountInString(req.Message) > orchestrator.MaxMessageRunes {
			t.Fatalf("accepted an invalid message %q", req.Message)
		}
	})
}
