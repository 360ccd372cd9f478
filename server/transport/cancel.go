package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/wake"
)

// A client that no longer wants a call sends notifications/cancelled naming
// the call's request id. mcp-go cancels the call's context, but only on the
// node that got the notification, and a cancelled context looks the same as
// a client that went away or a plugin that stops. So the transport keeps the
// cancellation itself, cluster-wide: a call that waits registers itself in
// the KV store under its person, session and request id; a notification for
// it, on any node, marks that key cancelled (a notification for a call that
// is not registered keeps nothing, so a client cannot fill the store); and
// the waiting call, on whatever node, reads the mark. Only a request with a
// session can be cancelled this way: without one, a request id names no one
// call.

const (
	cancelPrefix = "mcpcancel_"
	// cancelLifetime outlives every call that registers: a call that waits
	// for the person answers within 20 seconds of its start (approval's
	// maxCallWait), and a mark left by a node that stopped goes soon after.
	cancelLifetime = 2 * time.Minute
	// maxRequestIDBytes bounds the request id a cancellation may name:
	// clients number their requests or use short strings.
	maxRequestIDBytes = 256
)

var (
	markWaiting   = []byte("waiting")
	markCancelled = []byte("cancelled")
)

// callRef is the tools/call a request carries: whose it is and how to end
// it without an answer.
type callRef struct {
	kv   kvstore.KV
	log  Logger
	key  string
	drop context.CancelFunc
	// wake wakes the waiting call when a node marks it cancelled (nil: it
	// reads its mark every wake.SafetyLook alone).
	wake *wake.Hub
}

// cancelTopic is the wake topic of a call's mark: its key's digest, cut to
// a topic's length (128 bits, as unique as any request of a person).
func cancelTopic(key string) string {
	return wake.Cancel(strings.TrimPrefix(key, cancelPrefix)[:32])
}

type callRefKey struct{}

// cancelKey is the key of one call: a digest, so that a long session or
// request id cannot exceed the KV store's key length.
func cancelKey(userID, sessionID, requestID string) string {
	sum := sha256.Sum256([]byte(userID + "\x00" + sessionID + "\x00" + requestID))
	return cancelPrefix + hex.EncodeToString(sum[:])
}

// canonicalID is a JSON-RPC id as one string whatever its spacing: 7 and
// "7" stay apart, as JSON-RPC keeps them.
func canonicalID(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || len(raw) > maxRequestIDBytes {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", false
	}
	switch v.(type) {
	case string, json.Number:
	default:
		return "", false
	}
	out, err := json.Marshal(v)
	return string(out), err == nil
}

// cancelledRequest is the request id a notifications/cancelled names.
func cancelledRequest(env envelope) (string, bool) {
	if env.method != string(mcp.MethodNotificationCancelled) {
		return "", false
	}
	return canonicalID(env.params.RequestID)
}

// cancelCall marks the session's call named by a notifications/cancelled as
// cancelled, if that call waits (on any node). It runs before mcp-go sees
// the notification, so a call on this node finds the mark when mcp-go
// cancels its context.
func (t *Transport) cancelCall(userID, sessionID string, env envelope) {
	id, ok := cancelledRequest(env)
	if !ok || t.opts.Answers == nil {
		return
	}
	key := cancelKey(userID, sessionID, id)
	marked, err := t.opts.Answers.CompareAndSet(key, markWaiting, markCancelled, cancelLifetime)
	if err != nil {
		t.opts.Log.Warn("Could not record a client's cancellation of a call", "user_id", userID, "error", err.Error())
	}
	if marked && t.opts.Wake != nil {
		t.opts.Wake.Happened(cancelTopic(key), "")
	}
}

