package approval

import (
	"errors"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

func setStatus(a *Approvals, c *mattermost.Caller, plan posting.Plan) (Executed, error) {
	s := plan.Status
	if s == nil {
		return Executed{}, refusal.New("This confirmation does not say which status to set; nothing was changed.", "")
	}
	now := a.opts.Now()
	if !s.DNDUntil.IsZero() && !s.DNDUntil.After(now) {
		return Executed{}, refusal.New("The do-not-disturb end the person was shown has passed; nothing was changed.", "Ask again with a later time.")
	}
	if !s.ExpiresAt.IsZero() && !s.ExpiresAt.After(now) {
		return Executed{}, refusal.New("The time the custom status was to clear has passed; nothing was changed.", "Ask again with a later time.")
	}
	switch {
	case s.Text != "" || s.Emoji != "":
		cs := &model.CustomStatus{Emoji: s.Emoji, Text: s.Text}
		if !s.ExpiresAt.IsZero() {
			cs.Duration, cs.ExpiresAt = "date_and_time", s.ExpiresAt
		}
		if err := c.SetCustomStatus(cs); err != nil {
			return Executed{}, customStatusErr(err)
		}
	case s.ClearCustom:
		if err := c.SetCustomStatus(nil); err != nil {
			return Executed{}, customStatusErr(err)
		}
	}
	if s.Availability != "" {
		if err := c.SetAvailability(s.Availability, s.DNDUntil); err != nil {
			return Executed{}, err
		}
	}
	return Executed{}, nil
}

// customStatusErr words an admin turning custom statuses off after the
// person was asked: Mattermost takes no custom status then, so nothing of
// the change is made (the custom status is set before the availability).
func customStatusErr(err error) error {
	if errors.Is(err, mattermost.ErrCustomStatusesOff) {
		return refusal.New("Custom statuses were turned off on this Mattermost (TeamSettings.EnableCustomUserStatuses) after the person was asked: nothing was changed.",
			"Call set_status with status alone (online, away, dnd or offline), or tell the person an admin can turn custom statuses on.")
	}
	return err
}
