package approval

import (
	"context"
	"errors"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// schedulePost has Mattermost send the post at the time the person was
// shown, as the person, through the session they answered with.
func schedulePost(a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	if plan.SendAt.IsZero() || !plan.SendAt.After(a.opts.Now()) {
		return Executed{}, refusal.New("The time the post was to be sent has passed; nothing was scheduled.", "Ask again with a later time.")
	}
	_, err := c.SchedulePost(context.Background(), mattermost.ScheduledPost{ChannelID: plan.Dest.ChannelID, RootID: plan.Dest.RootID,
		Message: plan.Message, Props: plan.Props(), At: plan.SendAt})
	switch {
	case errors.Is(err, mattermost.ErrTurnedOff):
		return Executed{}, refusal.New("Mattermost refuses scheduled posts now (its licence or its Scheduled posts setting changed); nothing was scheduled.", "Tell the person.")
	case errors.Is(err, mattermost.ErrNoSession):
		return Executed{}, refusal.New("The answer came without a Mattermost session to schedule the post with; nothing was scheduled.", "Tell the person.")
	case errors.Is(err, mattermost.ErrNotFound), errors.Is(err, mattermost.ErrCannotPost):
		return Executed{}, refusal.New("The person can no longer post there; nothing was scheduled.", "")
	case err != nil:
		return Executed{}, err
	}
	return Executed{ChannelID: plan.Dest.ChannelID}, nil
}
