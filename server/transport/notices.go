package transport

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Change notices: a client hears that a list it read (the tools, and the
// prompts and resources once they are offered) changed, so it lists again
// without reconnecting. A client of 2025-11-25 and earlier hears it on the
// standalone GET stream of its session (getstream.go); a client of
// 2026-07-28 on the subscriptions/listen stream it opened (mcp-go serves
// it; the transport only counts it). Every node tells the streams open on
// it: each node hears every configuration change itself (Mattermost calls
// OnConfigurationChange on every node), so nothing travels between nodes,
// and every other request of a session stays servable by any node.

// List is a list whose changes clients hear of; lists combine with |.
type List uint32

const (
	// ToolsList is tools/list: notifications/tools/list_changed.
	ToolsList List = 1 << iota
	// PromptsList is prompts/list: notifications/prompts/list_changed.
	PromptsList
	// ResourcesList is resources/list and resources/templates/list:
	// notifications/resources/list_changed.
	ResourcesList
)

// lists is every List with its notification, in the order they are sent.
var lists = []struct {
	list   List
	method string
}{
	{ToolsList, mcp.MethodNotificationToolsListChanged},
	{PromptsList, mcp.MethodNotificationPromptsListChanged},
	{ResourcesList, mcp.MethodNotificationResourcesListChanged},
}

const (
	// MaxStreamsPerPerson bounds the notice streams one person keeps open
	// on one node: a person runs a few clients (a desktop app, an editor, a
	// few agents), each with one stream. Past it the person's oldest stream
	// ends to make room: a client that reconnects after a dropped network
	// is the one that is alive, the stream it left may not be.
	MaxStreamsPerPerson = 16
	// maxStreamsPerNode bounds the notice streams of one node, each an open
	// request of a few KiB in the plugin and in Mattermost: a thousand is a
	// few MiB. Past it a new GET stream is refused with 405 (no stream
	// offered now) and a subscriptions/listen with 503, each with
	// Retry-After.
	maxStreamsPerNode = 1000
	// streamsFullRetry is the Retry-After of a stream refused at the
	// node's bound: streams end when clients close, minutes apart.
	streamsFullRetry = time.Minute
)

var errStreamsFull = errors.New("this node holds the most notice streams it may")

// stream is one open notice stream.
type stream struct {
	userID, sessionID string
	// listen is a subscriptions/listen stream: mcp-go delivers its notices
	// (see ListChanged); the others are GET streams, which this package
	// writes.
	listen bool
	// owned is a listen stream the transport serves itself
	// (tasklisten.go), hearing the lists in lists.
	owned atomic.Bool
	lists List
	// pending is the lists changed since the stream last wrote; a change
	// told twice before it is written is told once (a client lists again
	// anyway), so a stream holds no queue.
	pending atomic.Uint32
	// queued is the notifications for this session alone not yet written
	// (sessionnotify.go), oldest first, at most maxQueuedNotices.
	queuedMu sync.Mutex
	queued   [][]byte
	wake     chan struct{}
	end      chan struct{}
	once     sync.Once
}

func (s *stream) stop() { s.once.Do(func() { close(s.end) }) }

// take returns and clears the lists changed since the last take.
func (s *stream) take() List { return List(s.pending.Swap(0)) }

// noticeStreams is the notice streams open on this node.
type noticeStreams struct {
	mu sync.Mutex
	// byPerson holds each person's streams, oldest first; at most
	// MaxStreamsPerPerson each and maxStreamsPerNode in all.
	byPerson map[string][]*stream
	count    int
}

// open counts a new stream. A GET stream replaces an older one of the same
// session on this node (a client keeps one); at the person's bound the
// oldest stream of the person ends; at the node's bound nothing opens.
func (n *noticeStreams) open(userID, sessionID string, listen bool) (*stream, error) {
	s := &stream{userID: userID, sessionID: sessionID, listen: listen, wake: make(chan struct{}, 1), end: make(chan struct{})}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byPerson == nil {
		n.byPerson = map[string][]*stream{}
	}
	mine := n.byPerson[userID]
	kept := mine[:0]
	for _, old := range mine {
		if !listen && !old.listen && old.sessionID == sessionID {
			old.stop()
			n.count--
			continue
		}
		kept = append(kept, old)
	}
	mine = kept
	if len(mine) >= MaxStreamsPerPerson {
		mine[0].stop()
		mine = mine[1:]
		n.count--
	}
	if n.count >= maxStreamsPerNode {
		n.byPerson[userID] = mine
		if len(mine) == 0 {
			delete(n.byPerson, userID)
		}
		return nil, errStreamsFull
	}
	n.byPerson[userID] = append(mine, s)
	n.count++
	return s, nil
}

// close uncounts a stream that ended (it may have been ended to make room
// already).
func (n *noticeStreams) close(s *stream) {
	s.stop()
	n.mu.Lock()
	defer n.mu.Unlock()
	mine := n.byPerson[s.userID]
	for i, other := range mine {
		if other == s {
			mine = append(mine[:i:i], mine[i+1:]...)
			n.count--
			break
		}
	}
	if len(mine) == 0 {
		delete(n.byPerson, s.userID)
		return
	}
	n.byPerson[s.userID] = mine
}

// endWhere ends the streams that match, as a deactivated person's or an
// ended session's.
func (n *noticeStreams) endWhere(match func(*stream) bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, mine := range n.byPerson {
		for _, s := range mine {
			if match(s) {
				s.stop()
			}
		}
	}
}

// tell marks changed on every GET stream and wakes it.
func (n *noticeStreams) tell(changed List) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, mine := range n.byPerson {
		for _, s := range mine {
			if s.listen && !s.owned.Load() {
				continue
			}
			s.pending.Or(uint32(changed))
			s.rouse()
		}
	}
}

// rouse wakes the stream to write what is pending.
func (s *stream) rouse() {
	select {
	case s.wake <- struct{}{}:
	default: // already woken: it writes everything pending
	}
}

// OpenStreams is how many notice streams are open on this node, GET and
// subscriptions/listen.
func (t *Transport) OpenStreams() int {
	t.notices.mu.Lock()
	defer t.notices.mu.Unlock()
	return t.notices.count
}

// ListChanged tells every client connected to this node that the lists
// named changed: notifications/<list>/list_changed on every GET stream of a
// 2025-11-25 session and on every subscriptions/listen stream that asked
// for that list. The plugin calls it on every node where the lists change,
// which for settings is every node (OnConfigurationChange runs on each).
// Tell only lists whose capability declares listChanged (the transport
// declares it for tools; server.WithPromptCapabilities(true) and
// server.WithResourceCapabilities(_, true) do for the others): a client
// listens only for those.
func (t *Transport) ListChanged(changed List) {
	if changed == 0 {
		return
	}
	t.notices.tell(changed)
	for _, l := range lists {
		if changed&l.list != 0 {
			// Reaches the subscriptions/listen streams open here, each only
			// with what it subscribed to (mcp-go filters and tags them).
			t.MCP.SendNotificationToAllClients(l.method, nil)
		}
	}
	t.opts.Log.Info("Told connected MCP clients that lists changed", "lists", changed.String(), "streams", t.OpenStreams())
}

// String names the lists, for the log.
func (l List) String() string {
	s := ""
	for _, each := range lists {
		if l&each.list != 0 {
			if s != "" {
				s += ","
			}
			s += each.method
		}
	}
	return s
}
