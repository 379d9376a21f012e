package offline

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/answer"
	"github.com/switchboard-ai/switchboard/internal/llm/offline/route"
	"github.com/tmc/langchaingo/llms"
)

// The Model keeps what it derives from the agents' prompts and tools alone, which stay the
// same from turn to turn, in caches of at most maxCached entries each: agent sets change with
// reloads. The values are shared by turns, which only read them.
const maxCached = 256

// key identifies a prompt or tool set by content: two 64-bit hashes under independent
// seeds, so that two contents share a key with odds of about one in 2^128. A cryptographic
// hash was a twentieth of the server's CPU per turn, rereading every tool's description on
// every call; nothing here needs to withstand an adversary, as only agent definitions are
// keyed, never users' words.
type key = [2]uint64

// keySeeds are the process's seeds for key.
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyHash builds a key.
type keyHash [2]maphash.Hash

// newKeyHash returns an empty keyHash under the process's seeds.
func newKeyHash() *keyHash {
	var h keyHash
	h[0].SetSeed(keySeeds[0])
	h[1].SetSeed(keySeeds[1])
	return &h
}

// WriteString adds s.
func (h *keyHash) WriteString(s string) {
	h[0].WriteString(s)
	h[1].WriteString(s)
}

// Write adds b.
func (h *keyHash) Write(b []byte) {
	h[0].Write(b)
	h[1].Write(b)
}

// end writes a byte that ends one text or list, so that no two lists write the same.
func (h *keyHash) end(b byte) {
	h[0].WriteByte(b)
	h[1].WriteByte(b)
}

// Sum returns the key of what was written.
func (h *keyHash) Sum() key { return key{h[0].Sum64(), h[1].Sum64()} }

// index returns the search index of sources, building it the first time. Building one
// tokenises and stems every text: it was a sixth of the server's CPU when rebuilt per call.
func (m *Model) index(sources []route.Source) *route.Index {
	return m.indexOf(fingerprint(sources), sources)
}

// indexOf is index, given the fingerprint of sources.
func (m *Model) indexOf(sourcesKey key, sources []route.Source) *route.Index {
	return m.indexes.Get(sourcesKey, func() *route.Index { return route.NewIndex(sources) })
}

// routingIndex returns the index of an orchestrator's agents, route.RoutingSources of its
// prompt and ask_ tools, found by them: they are all RoutingSources reads, and hashing them
// whole costs a fraction of hashing the sources a text at a time, as index does (a twentieth
// of a routing call). A set of sources first met here is indexed as index does, so that the
// index Prepare made serves.
func (m *Model) routingIndex(system string, tools []llms.Tool) *route.Index {
	return m.routings.Get(toolsKey(system, tools), func() *route.Index { return m.index(route.RoutingSources(system, tools)) })
}

// vocab returns the tool vocabulary (newToolVocab) of a sub-agent's prompt and tools, given
// the fingerprint of sources, building it the first time: stemming their texts was a tenth
// of the model's time per call. The key is the prompt's with the sources' fingerprint, so
// that the sources are hashed once for both the vocabulary and the index.
func (m *Model) vocab(system string, sourcesKey key, sources []route.Source) answer.ToolVocab {
	h := newKeyHash()
	h.WriteString(system)
	h.end(0)
	var fp [16]byte
	binary.LittleEndian.PutUint64(fp[:8], sourcesKey[0])
	binary.LittleEndian.PutUint64(fp[8:], sourcesKey[1])
	h.Write(fp[:])
	return m.vocabs.Get(h.Sum(), func() answer.ToolVocab { return newToolVocab(system, sources) })
}

// offered returns offeredTerms(tools), building it the first time: stemming them on every
// answer was a sixth of composing it.
func (m *Model) offered(tools []llms.Tool) map[string]bool {
	return m.offers.Get(toolsKey("", tools), func() map[string]bool { return offeredTerms(tools) })
}

// domainTerms returns req.domainTerms(), building it the first time: stemming them for every
// tool result was a tenth of the server's CPU per turn. A call reads them several times over
// (whether its result answers, what it holds, the reply), so req keeps them after the first:
// its prompt and tools do not change after parseRequest.
func (m *Model) domainTerms(req *request) map[string]bool {
	if !req.domainSet {
		req.domain, req.domainSet = m.domains.Get(toolsKey(req.system, req.plainTools()), req.domainTerms), true
	}
	return req.domain
}

// toolsKey identifies prefix and the tools' names and descriptions.
func toolsKey(prefix string, tools []llms.Tool) key {
	h := newKeyHash()
	h.WriteString(prefix)
	h.end(2)
	for _, t := range tools {
		h.WriteString(t.Function.Name)
		h.end(0)
		h.WriteString(t.Function.Description)
		h.end(1)
	}
	return h.Sum()
}

// fingerprint identifies a list of sources by content.
func fingerprint(sources []route.Source) key {
	h := newKeyHash()
	writeSources(h, sources)
	return h.Sum()
}

// writeSources adds sources to h, each text ended so that no two lists write the same.
func writeSources(h *keyHash, sources []route.Source) {
	for _, s := range sources {
		for i, texts := range [][]string{s.Texts, s.Minor, s.Tools} {
			for _, t := range texts {
				h.WriteString(t)
				h.end(0)
			}
			h.end(byte(i + 1))
		}
	}
}
