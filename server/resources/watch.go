package resources

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

// Target is what a subscription to a resource watches: a channel's posts,
// or one thread of it (RootID set).
type Target struct {
	ChannelID string
	RootID    string
}

// Watch resolves uri, as the signed-in person of ctx, to what a
// subscription to it watches. Only templates with a Watch (a channel, a
// thread) can be watched; what the person cannot read, a template not
// offered and a URI of no template are ErrNotFound, worded as Read words
// them.
func (s *Set) Watch(ctx context.Context, uri string, c config.Configuration, ch config.Choice) (Target, error) {
	if len(uri) > maxURIBytes {
		return Target{}, notFound(uri[:64]+"…", fmt.Sprintf("it is longer than the %d bytes of any resource here", maxURIBytes), "resources/list lists yours.")
	}
	t, vars, ok := s.match(uri)
	if !ok {
		return Target{}, notFound(uri, "it is no resource of this server", "Resources are "+s.forms()+"; resources/list lists yours.")
	}
	if t.Watch == nil {
		return Target{}, notFound(uri, "only a channel's posts and a thread can be subscribed to", "Subscribe to a mattermost://channel/… or mattermost://thread/… resource.")
	}
	if !s.Offered(t, c, ch) {
		return Target{}, s.withheld(uri, t, c, ch)
	}
	target, err := t.Watch(ctx, vars)
	if r, isRefusal := refusal.As(err); isRefusal {
		return Target{}, notFound(uri, r.What, r.Next)
	}
	if errors.Is(err, ErrNotFound) {
		return Target{}, notFound(uri, "it is not there, or you cannot read it", "resources/list lists what you can read.")
	}
	return target, err
}

// Watch resolves a URI to what a subscription to it watches, under the
// configuration of the moment.
func (v Serving) Watch(ctx context.Context, uri string) (Target, error) {
	return v.set.Watch(ctx, uri, v.current(), transport.ChoiceOf(ctx))
}
