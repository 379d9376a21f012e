package offline

import (
	"crypto/sha256"
	"io"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// The Model keeps what it derives from the agents' prompts and tools alone, which stay the
// same from turn to turn, in caches of at most maxCached entries each: agent sets change with
// reloads. The values are shared by turns, which only read them.
const maxCached = 256

// key identifies a prompt or tool set by content.
type key = [sha256.Size]byte

// index returns the search index of sources, building it the first time. Building one
// tokenises and stems every text: it was a sixth of the server's CPU when rebuilt per call.
func (m *Model) index(sources []route.Source) *route.Index {
	return m.indexes.Get(fingerprint(sources), func() *route.Index { return route.NewIndex(sources) })
}

// vocab returns the tool vocabulary (newToolVocab) of a sub-agent's prompt and tools,
// building it the first time: stemming their texts was a tenth of the model's time per call.
func (m *Model) vocab(system string, sources []route.Source) answer.ToolVocab {
	fp := fingerprint(sources)
	return m.vocabs.Get(sha256.Sum256(append([]byte(system), fp[:]...)), func() answer.ToolVocab { return newToolVocab(system, sources) })
}

// offered returns offeredTerms(tools), building it the first time: stemming them on every
// answer was a sixth of composing it.
func (m *Model) offered(tools []llms.Tool) map[string]bool {
	return m.offers.Get(toolsKey("", tools), func() map[string]bool { return offeredTerms(tools) })
}

// domainTerms returns req.domainTerms(), building it the first time: stemming them for every
// tool result was a tenth of the server's CPU per turn.
func (m *Model) domainTerms(req *request) map[string]bool {
	return m.domains.Get(toolsKey(req.system+"\x02", req.plainTools()), req.domainTerms)
}

// toolsKey identifies prefix and the tools' names and descriptions.
func toolsKey(prefix string, tools []llms.Tool) key {
	h := sha256.New()
	io.WriteString(h, prefix)
	for _, t := range tools {
		io.WriteString(h, t.Function.Name)
		h.Write([]byte{0})
		io.WriteString(h, t.Function.Description)
		h.Write([]byte{1})
	}
	return key(h.Sum(nil))
}

// fingerprint identifies a list of sources by content.
func fingerprint(sources []route.Source) key {
	h := sha256.New()
	for _, s := range sources {
		for i, texts := range [][]string{s.Texts, s.Minor, s.Tools} {
			for _, t := range texts {
				io.WriteString(h, t)
				h.Write([]byte{0})
			}
			h.Write([]byte{byte(i + 1)})
		}
	}
	return key(h.Sum(nil))
}
