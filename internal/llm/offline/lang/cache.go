package lang

import "sync"

// Cache keeps values built from keys, at most a limit of them: what it holds changes
// with reloads and prompts, and a long-running process must not keep all it ever saw. Past the
// limit it starts over. Values are built outside the lock (two callers may build one at once,
// both correct) and shared: callers must not modify them. Make one with NewCache.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	limit int
}

// NewCache returns an empty cache that keeps at most limit values; limit must be positive.
func NewCache[K comparable, V any](limit int) *Cache[K, V] {
	if limit < 1 {
		panic("lang: NewCache with a limit below 1")
	}
	return &Cache[K, V]{limit: limit}
}

// Get returns the value kept for key, building and keeping it the first time. It panics on a
// Cache not made by NewCache, which has no limit to keep to.
func (c *Cache[K, V]) Get(key K, build func() V) V {
	if c.limit < 1 {
		panic("lang: Cache used without NewCache")
	}
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.limit {
		c.m = make(map[K]V)
	}
	c.m[key] = v
	return v
}
