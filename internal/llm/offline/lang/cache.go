package lang

import "sync"

// Cache keeps values built from keys, at most Limit of them: what it holds changes
// with reloads and prompts, and a long-running process must not keep all it ever saw. Past the
// limit it starts over. Values are built outside the lock (two callers may build one at once,
// both correct) and shared: callers must not modify them.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	Limit int
}

// Get returns the value kept for key, building and keeping it the first time.
func (c *Cache[K, V]) Get(key K, build func() V) V {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.Limit {
		c.m = make(map[K]V)
	}
	c.m[key] = v
	return v
}
