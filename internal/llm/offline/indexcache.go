package offline

import (
	"crypto/sha256"
	"sync"
)

// indexCache keeps the search index of each tool set the model has seen. An index depends only
// on its sources (the tools' names, descriptions and examples), which stay the same from turn to
// turn, while building one tokenises and stems every text: it was a sixth of the server's CPU
// when rebuilt per call. Indexes are immutable, so turns share them.
type indexCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*index
}

// maxIndexes bounds the cache: agent sets change with reloads, and a long-running process must
// not keep every set it ever saw. Past the bound the cache starts over.
const maxIndexes = 256

func (c *indexCache) get(sources []docSource) *index {
	key := fingerprint(sources)
	c.mu.Lock()
	if ix, ok := c.m[key]; ok {
		c.mu.Unlock()
		return ix
	}
	c.mu.Unlock()
	ix := newIndex(sources) // outside the lock: two turns may build it at once, both correct
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxIndexes {
		c.m = map[[sha256.Size]byte]*index{}
	}
	c.m[key] = ix
	return ix
}

// fingerprint identifies a list of sources by content.
func fingerprint(sources []docSource) [sha256.Size]byte {
	h := sha256.New()
	sep := []byte{0}
	for _, s := range sources {
		for _, t := range s.texts {
			h.Write([]byte(t))
			h.Write(sep)
		}
		h.Write([]byte{1})
		for _, t := range s.minor {
			h.Write([]byte(t))
			h.Write(sep)
		}
		h.Write([]byte{2})
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
