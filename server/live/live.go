// Package live keeps the subscriptions of MCP sessions to a channel's posts
// or a thread (resources/subscribe on mattermost://channel/… and
// mattermost://thread/…), and tells each subscribed session when a post
// there is created, edited or deleted (notifications/resources/updated).
//
// Subscriptions live in the plugin KV store: each person's list (bounded)
// and each channel's index of who watches it (bounded), so the node where a
// post is made, whichever it is, finds its subscribers with one read. Access
// is checked when subscribing and again before each notice: a person who
// can no longer read the channel hears nothing more, and their
// subscription ends. A subscription ends with its session.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const (
	// MaxPerPerson bounds one person's subscriptions over all their
	// sessions: a client follows a few channels and threads while it works
	// (an agent waiting on a few questions); 64 is many clients' worth.
	// Past it a subscription is refused, naming resources/unsubscribe.
	MaxPerPerson = 64
	// MaxPerChannel bounds the subscriptions to one channel's posts and
	// threads, over all people: each post there costs a notice per
	// subscriber; past it a subscription is refused.
	MaxPerChannel = 1000
	personPrefix  = "lvp_"
	channelPrefix = "lvc_"
)

// Subscription is one session's subscription to one resource.
type Subscription struct {
	UserID    string `json:"u"`
	Session   string `json:"s"`
	URI       string `json:"r"`
	ChannelID string `json:"c"`
	// RootID is the thread watched ("" for the whole channel).
	RootID string `json:"t,omitempty"`
}

func (s Subscription) same(o Subscription) bool {
	return s.UserID == o.UserID && s.Session == o.Session && s.URI == o.URI
}

// Post is a post that changed, as far as subscriptions care.
type Post struct {
	ID        string
	ChannelID string
	RootID    string
}

// Service keeps the subscriptions and tells subscribers.
type Service struct {
	KV kvstore.KV
	// Watch resolves a URI as the signed-in person of ctx to what it
	// watches (resources.Serving.Watch).
	Watch func(ctx context.Context, uri string) (resources.Target, error)
	// Readers are which of userIDs can read a channel now
	// (mattermost.Gateway.Readers).
	Readers func(channelID string, userIDs []string) (map[string]bool, error)
	// Notify tells a session that uri changed, and says whether the
	// session still exists (false ends its subscriptions).
	Notify func(userID, session, uri string) bool
	// Alive is whether a session (or listen stream) is still open: a
	// person at their bound is not refused for subscriptions of sessions
	// that ended (nil: all are).
	Alive func(userID, session string) bool
}

// ErrTooMany is a subscription past a bound.
var ErrTooMany = transport.ErrTooManySubscriptions

func personKey(userID string) string     { return personPrefix + userID }
func channelKey(channelID string) string { return channelPrefix + channelID }

// Subscribe subscribes the person's session to uri, once they may read it.
func (s *Service) Subscribe(ctx context.Context, userID, session, uri string) error {
	target, err := s.Watch(ctx, uri)
	if err != nil {
		return err
	}
	sub := Subscription{UserID: userID, Session: session, URI: uri, ChannelID: target.ChannelID, RootID: target.RootID}
	added := false
	var ended []Subscription
	err = update(s.KV, personKey(userID), func(subs []Subscription) ([]Subscription, error) {
		if slices.ContainsFunc(subs, sub.same) {
			added = false
			return nil, kvstore.Unchanged
		}
		if len(subs) >= MaxPerPerson {
			subs, ended = s.withoutEnded(subs)
		}
		if len(subs) >= MaxPerPerson {
			return nil, fmt.Errorf("%w: %w", ErrTooMany, refusal.New(fmt.Sprintf("You have %d subscriptions, as many as one person may keep; nothing was subscribed.", MaxPerPerson),
				"Unsubscribe (resources/unsubscribe) from a channel or thread you no longer follow, then subscribe again."))
		}
		added = true
		return append(subs, sub), nil
	})
	for _, e := range ended {
		_ = s.dropFromChannel(e) // at the latest, the channel's next post drops it
	}
	if err != nil || !added {
		return err
	}
	err = update(s.KV, channelKey(sub.ChannelID), func(subs []Subscription) ([]Subscription, error) {
		if slices.ContainsFunc(subs, sub.same) {
			return nil, kvstore.Unchanged
		}
		if len(subs) >= MaxPerChannel {
			return nil, fmt.Errorf("%w: %w", ErrTooMany, refusal.New(fmt.Sprintf("This channel has %d subscriptions, as many as a channel may have; nothing was subscribed.", MaxPerChannel),
				"Read it again later (read_channel or resources/read) instead."))
		}
		return append(subs, sub), nil
	})
	if err != nil {
		_ = s.drop(sub) // the person's list names only what the channel's index holds
	}
	return err
}

