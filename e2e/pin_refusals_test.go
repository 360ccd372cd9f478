package e2e

import (
	"context"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
)

func TestPinningInAnArchivedChannelIsRefusedWithTheStepThatWouldLetIt(t *testing.T) {
	alice := mm.Users[0]
	_, yes, asked := askers(t, alice)
	ctx := context.Background()
	ch := createChannel(t, alice, uniq(t, "pin-gone-"), "Pin gone", model.ChannelTypeOpen)
	p := createPost(t, alice, ch.Id, uniq(t, "pin-me-"), "")
	if _, err := mm.Client(alice).DeleteChannel(ctx, ch.Id); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"archived", "unarchive it in mattermost; then call this tool again"} {
		refusedWith(t, yes, "pin_post", map[string]any{"post_id": p.Id}, want)
	}
	if len(asked.asked()) != 0 {
		t.Fatalf("a refused pin was asked: %+v", asked.asked())
	}
	if got, _, err := mm.Client(alice).GetPost(ctx, p.Id, ""); err != nil || got.IsPinned {
		t.Fatalf("the post in the archived channel changed: %v %v", got, err)
	}
}

func TestPinningAPinnedPostIsRefusedAndNamesTheListOfPinnedPosts(t *testing.T) {
	alice := mm.Users[0]
	_, yes, asked := askers(t, alice)
	ctx := context.Background()
	pinned := createPost(t, alice, townSquare(t).Id, uniq(t, "pinned-"), "")
	if _, err := mm.Client(alice).PinPost(ctx, pinned.Id); err != nil {
		t.Fatal(err)
	}
	loose := createPost(t, alice, townSquare(t).Id, uniq(t, "loose-"), "")
	for _, tc := range []struct{ tool, post, state string }{
		{"pin_post", pinned.Id, "already pinned"},
		{"unpin_post", loose.Id, "not pinned"},
	} {
		for _, want := range []string{tc.state, "list_pinned_posts with the post's channel"} {
			refusedWith(t, yes, tc.tool, map[string]any{"post_id": tc.post}, want)
		}
	}
	if len(asked.asked()) != 0 {
		t.Fatalf("a refused change was asked: %+v", asked.asked())
	}
	for id, want := range map[string]bool{pinned.Id: true, loose.Id: false} {
		if got, _, err := mm.Client(alice).GetPost(ctx, id, ""); err != nil || got.IsPinned != want {
			t.Fatalf("post %s changed: %v %v", id, got, err)
		}
	}
}
