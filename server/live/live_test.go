package live

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

const (
	channelURI = "mattermost://channel/team/town-square"
	threadURI  = "mattermost://thread/root1"
)

type world struct {
	svc      *Service
	readable map[string]bool // user → may read channel c1
	sessions map[string]bool // live sessions
	told     []string        // "user session uri"
}

func newWorld() *world {
	w := &world{readable: map[string]bool{"alice": true, "bob": true}, sessions: map[string]bool{"s1": true, "s2": true}}
	w.svc = &Service{KV: kvtest.New(),
		Watch: func(_ context.Context, uri string) (resources.Target, error) {
			switch uri {
			case channelURI:
				return resources.Target{ChannelID: "c1"}, nil
			case threadURI:
				return resources.Target{ChannelID: "c1", RootID: "root1"}, nil
			}
			return resources.Target{}, &transport.ResourceNotFound{Message: uri + " was not found"}
		},
		Readers: func(_ string, userIDs []string) (map[string]bool, error) {
			out := map[string]bool{}
			for _, id := range userIDs {
				out[id] = w.readable[id]
			}
			return out, nil
		},
		Notify: func(userID, session, uri string) bool {
			if !w.sessions[session] {
				return false
			}
			w.told = append(w.told, userID+" "+session+" "+uri)
			return true
		}}
	return w
}

func (w *world) subscribe(t *testing.T, user, session, uri string) {
	t.Helper()
	if err := w.svc.Subscribe(context.Background(), user, session, uri); err != nil {
		t.Fatal(err)
	}
}

func TestAPostInAChannelTellsItsChannelsSubscribersAndAReplyTellsItsThreadsToo(t *testing.T) {
	w := newWorld()
	w.subscribe(t, "alice", "s1", channelURI)
	w.subscribe(t, "bob", "s2", threadURI)
	if err := w.svc.Changed(Post{ID: "p1", ChannelID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(w.told) != "[alice s1 "+channelURI+"]" {
		t.Fatalf("a post outside the thread told %v", w.told)
	}
	w.told = nil
	_ = w.svc.Changed(Post{ID: "p2", ChannelID: "c1", RootID: "root1"})
	if len(w.told) != 2 {
		t.Fatalf("a reply in the thread told %v, want both", w.told)
	}
	w.told = nil
	_ = w.svc.Changed(Post{ID: "p3", ChannelID: "c2"})
	if len(w.told) != 0 {
		t.Fatalf("a post in another channel told %v", w.told)
	}
}

func TestSubscribingTwiceIsOneSubscriptionAndUnsubscribingStopsTheNotices(t *testing.T) {
	w := newWorld()
	w.subscribe(t, "alice", "s1", channelURI)
	w.subscribe(t, "alice", "s1", channelURI)
	_ = w.svc.Changed(Post{ID: "p1", ChannelID: "c1"})
	if len(w.told) != 1 {
		t.Fatalf("told %v, want once", w.told)
	}
	if err := w.svc.Unsubscribe(context.Background(), "alice", "s1", channelURI); err != nil {
		t.Fatal(err)
	}
	w.told = nil
	_ = w.svc.Changed(Post{ID: "p2", ChannelID: "c1"})
	if len(w.told) != 0 {
		t.Fatalf("told after unsubscribing: %v", w.told)
	}
}

func TestAPersonWhoCanNoLongerReadTheChannelHearsNothingAndIsUnsubscribed(t *testing.T) {
	w := newWorld()
	w.subscribe(t, "alice", "s1", channelURI)
	w.readable["alice"] = false
	_ = w.svc.Changed(Post{ID: "p1", ChannelID: "c1"})
	w.readable["alice"] = true // even readable again, the subscription is gone
	_ = w.svc.Changed(Post{ID: "p2", ChannelID: "c1"})
	if len(w.told) != 0 {
		t.Fatalf("told %v", w.told)
	}
}

func TestASessionThatEndedLosesItsSubscriptions(t *testing.T) {
	w := newWorld()
	w.subscribe(t, "alice", "s1", channelURI)
	delete(w.sessions, "s1")
	_ = w.svc.Changed(Post{ID: "p1", ChannelID: "c1"})
	w.sessions["s1"] = true
	_ = w.svc.Changed(Post{ID: "p2", ChannelID: "c1"})
	if len(w.told) != 0 {
		t.Fatalf("told %v", w.told)
	}
}

func TestAResourceThePersonCannotReadIsNotSubscribed(t *testing.T) {
	w := newWorld()
	err := w.svc.Subscribe(context.Background(), "alice", "s1", "mattermost://channel/team/secret")
	if !errors.Is(err, transport.ErrResourceNotFound) {
		t.Fatalf("subscribe = %v, want not found", err)
	}
}

func TestAPersonAtTheBoundIsNotRefusedForSubscriptionsOfSessionsThatEnded(t *testing.T) {
	w := newWorld()
	w.svc.Watch = func(_ context.Context, uri string) (resources.Target, error) {
		return resources.Target{ChannelID: uri}, nil
	}
	w.svc.Alive = func(_, session string) bool { return w.sessions[session] }
	for i := range MaxPerPerson {
		w.subscribe(t, "alice", "s1", fmt.Sprintf("c%d", i))
	}
	delete(w.sessions, "s1")
	w.subscribe(t, "alice", "s2", "fresh")
	if raw, _ := w.svc.KV.Get(channelKey("c0")); raw != nil {
		t.Fatal("an ended session's subscription is still in its channel's index")
	}
}

func TestAPersonKeepsAtMostTheBoundOfSubscriptions(t *testing.T) {
	w := newWorld()
	w.svc.Watch = func(_ context.Context, uri string) (resources.Target, error) {
		return resources.Target{ChannelID: uri}, nil
	}
	for i := range MaxPerPerson {
		w.subscribe(t, "alice", "s1", fmt.Sprintf("c%d", i))
	}
	err := w.svc.Subscribe(context.Background(), "alice", "s1", "one-more")
	if !errors.Is(err, transport.ErrTooManySubscriptions) {
		t.Fatalf("subscribe past the bound = %v", err)
	}
	if raw, _ := w.svc.KV.Get(channelKey("one-more")); raw != nil {
		t.Fatal("the refused subscription is in its channel's index")
	}
}
