package transport

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A subscriptions/listen stream (protocol 2026-07-28) is served by mcp-go,
// which acknowledges it and writes the list changes it asked for. Its
// resource subscriptions (resourceSubscriptions) are the transport's: each
// stream has an id of its own, standing for a session, under which its
// subscriptions are kept (Options.Subscriptions) and to which notices are
// sent (NotifySession) on whichever node. The node holding the stream is
// named in the KV store while it is open, so another node can reach it
// through its inbox (inbox.go), and the notices queued for it are handed to
// mcp-go's session of the stream, which tags each with the subscription.

const (
	// listenIDPrefix marks the id of a listen stream among session ids.
	listenIDPrefix = "listen_"
	listenPrefix   = "mcplisten_"
	// listenLease is how long the KV store names the node of an open
	// listen stream without its renewal, which comes every half of it: a
	// node that stops leaves its streams named this long at most, and
	// notices for them expire unread (noticeInboxFor).
	listenLease = 10 * time.Minute
	// maxListenResources bounds the resources one listen stream asks to
	// subscribe to that are looked at: a person keeps at most 64
	// subscriptions (live.MaxPerPerson), so more are refused anyway, and
	// each one asked costs a lookup in Mattermost.
	maxListenResources = 64
)

type listenStreamKey struct{}

func isListenID(id string) bool { return strings.HasPrefix(id, listenIDPrefix) }

func listenKey(id string) string { return listenPrefix + id }

func listenStreamFrom(ctx context.Context) *stream {
	s, _ := ctx.Value(listenStreamKey{}).(*stream)
	return s
}

// listenNode is the node holding the listen stream id ("" when none does).
func (t *Transport) listenNode(id string) (string, error) {
	raw, err := t.sessions.index.Get(listenKey(id))
	return string(raw), err
}

// openListen names this node as the holder of the listen stream s, and
// subscribes it to the resources its request asks for that the person may
// read; its message (env's) then asks only for those. It returns what ends
// the subscriptions and the naming when the stream closes.
func (t *Transport) openListen(ctx context.Context, s *stream, env *envelope) func() {
	if err := t.sessions.index.Set(listenKey(s.sessionID), []byte(t.sessions.nodeID()), listenLease); err != nil {
		t.opts.Log.Warn("Could not name the node of a subscriptions/listen stream; notices from other nodes will not reach it", "user_id", s.userID, "error", err.Error())
	}
	t.pollInbox()
	var subscribed []string
	if t.opts.Subscriptions != nil {
		var notifications map[string]json.RawMessage
		var uris []string
		if json.Unmarshal(env.params.Notifications, &notifications) == nil && json.Unmarshal(notifications["resourceSubscriptions"], &uris) == nil {
			for _, uri := range uris[:min(len(uris), maxListenResources)] {
				if err := t.opts.Subscriptions.Subscribe(ctx, s.userID, s.sessionID, uri); err != nil {
					t.opts.Log.Debug("A subscriptions/listen stream's resource was not subscribed", "user_id", s.userID, "error", err.Error())
					continue
				}
				subscribed = append(subscribed, uri)
			}
			if len(subscribed) != len(uris) {
				// Acknowledged are only the resources subscribed.
				notifications["resourceSubscriptions"], _ = json.Marshal(subscribed)
				env.rewriteParams(func(params map[string]json.RawMessage) bool {
					params["notifications"], _ = json.Marshal(notifications)
					return true
				})
			}
		}
	}
	return func() {
		for _, uri := range subscribed {
			if err := t.opts.Subscriptions.Unsubscribe(context.WithoutCancel(ctx), s.userID, s.sessionID, uri); err != nil {
				t.opts.Log.Warn("Could not end a closed subscriptions/listen stream's subscription; it ends at the next post", "user_id", s.userID, "error", err.Error())
			}
		}
		if err := t.sessions.index.Delete(listenKey(s.sessionID)); err != nil {
			t.opts.Log.Debug("Could not forget the node of a closed subscriptions/listen stream; it is forgotten within its lease", "error", err.Error())
		}
	}
}

// forwardListen hands what is queued for the listen stream s to mcp-go's
// session of it, which writes each tagged with the subscription, and
// renews the stream's naming, until the stream or its request ends.
func (t *Transport) forwardListen(ctx context.Context, s *stream, session server.ClientSession) {
	renew := time.NewTicker(listenLease / 2)
	defer renew.Stop()
	out := session.NotificationChannel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.end:
			return
		case <-renew.C:
			_ = t.sessions.index.Set(listenKey(s.sessionID), []byte(t.sessions.nodeID()), listenLease)
		case <-s.wake:
			for _, raw := range s.takeQueued() {
				var n mcp.JSONRPCNotification
				if json.Unmarshal(raw, &n) != nil {
					continue
				}
				select {
				case out <- n:
				case <-ctx.Done():
					return
				}
			}
		}
	}
}

// listenHooks starts forwarding for each listen stream once mcp-go made
// its session.
func (t *Transport) listenHooks(hooks *server.Hooks) {
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, _ *mcp.SubscriptionsListenRequest) {
		s := listenStreamFrom(ctx)
		session := server.ClientSessionFromContext(ctx)
		if s != nil && session != nil {
			go t.forwardListen(ctx, s, session)
		}
	})
}
