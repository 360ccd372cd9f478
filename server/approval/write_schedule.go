package approval

import (
	"context"
	"errors"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ActionSchedule is a scheduled post's action as records keep it.
const ActionSchedule = "schedule"

// SendTime is the payload of a scheduled post: when it is sent, and the
// person's time zone, in which it is shown. The post itself is the plan's
// shared fields.
type SendTime struct {
	SendAt   time.Time `json:"send_at,omitzero"`
	SendZone string    `json:"send_zone,omitempty"`
}

// SchedulePost is a post Mattermost sends as the person at a later time,
// which they can change or delete in their Scheduled posts until then.
var SchedulePost = Register(&Kind[SendTime]{
	Action: ActionSchedule,
	Tools:  []string{"schedule_post"},
	Heading: func(p posting.Plan, at SendTime) posting.Line {
		return say("Schedule a post in " + p.Dest.PlaceText() + " for " + posting.When(at.SendAt, at.SendZone, time.Now()))
	},
	Words: Words{
		Asks: "schedule a post as you",
		Lede: "It asks to schedule this post as you: Mattermost sends it at that time, and until then you can change or delete it " +
			"in your scheduled posts. Nothing is scheduled until you accept.",
		Box: "Schedule it", Accept: "Accept and schedule",
		PostCaption: "Written by the AI, sent at that time", ShowsMessage: true,
		NotesHeading: "Who is notified when it is sent",
		Done:         func(place string) string { return "The post was scheduled" + in(place) + "." },
		Declined:     "Declined: nothing was scheduled.",
	},
	Facts: func(p posting.Plan, at SendTime) []posting.Fact {
		return []posting.Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Sent at", Value: posting.When(at.SendAt, at.SendZone, time.Now())}}
	},
	Recheck: func(a *Approvals, _ *mattermost.Caller, _ posting.Plan, at SendTime) error {
		if at.SendAt.IsZero() || !at.SendAt.After(a.opts.Now()) {
			return refusal.New("The time the post was to be sent has passed; nothing was scheduled.", "Ask again with a later time.")
		}
		return nil
	},
	// Mattermost sends the post at the time the person was shown, as the
	// person, through the session they answered with.
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan, at SendTime) (Executed, error) {
		_, err := c.SchedulePost(context.Background(), mattermost.ScheduledPost{ChannelID: plan.Dest.ChannelID, RootID: plan.Dest.RootID,
			Message: plan.Message, Props: plan.Props(), At: at.SendAt})
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
	},
})
