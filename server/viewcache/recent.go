package viewcache

import (
	"container/list"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

// recent is the process's own bounded copy of the most recently used
// texts, decoded (a text's body is an immutable string, so every window
// cut from it shares it rather than copying it), least recently used
// dropped first. An entry lives no longer than in the store.
type recent struct {
	mu    sync.Mutex
	max   int
	size  int
	order list.List // of *recentEntry, most recent at the front
	byKey map[string]*list.Element
}

type recentEntry struct {
	key     string
	t       *fileview.Text
	expires time.Time
}

func (r *recent) get(key string) (*fileview.Text, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	el, ok := r.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*recentEntry)
	if time.Now().After(e.expires) {
		r.removeElement(el)
		return nil, false
	}
	r.order.MoveToFront(el)
	return e.t, true
}

func (r *recent) put(key string, t *fileview.Text) {
	if len(t.Body) > r.max {
		return
	}
	// Its own copy, indexed: every later window on this node cuts it.
	indexed := *t
	indexed.Index()
	t = &indexed
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey = map[string]*list.Element{}
	}
	if el, ok := r.byKey[key]; ok {
		r.removeElement(el)
	}
	r.byKey[key] = r.order.PushFront(&recentEntry{key: key, t: t, expires: time.Now().Add(Lifetime)})
	r.size += len(t.Body)
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
	r.size -= len(e.t.Body)
}