// withoutEnded splits subs into those whose session is open and those
// whose session ended.
func (s *Service) withoutEnded(subs []Subscription) (open, ended []Subscription) {
	if s.Alive == nil {
		return subs, nil
	}
	for _, sub := range subs {
		if s.Alive(sub.UserID, sub.Session) {
			open = append(open, sub)
		} else {
			ended = append(ended, sub)
		}
	}
	return open, ended
}

// Unsubscribe ends the person's session's subscription to uri (none: no
// change).
func (s *Service) Unsubscribe(_ context.Context, userID, session, uri string) error {
	var found *Subscription
	err := update(s.KV, personKey(userID), func(subs []Subscription) ([]Subscription, error) {
		want := Subscription{UserID: userID, Session: session, URI: uri}
		i := slices.IndexFunc(subs, want.same)
		if i < 0 {
			return nil, kvstore.Unchanged
		}
		f := subs[i]
		found = &f
		return slices.Delete(subs, i, i+1), nil
	})
	if err != nil || found == nil {
		return err
	}
	return s.dropFromChannel(*found)
}

// drop removes a subscription from both lists.
func (s *Service) drop(sub Subscription) error {
	err := update(s.KV, personKey(sub.UserID), func(subs []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(subs, sub.same)
		if i < 0 {
			return nil, kvstore.Unchanged
		}
		return slices.Delete(subs, i, i+1), nil
	})
	return errors.Join(err, s.dropFromChannel(sub))
}

func (s *Service) dropFromChannel(sub Subscription) error {
	return update(s.KV, channelKey(sub.ChannelID), func(subs []Subscription) ([]Subscription, error) {
		i := slices.IndexFunc(subs, sub.same)
		if i < 0 {
			return nil, kvstore.Unchanged
		}
		return slices.Delete(subs, i, i+1), nil
	})
}

// Changed tells every session subscribed to the post's channel, or to its
// thread, that it changed: the post was created, edited or deleted. Who can
// no longer read the channel hears nothing and is unsubscribed; so is a
// session that ended.
func (s *Service) Changed(p Post) error {
	raw, err := s.KV.Get(channelKey(p.ChannelID))
	if err != nil || raw == nil {
		return err
	}
	var subs []Subscription
	if json.Unmarshal(raw, &subs) != nil {
		return nil
	}
	var told []Subscription
	var people []string
	for _, sub := range subs {
		if sub.RootID != "" && sub.RootID != p.ID && sub.RootID != p.RootID {
			continue
		}
		told = append(told, sub)
		if !slices.Contains(people, sub.UserID) {
			people = append(people, sub.UserID)
		}
	}
	if len(told) == 0 {
		return nil
	}
	// Asked anew for every post, for everyone at once: someone removed
	// from the channel a moment ago hears of nothing posted after.
	readable, err := s.Readers(p.ChannelID, people)
	if err != nil {
		return err
	}
	var errs []error
	for _, sub := range told {
		if !readable[sub.UserID] || !s.Notify(sub.UserID, sub.Session, sub.URI) {
			errs = append(errs, s.drop(sub))
		}
	}
	return errors.Join(errs...)
}

// update changes a list of subscriptions in place; an empty list is removed.
func update(kv kvstore.KV, key string, change func([]Subscription) ([]Subscription, error)) error {
	return kvstore.Update(kv, key, func(old []byte) (kvstore.Change, error) {
		var subs []Subscription
		if old != nil && json.Unmarshal(old, &subs) != nil {
			subs = nil // a broken list starts again
		}
		next, err := change(subs)
		if err != nil {
			return kvstore.Change{}, err
		}
		if len(next) == 0 {
			return kvstore.Change{}, nil
		}
		raw, err := json.Marshal(next)
		return kvstore.Change{Value: raw}, err
	})
}
