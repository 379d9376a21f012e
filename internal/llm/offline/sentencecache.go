package offline

import (
	"context"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/switchboard-ai/switchboard/principal"
)

// maxUserSentences bounds the sentence vectors of users' messages a Model keeps: 512 floats
// each, 2 MiB in all.
const maxUserSentences = 1024

// sentencesOf returns how the calls of one request encode the user's sentences: through the
// vectors kept for the request's principal, so that a sentence encoded once (milliseconds)
// is not encoded again within the conversation. Routing reads a conversation's earlier
// messages again at every turn, and a sub-agent's tool choice reads the request the
// orchestrator read. What is kept is the vector, under a hash of the principal and the text,
// never the text, and only for the principal whose message it is; without a principal in
// ctx, nil: every sentence is encoded anew.
func (m *Model) sentencesOf(ctx context.Context) func(text string) []float32 {
	p, ok := principal.FromContext(ctx)
	if !ok || p == "" {
		return nil
	}
	return func(text string) []float32 {
		h := newKeyHash()
		h.WriteString(string(p))
		h.end(0)
		h.WriteString(text)
		return m.userSentences.Get(h.Sum(), func() []float32 { return route.Sentence(text) })
	}
}

// settings returns s with the request's way of encoding sentences.
func (req *request) settings(s route.Settings) route.Settings {
	s.Encode = req.encode
	return s
}
