// Package wake wakes a wait held on this node when what it waits for has
// happened on any node: a reply posted, a file given. A wait registers its
// topic; the node where the thing happened wakes its own waits at once and
// tells the nodes that registered the topic, by a plugin cluster event
// (quick, but a Mattermost without a cluster licence delivers none) and by
// a word in each such node's KV inbox, which a node reads while it holds a
// wait. So a node looks at one small key a few times a second however many
// waits it holds, where each wait used to read Mattermost every second.
package wake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

const (
	// InboxPoll is how often a node holding a wait reads its inbox: the
	// worst delay of a wake from another node on a cluster without events.
	// An empty inbox costs one read of a missing key.
	InboxPoll = 250 * time.Millisecond
	// SafetyLook is how often a wait looks for itself whatever it heard,
	// for a wake lost (a node that stopped before it read its inbox, an
	// inbox past its bound). It is longer than a call holds (20 s): a call
	// looks when it begins and when its time is up anyway, so within a
	// call a lost wake costs at most the rest of the call, and the looks
	// in between would be the cost this package removes.
	SafetyLook = 30 * time.Second
	// registeredFor is how long a topic's entry names a node; a node that
	// still waits renews it at half that, and an entry of a node that
	// stopped is gone within it.
	registeredFor = 2 * time.Minute
	// maxNodes bounds the nodes one topic's entry names: more than any
	// cluster runs.
	maxNodes = 64
	// maxInbox bounds a node's inbox, the oldest dropped past it: four
	// reads a second take 512 words each, far more than the posts of a
	// busy server.
	maxInbox = 512
	// inboxFor is how long a word waits in an inbox: a node that holds a
	// wait takes it within a poll.
	inboxFor = 30 * time.Second
	// maxTopicBytes bounds a topic: a kind and a Mattermost id.
	maxTopicBytes = 64
	// maxDetailBytes bounds a wake's detail: a Mattermost id.
	maxDetailBytes = 64

	topicPrefix = "wkt_"
	inboxPrefix = "wki_"
)

// Channel is the topic of a post made, edited or deleted in a channel.
func Channel(id string) string { return "c:" + id }

// Write is the topic of a write that ended (answered, done, withdrawn).
func Write(id string) string { return "w:" + id }

// Cancel is the topic of a call its client cancelled, by its mark's digest.
func Cancel(digest string) string { return "x:" + digest }

// FileRequest is the topic of a file request answered.
func FileRequest(id string) string { return "f:" + id }

// Hub is this node's side: its waits and its inbox.
type Hub struct {
	KV kvstore.KV
	// Publish sends a cluster event with data to every other node; nil
	// sends none.
	Publish func(data []byte)
	// Warn logs what could not be done.
	Warn func(msg string, keyValuePairs ...any)

	once    sync.Once
	node    string
	mu      sync.Mutex
	waits   map[string]map[chan string]struct{}
	renewed map[string]time.Time
	quit    chan struct{}
}

func (h *Hub) init() {
	h.once.Do(func() {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		h.node = hex.EncodeToString(b)
		h.waits = map[string]map[chan string]struct{}{}
		h.renewed = map[string]time.Time{}
	})
}

// wokenBuffer bounds the wakes a wait has not yet looked at: past it the
// oldest are dropped, and its next SafetyLook finds what they named.
const wokenBuffer = 16

// Wait registers a wait for topic: woken receives the detail of each time
// the topic happened on any node (for a channel, the post's id; "" when
// the topic says all); done ends the wait. A wait looks for itself when
// woken, and at least every SafetyLook.
func (h *Hub) Wait(topic string) (woken <-chan string, done func()) {
	h.init()
	ch := make(chan string, wokenBuffer)
	h.mu.Lock()
	if h.waits[topic] == nil {
		h.waits[topic] = map[chan string]struct{}{}
	}
	h.waits[topic][ch] = struct{}{}
	renew := time.Since(h.renewed[topic]) > registeredFor/2
	if renew {
		h.renewed[topic] = time.Now()
	}
	if h.quit == nil {
		h.quit = make(chan struct{})
		go h.poll(h.quit)
	}
	h.mu.Unlock()
	if renew {
		h.register(topic)
	}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.waits[topic], ch)
		if len(h.waits[topic]) == 0 {
			delete(h.waits, topic)
		}
		if len(h.waits) == 0 && h.quit != nil {
			close(h.quit)
			h.quit = nil
		}
	}
}

// Waits is how many waits this node holds.
func (h *Hub) Waits() int {
	h.init()
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, w := range h.waits {
		n += len(w)
	}
	return n
}

