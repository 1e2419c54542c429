package lightimage

import (
	"container/list"
	"sync"
)

// keptPictures bounds the pictures kept: a house's lights in their
// usual states, a few hundred kilobytes at most.
const keptPictures = 64

// kept are the pictures drawn last, by look.
var kept = newCache(keptPictures)

// cache keeps the encoded pictures of the last n looks asked for, the
// least recently asked-for going first. It is safe for concurrent use.
type cache struct {
	mu    sync.Mutex
	n     int
	order *list.List // of *entry, most recent first
	byKey map[look]*list.Element
}

type entry struct {
	key look
	png []byte
}

func newCache(n int) *cache {
	return &cache{n: n, order: list.New(), byKey: make(map[look]*list.Element, n)}
}

// get is the picture kept for key, which becomes the most recent.
func (c *cache) get(key look) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry).png, true
}

// put keeps png for key, letting the least recent picture go when full.
func (c *cache) put(key look, png []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		el.Value.(*entry).png = png
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&entry{key: key, png: png})
	if c.order.Len() > c.n {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry).key)
	}
}

// len is how many pictures are kept.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