// cancellable gives a tools/call of a session what WatchCancel needs; the
// returned function releases the request's context.
func (t *Transport) cancellable(ctx context.Context, userID, sessionID string, env envelope) (context.Context, context.CancelFunc) {
	if env.method != string(mcp.MethodToolsCall) || t.opts.Answers == nil {
		return ctx, func() {}
	}
	id, ok := canonicalID(env.id)
	if !ok {
		return ctx, func() {}
	}
	ctx, drop := context.WithCancel(ctx)
	return context.WithValue(ctx, callRefKey{}, &callRef{kv: t.opts.Answers, log: t.opts.Log,
		key: cancelKey(userID, sessionID, id), drop: drop, wake: t.opts.Wake}), drop
}

// Cancellation is a waiting call's view of its client's notifications/cancelled.
type Cancellation struct {
	ref       *callRef
	mu        sync.Mutex
	cancelled bool
}

type cancellationKey struct{}

// WatchCancel registers the call as one its client may cancel from any node
// while it waits, and returns a context that also ends when the client
// cancels it; stop unregisters it. A call without a session, or one already
// watched, gets its own context back and a stop that does nothing.
func WatchCancel(ctx context.Context) (context.Context, func()) {
	if _, ok := ctx.Value(cancellationKey{}).(*Cancellation); ok {
		return ctx, func() {}
	}
	ref, _ := ctx.Value(callRefKey{}).(*callRef)
	if ref == nil {
		return ctx, func() {}
	}
	if _, err := ref.kv.CompareAndSet(ref.key, nil, markWaiting, cancelLifetime); err != nil {
		// Without the key the call cannot learn of a cancellation on another
		// node; on this one mcp-go still cancels it.
		ref.log.Warn("Could not register a waiting call for cancellation", "error", err.Error())
	}
	c := &Cancellation{ref: ref}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, cancellationKey{}, c))
	done := make(chan struct{})
	go c.poll(ctx, cancel, done)
	return ctx, func() {
		close(done)
		cancel()
		c.unregister()
	}
}

// poll reads the call's mark until the client cancels the call or the call
// ends.
func (c *Cancellation) poll(ctx context.Context, cancel context.CancelFunc, done <-chan struct{}) {
	// Woken when a node marks it; a slow look besides, for a wake lost.
	var woken <-chan string
	if c.ref.wake != nil {
		var stop func()
		woken, stop = c.ref.wake.Wait(cancelTopic(c.ref.key))
		defer stop()
	}
	tick := time.NewTicker(wake.SafetyLook)
	defer tick.Stop()
	// A cancellation marked before the wake was registered is seen now.
	if c.read() {
		cancel()
		return
	}
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			// Cancelled on this node by mcp-go, or the request ended: the
			// mark tells which.
			return
		case <-woken:
		case <-tick.C:
		}
		if c.read() {
			cancel()
			return
		}
	}
}

// read reads the mark, remembering a cancellation once seen.
func (c *Cancellation) read() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled {
		return true
	}
	raw, err := c.ref.kv.Get(c.ref.key)
	if err != nil {
		return false // read again on the next tick
	}
	c.cancelled = bytes.Equal(raw, markCancelled)
	return c.cancelled
}

func (c *Cancellation) unregister() {
	raw, err := c.ref.kv.Get(c.ref.key)
	if err != nil || raw == nil {
		return
	}
	// It expires by itself if this fails.
	_, _ = c.ref.kv.CompareAndSet(c.ref.key, raw, nil, 0)
}

// CancelledByClient tells whether the call's client cancelled it with
// notifications/cancelled, on any node: not when the connection dropped or
// the plugin is stopping.
func CancelledByClient(ctx context.Context) bool {
	c, ok := ctx.Value(cancellationKey{}).(*Cancellation)
	return ok && c.read()
}

// DropAnswer ends the call without a response, as the protocol asks for a
// cancelled request: whatever the handler returns afterwards is not sent.
func DropAnswer(ctx context.Context) {
	if ref, ok := ctx.Value(callRefKey{}).(*callRef); ok {
		ref.drop()
	}
}
