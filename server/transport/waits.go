package transport

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A person's share of what waits on this node (rule 15): calls held while
// they wait for the person or a reply (a confirmed write, request_file,
// wait_for_reply) and task results held open. Each is a request kept open
// and a wait that looks now and then; past the share a request is answered
// at once, without waiting, saying what already waits and what to call, so
// one person's fleet cannot hold the node's requests and processor from
// everyone else. Streams (MaxStreamsPerPerson), tasks (tasks.MaxPerPerson),
// pending writes and file requests have their own bounds.

// MaxHeldWaits bounds the waits one person holds on one node at once: a
// few clients, each waiting on a reply, a write and a file, with room to
// spare. A node holds at most one request per wait, so a person's share is
// ten of its requests whatever their rate allows.
const MaxHeldWaits = 10

// waitShares counts each person's held waits on this node.
type waitShares struct {
	mu   sync.Mutex
	held map[string]int
}

type waitSharesKey struct{}

// unheldKey marks a request answered without waiting: how many waits its
// person held then (0: it was not).
type unheldKey struct{}

// withWaitShares hands the node's shares to the request's handlers, and a
// place to note that the request was not held.
func (t *Transport) withWaitShares(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, unheldKey{}, new(atomic.Int32))
	return context.WithValue(ctx, waitSharesKey{}, &t.waits)
}

// HoldWait takes one of the person's held waits on this node for the
// request of ctx: ok is false when they hold MaxHeldWaits already (then
// held is how many, and the request answers without waiting). release
// gives it back; it is safe to call once whatever ok is.
func HoldWait(ctx context.Context) (release func(), held int, ok bool) {
	s, _ := ctx.Value(waitSharesKey{}).(*waitShares)
	userID := callerIDFrom(ctx)
	if s == nil || userID == "" {
		return func() {}, 0, true
	}
	release, held, ok = s.hold(userID)
	if n, _ := ctx.Value(unheldKey{}).(*atomic.Int32); !ok && n != nil {
		n.Store(int32(held))
	}
	return release, held, ok
}

// noteUnheld begins the answer of a call that did not wait, for want of
// the person's share, with why: the rest of the answer says what to call.
func (t *Transport) noteUnheld(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		n, _ := ctx.Value(unheldKey{}).(*atomic.Int32)
		if err != nil || res == nil || n == nil || n.Load() == 0 {
			return res, err
		}
		note := mcp.NewTextContent(WaitsFull(int(n.Load())))
		res.Content = append([]mcp.Content{note}, res.Content...)
		return res, err
	}
}

func (s *waitShares) hold(userID string) (release func(), held int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]int{}
	}
	if n := s.held[userID]; n >= MaxHeldWaits {
		return func() {}, n, false
	}
	s.held[userID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.held[userID]--; s.held[userID] <= 0 {
				delete(s.held, userID)
			}
		})
	}, s.held[userID], true
}

// WaitsFull is what a request past the person's share is told: how many
// of their requests wait, and that this one did not.
func WaitsFull(held int) string {
	return fmt.Sprintf("You already have %d requests waiting on this server, as many as one person may hold at once (%d), so this one answered without waiting.", held, MaxHeldWaits)
}
