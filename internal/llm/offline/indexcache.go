package offline

import (
	"crypto/sha256"
	"io"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// indexCache keeps the search index of each tool set the model has seen, by fingerprint (see
// newIndexCache). An index depends only on its sources (the tools' names, descriptions and
// examples), which stay the same from turn to turn, while building one tokenises and stems
// every text: it was a sixth of the server's CPU when rebuilt per call. Indexes are
// immutable, so turns share them.
type indexCache struct {
	*lang.Cache[[sha256.Size]byte, *route.Index]
}

// newIndexCache returns a cache of at most maxIndexes indexes: agent sets change with reloads.
func newIndexCache() *indexCache {
	return &indexCache{lang.NewCache[[sha256.Size]byte, *route.Index](maxIndexes)}
}

const maxIndexes = 256

// index returns the index of sources, building it the first time.
func (c *indexCache) index(sources []route.Source) *route.Index {
	return c.Get(fingerprint(sources), func() *route.Index { return route.NewIndex(sources) })
}

// vocabCache keeps the tool vocabulary (newToolVocab) of each sub-agent prompt and tool set,
// by fingerprint: like an index it depends only on the definitions, not on the message, and
// stemming every text of them was a tenth of the offline model's time per call. The maps are
// shared: callers only read them.
type vocabCache struct {
	*lang.Cache[[sha256.Size]byte, answer.ToolVocab]
}

func newVocabCache() *vocabCache {
	return &vocabCache{lang.NewCache[[sha256.Size]byte, answer.ToolVocab](maxIndexes)}
}

// vocab returns the vocabulary of system and sources, building it the first time.
func (c *vocabCache) vocab(system string, sources []route.Source) answer.ToolVocab {
	h := sha256.New()
	h.Write([]byte(system))
	fp := fingerprint(sources)
	h.Write(fp[:])
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return c.Get(key, func() answer.ToolVocab { return newToolVocab(system, sources) })
}

// offeredCache keeps offeredTerms of each tool set, by the tools' names and descriptions:
// stemming them on every answer was a sixth of composing it.
type offeredCache struct {
	*lang.Cache[[sha256.Size]byte, map[string]bool]
}

func newOfferedCache() *offeredCache {
	return &offeredCache{lang.NewCache[[sha256.Size]byte, map[string]bool](maxIndexes)}
}

// offered returns offeredTerms(tools), building it the first time. Callers only read it.
func (c *offeredCache) offered(tools []llms.Tool) map[string]bool {
	h := sha256.New()
	for _, t := range tools {
		io.WriteString(h, t.Function.Name)
		h.Write([]byte{0})
		io.WriteString(h, t.Function.Description)
		h.Write([]byte{1})
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return c.Get(key, func() map[string]bool { return offeredTerms(tools) })
}

// domainCache keeps request.domainTerms of each prompt and tool set, by the prompt and the
// tools' names and descriptions: stemming them for every tool result was a tenth of the
// server's CPU per turn, and they change only with the agents.
type domainCache struct {
	*lang.Cache[[sha256.Size]byte, map[string]bool]
}

func newDomainCache() *domainCache {
	return &domainCache{lang.NewCache[[sha256.Size]byte, map[string]bool](maxIndexes)}
}

// terms returns req.domainTerms(), building it the first time. Callers only read it.
func (c *domainCache) terms(req *request) map[string]bool {
	h := sha256.New()
	io.WriteString(h, req.system)
	h.Write([]byte{2})
	for _, t := range req.plainTools() {
		io.WriteString(h, t.Function.Name)
		h.Write([]byte{0})
		io.WriteString(h, t.Function.Description)
		h.Write([]byte{1})
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return c.Get(key, req.domainTerms)
}

// capCache keeps parseCap's answer for each orchestrator prompt: the prompt changes only with
// the agents, and matching the rule over all of it was a tenth of routing's time.
type capCache struct {
	*lang.Cache[string, int]
}

func newCapCache() *capCache { return &capCache{lang.NewCache[string, int](maxIndexes)} }

// cap returns parseCap(system), computing it the first time.
func (c *capCache) cap(system string) int {
	return c.Get(system, func() int { return route.ParseCap(system) })
}

// fingerprint identifies a list of sources by content.
func fingerprint(sources []route.Source) [sha256.Size]byte {
	h := sha256.New()
	sep := []byte{0}
	for _, s := range sources {
		for _, t := range s.Texts {
			h.Write([]byte(t))
			h.Write(sep)
		}
		h.Write([]byte{1})
		for _, t := range s.Minor {
			h.Write([]byte(t))
			h.Write(sep)
		}
		h.Write([]byte{2})
		for _, t := range s.Tools {
			h.Write([]byte(t))
			h.Write(sep)
		}
		h.Write([]byte{3})
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
