package viewcache

import (
	"container/list"
	"sync"
	"time"
)

// packedText is a kept text as stored: its record and compressed body.
type packedText struct {
	m    meta
	body []byte
}

// recent is the process's own bounded copy of the most recently used
// packed texts, least recently used dropped first. An entry lives no
// longer than in the store.
type recent struct {
	mu    sync.Mutex
	max   int
	size  int
	order list.List // of *recentEntry, most recent at the front
	byKey map[string]*list.Element
}

type recentEntry struct {
	key     string
	p       packedText
	expires time.Time
}

func (r *recent) get(key string) (packedText, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	el, ok := r.byKey[key]
	if !ok {
		return packedText{}, false
	}
	e := el.Value.(*recentEntry)
	if time.Now().After(e.expires) {
		r.removeElement(el)
		return packedText{}, false
	}
	r.order.MoveToFront(el)
	return e.p, true
}

func (r *recent) put(key string, p packedText) {
	if len(p.body) > r.max {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[string]*list.Element{}
	}
	if el, ok := r.byKey[key]; ok {
		r.removeElement(el)
	}
	r.byKey[key] = r.order.PushFront(&recentEntry{key: key, p: p, expires: time.Now().Add(Lifetime)})
	r.size += len(p.body)
	for r.size > r.max {
		r.removeElement(r.order.Back())
	}
}

func (r *recent) remove(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.byKey[key]; ok {
		r.removeElement(el)
	}
}

func (r *recent) removeElement(el *list.Element) {
	e := r.order.Remove(el).(*recentEntry)
	delete(r.byKey, e.key)
	r.size -= len(e.p.body)
}