// Happened wakes the waits for topic on every node, with detail (at most
// maxDetailBytes; a post's id, which a node reads for itself: its own
// caches may not have heard of a post made on another node).
func (h *Hub) Happened(topic, detail string) {
	h.init()
	if len(detail) > maxDetailBytes {
		detail = ""
	}
	h.wake(topic, detail)
	raw, err := h.KV.Get(topicPrefix + topic)
	if err != nil {
		h.warn("Could not read which servers wait for something that happened; their waits find it at their next look", "error", err.Error())
		return
	}
	nodes := liveNodes(raw, time.Now())
	delete(nodes, h.node)
	if len(nodes) == 0 {
		return
	}
	if h.Publish != nil {
		h.Publish([]byte(topic + "\n" + detail))
	}
	for node := range nodes {
		h.tell(node, word{Topic: topic, Detail: detail})
	}
}

// word is one wake in a node's inbox.
type word struct {
	Topic  string `json:"t"`
	Detail string `json:"d,omitempty"`
}

// Heard is a cluster event of another node: the topic it names happened.
func (h *Hub) Heard(data []byte) {
	h.init()
	topic, detail, _ := strings.Cut(string(data), "\n")
	if len(topic) <= maxTopicBytes && len(detail) <= maxDetailBytes {
		h.wake(topic, detail)
	}
}

func (h *Hub) wake(topic, detail string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.waits[topic] {
		select {
		case ch <- detail:
		default: // its buffer is full: its next safety look finds it
		}
	}
}

func (h *Hub) warn(msg string, kv ...any) {
	if h.Warn != nil {
		h.Warn(msg, kv...)
	}
}

// liveNodes reads a topic's entry: node → Unix second its entry ends.
func liveNodes(raw []byte, now time.Time) map[string]int64 {
	nodes := map[string]int64{}
	if raw != nil && json.Unmarshal(raw, &nodes) != nil {
		return map[string]int64{}
	}
	for node, end := range nodes {
		if end <= now.Unix() {
			delete(nodes, node)
		}
	}
	return nodes
}

// register names this node in topic's entry.
func (h *Hub) register(topic string) {
	err := kvstore.Update(h.KV, topicPrefix+topic, func(old []byte) (kvstore.Change, error) {
		nodes := liveNodes(old, time.Now())
		if len(nodes) >= maxNodes {
			if _, ok := nodes[h.node]; !ok {
				return kvstore.Change{}, kvstore.Unchanged
			}
		}
		nodes[h.node] = time.Now().Add(registeredFor).Unix()
		raw, err := json.Marshal(nodes)
		return kvstore.Change{Value: raw, TTL: registeredFor}, err
	})
	if err != nil {
		h.warn("Could not note that this server waits for something; its waits find it at their next look", "topic", topic, "error", err.Error())
		h.mu.Lock()
		delete(h.renewed, topic)
		h.mu.Unlock()
	}
}

// tell leaves w in node's inbox.
func (h *Hub) tell(node string, w word) {
	err := kvstore.Update(h.KV, inboxPrefix+node, func(old []byte) (kvstore.Change, error) {
		var words []word
		if old != nil && json.Unmarshal(old, &words) != nil {
			words = nil
		}
		if slices.Contains(words, w) {
			return kvstore.Change{}, kvstore.Unchanged
		}
		words = append(words, w)
		if len(words) > maxInbox {
			words = words[len(words)-maxInbox:]
		}
		raw, err := json.Marshal(words)
		return kvstore.Change{Value: raw, TTL: inboxFor}, err
	})
	if err != nil {
		h.warn("Could not tell another server that something it waits for happened; its waits find it at their next look", "error", err.Error())
	}
}

// poll reads this node's inbox while it holds a wait, and renews the
// entries of the topics still waited for.
func (h *Hub) poll(quit chan struct{}) {
	tick := time.NewTicker(InboxPoll)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		key := inboxPrefix + h.node
		raw, err := h.KV.Get(key)
		if err == nil && raw != nil {
			if ok, _ := h.KV.CompareAndDelete(key, raw); ok {
				var words []word
				_ = json.Unmarshal(raw, &words)
				for _, w := range words {
					h.wake(w.Topic, w.Detail)
				}
			}
		}
		h.mu.Lock()
		var stale []string
		for topic := range h.waits {
			if time.Since(h.renewed[topic]) > registeredFor/2 {
				h.renewed[topic] = time.Now()
				stale = append(stale, topic)
			}
		}
		for topic := range h.renewed {
			if h.waits[topic] == nil {
				delete(h.renewed, topic)
			}
		}
		h.mu.Unlock()
		for _, topic := range stale {
			h.register(topic)
		}
	}
}
