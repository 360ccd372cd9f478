package approval

import (
	"context"
	"errors"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Actions of the drafts family, as records keep them.
const (
	ActionSchedule = "schedule"
)

// Drafts family writes, each registered once in writes.
var draftWrites = []Write{scheduleWrite}

// scheduleWrite is a post Mattermost sends as the person at a later time,
// which they can change or delete in their Scheduled posts until then.
var scheduleWrite = Write{
	Action: ActionSchedule,
	Tools:  []string{"schedule_post"},
	Asks:   "schedule a post as you",
	Heading: func(p posting.Plan) posting.Line {
		return say("Schedule a post in " + p.Dest.PlaceText() + " for " + posting.When(p.SendAt, p.SendZone, time.Now()))
	},
	Lede: "It asks to schedule this post as you: Mattermost sends it at that time, and until then you can change or delete it " +
		"in your scheduled posts. Nothing is scheduled until you accept.",
	Box: "Schedule it", Accept: "Accept and schedule",
	PostCaption: "Written by the AI, sent at that time", ShowsMessage: true,
	Facts: func(p posting.Plan) []posting.Fact {
		return []posting.Fact{{Label: "Where", Value: p.Dest.Where}, {Label: "Sent at", Value: posting.When(p.SendAt, p.SendZone, time.Now())}}
	},
	NotesHeading: "Who is notified when it is sent",
	Done:         func(place string) string { return "The post was scheduled" + in(place) + "." },
	Declined:     "Declined: nothing was scheduled.",
	Recheck: func(a *Approvals, _ *mattermost.Caller, plan posting.Plan) error {
		if plan.SendAt.IsZero() || !plan.SendAt.After(a.opts.Now()) {
			return refusal.New("The time the post was to be sent has passed; nothing was scheduled.", "Ask again with a later time.")
		}
		return nil
	},
	// Mattermost sends the post at the time the person was shown, as the
	// person, through the session they answered with.
	Carry: func(_ context.Context, _ *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
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
	},
}
