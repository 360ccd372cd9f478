package tools

import (
	"context"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// delete_post, pin_post and unpin_post: changes to a post others see.

var (
	deleteHints = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true}
	pinHints    = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}
	unpinHints  = catalogue.Hints{ReadOnly: false, Destructive: true, Idempotent: true, OpenWorld: true}
)

type postIDArgs struct {
	PostID string `json:"post_id"`
}

func postChangeTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name: "delete_post", Title: "Delete one of your posts", Hints: deleteHints, Effect: catalogue.ChangesMattermost,
			Description: "Deletes one of the person's own posts, with its replies and files." + confirmationNote,
		}, d.deletePost),
		catalogue.Define(catalogue.Tool{
			Name: "pin_post", Title: "Pin a post", Hints: pinHints, Effect: catalogue.ChangesMattermost,
			Description: "Pins a post the person can read to its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, posting.ActionPin)
		}),
		catalogue.Define(catalogue.Tool{
			Name: "unpin_post", Title: "Unpin a post", Hints: unpinHints, Effect: catalogue.ChangesMattermost,
			Description: "Unpins a pinned post from its channel, for everyone in the channel." + confirmationNote,
		}, func(ctx context.Context, a postIDArgs) (catalogue.Result[WriteResult], error) {
			return d.pin(ctx, a, posting.ActionUnpin)
		}),
	}
}

func (d Deps) deletePost(ctx context.Context, a postIDArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if p.UserId != c.UserID() {
		return res, refusal.New("That post is not the signed-in person's own: only their own posts can be deleted.", "")
	}
	if !c.MayDeleteOwnPost(p) {
		return res, refusal.New("The person's role does not let them delete their posts in that channel; nothing was asked.", "")
	}
	plan, err := postChange(c, p, ch, posting.ActionDelete)
	if err != nil {
		return res, err
	}
	gone := "Everyone in " + plan.Dest.PlaceText() + " stops seeing the post"
	if plan.Target.Replies > 0 {
		gone += " and its replies, including other people's"
	}
	plan.Notes = []string{gone + "; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

func (d Deps) pin(ctx context.Context, a postIDArgs, action string) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	p, ch, err := postFor(c, a.PostID)
	if err != nil {
		return res, err
	}
	if ch.DeleteAt != 0 {
		return res, refusal.New("That post's channel is archived: nothing in it can be pinned or unpinned.", "")
	}
	if p.IsPinned == (action == posting.ActionPin) {
		state := "already pinned"
		if action == posting.ActionUnpin {
			state = "not pinned"
		}
		return res, refusal.Newf("Post %s is %s; nothing needs to change.", p.Id, state)
	}
	plan, err := postChange(c, p, ch, action)
	if err != nil {
		return res, err
	}
	plan.Notes = []string{"Everyone in " + plan.Dest.PlaceText() + " sees the change in the channel's pinned messages; Mattermost notifies nobody."}
	return d.write(ctx, c, plan)
}

// postChange is the plan of a change to a post: the post as it reads now,
// who wrote it, and the replies and files that go with it.
func postChange(c *mattermost.Caller, p *model.Post, ch *model.Channel, action string) (posting.Plan, error) {
	replies, err := c.Replies(p)
	if err != nil {
		return posting.Plan{}, err
	}
	files, err := c.PostFiles(p)
	if err != nil {
		return posting.Plan{}, err
	}
	t := &posting.PostTarget{AuthorID: p.UserId, EditAt: p.EditAt, Replies: replies, Files: make([]string, len(files))}
	for i, f := range files {
		t.Files[i] = f.Name
	}
	if author, err := c.Poster(p.UserId); err == nil {
		t.Author = author.Username
	}
	plan := posting.Plan{CallerID: c.UserID(), Action: action, PostID: p.Id, Previous: p.Message, Target: t,
		Dest: posting.Destination{ChannelID: ch.Id, Label: placeOf(c, ch)}}
	plan.Dest.Place, plan.Dest.Where = placeIn(c, ch)
	if plan.Dest.Where == "" {
		return plan, fmt.Errorf("no place for channel %s", ch.Id)
	}
	return plan, nil
}
