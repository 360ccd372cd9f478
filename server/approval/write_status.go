package approval

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// ActionSetStatus is a status change's action as records keep it.
const ActionSetStatus = "set_status"

// NewStatus is the payload of a status change: the status to set.
type NewStatus struct {
	Status *posting.StatusSpec `json:"status,omitempty"`
}

func (s NewStatus) spec() posting.StatusSpec { return orZero(s.Status) }

// SetStatus: the person's availability and custom status, which everyone
// who can see them in Mattermost sees.
var SetStatus = Register(&Kind[NewStatus]{
	Action:  ActionSetStatus,
	Tools:   []string{"set_status"},
	Heading: func(_ posting.Plan, s NewStatus) posting.Line { return say("Set your status to " + statusSummary(s)) },
	Words: Words{
		Asks: "change your status, which others see",
		Lede: "It asks to change your status, which everyone who can see you in Mattermost sees. Nothing changes until you accept.",
		Box:  "Set it", Accept: "Accept and set",
		NotesHeading: "Who sees it",
		Done:         func(string) string { return "Your status was set." },
		Declined:     "Declined: your status was not changed.",
	},
	Facts:   statusFacts,
	Recheck: recheckStatus,
	Carry:   setStatus,
})

// Availabilities as people read them.
var availabilityNames = map[string]string{"online": "Online", "away": "Away", "dnd": "Do not disturb", "offline": "Offline"}

// statusSummary is the status in a few words, without the model's text:
// "Do not disturb until 17:00 (UTC), with a custom status".
func statusSummary(own NewStatus) string {
	s := own.spec()
	var parts []string
	if s.Availability != "" {
		a := availabilityNames[s.Availability]
		if s.Availability == "dnd" && !s.DNDUntil.IsZero() {
			a += " until " + posting.When(s.DNDUntil, s.Zone, time.Now())
		}
		parts = append(parts, a)
	}
	switch {
	case s.Text != "" || s.Emoji != "":
		parts = append(parts, "a custom status")
	case s.ClearCustom:
		parts = append(parts, "no custom status")
	}
	return strings.Join(parts, ", with ")
}

func statusFacts(_ posting.Plan, own NewStatus) []posting.Fact {
	s := own.spec()
	var fs []posting.Fact
	if s.Availability != "" {
		a := availabilityNames[s.Availability]
		switch {
		case s.Availability == "dnd" && !s.DNDUntil.IsZero():
			a += ": no notifications until " + posting.When(s.DNDUntil, s.Zone, time.Now()) + ", then as before"
		case s.Availability == "dnd":
			a += ": no notifications until you change it"
		}
		fs = append(fs, posting.Fact{Label: "Availability", Value: a})
	}
	switch {
	case s.Text != "" || s.Emoji != "":
		v := s.Text
		if s.Emoji != "" {
			v = strings.TrimSpace(":" + s.Emoji + ": " + v)
		}
		fs = append(fs, posting.Fact{Label: "Custom status", Value: v, AI: true})
		until := "until you clear it"
		if !s.ExpiresAt.IsZero() {
			until = posting.When(s.ExpiresAt, s.Zone, time.Now())
		}
		fs = append(fs, posting.Fact{Label: "Clears", Value: until})
	case s.ClearCustom:
		fs = append(fs, posting.Fact{Label: "Custom status", Value: "cleared"})
	}
	return fs
}

// recheckStatus refuses a status whose times passed while the person read it.
func recheckStatus(a *Approvals, _ *mattermost.Caller, _ posting.Plan, own NewStatus) error {
	s := own.Status
	if s == nil {
		return refusal.New("This confirmation does not say which status to set; nothing was changed.", "")
	}
	now := a.opts.Now()
	if !s.DNDUntil.IsZero() && !s.DNDUntil.After(now) {
		return refusal.New("The do-not-disturb end the person was shown has passed; nothing was changed.", "Ask again with a later time.")
	}
	if !s.ExpiresAt.IsZero() && !s.ExpiresAt.After(now) {
		return refusal.New("The time the custom status was to clear has passed; nothing was changed.", "Ask again with a later time.")
	}
	return nil
}

func setStatus(_ context.Context, _ *Approvals, c *mattermost.Caller, _ posting.Plan, own NewStatus) (Executed, error) {
	s := own.Status
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
