package posting

import (
	"strings"
	"time"
)

// set_status: the person's availability and custom status, which everyone
// who can see them in Mattermost sees.
var setStatusWording = Wording{
	Heading: func(p Plan) Line { return say("Set your status to " + statusSummary(p)) },
	Lede:    "It asks to change your status, which everyone who can see you in Mattermost sees. Nothing changes until you accept.",
	Box:     "Set it", Accept: "Accept and set",
	Facts:        statusFacts,
	NotesHeading: "Who sees it",
	Done:         func(string) string { return "Your status was set." },
	Declined:     "Declined: your status was not changed.",
}

// Availabilities as people read them.
var availabilityNames = map[string]string{"online": "Online", "away": "Away", "dnd": "Do not disturb", "offline": "Offline"}

// statusSummary is the status in a few words, without the model's text:
// "Do not disturb until 17:00 (UTC), with a custom status".
func statusSummary(p Plan) string {
	s := statusOf(p)
	var parts []string
	if s.Availability != "" {
		a := availabilityNames[s.Availability]
		if s.Availability == "dnd" && !s.DNDUntil.IsZero() {
			a += " until " + When(s.DNDUntil, s.Zone, time.Now())
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

func statusFacts(p Plan) []Fact {
	s := statusOf(p)
	var fs []Fact
	if s.Availability != "" {
		a := availabilityNames[s.Availability]
		switch {
		case s.Availability == "dnd" && !s.DNDUntil.IsZero():
			a += ": no notifications until " + When(s.DNDUntil, s.Zone, time.Now()) + ", then as before"
		case s.Availability == "dnd":
			a += ": no notifications until you change it"
		}
		fs = append(fs, Fact{Label: "Availability", Value: a})
	}
	switch {
	case s.Text != "" || s.Emoji != "":
		v := s.Text
		if s.Emoji != "" {
			v = strings.TrimSpace(":" + s.Emoji + ": " + v)
		}
		fs = append(fs, Fact{Label: "Custom status", Value: v, AI: true})
		until := "until you clear it"
		if !s.ExpiresAt.IsZero() {
			until = When(s.ExpiresAt, s.Zone, time.Now())
		}
		fs = append(fs, Fact{Label: "Clears", Value: until})
	case s.ClearCustom:
		fs = append(fs, Fact{Label: "Custom status", Value: "cleared"})
	}
	return fs
}

func statusOf(p Plan) StatusSpec {
	if p.Status == nil {
		return StatusSpec{}
	}
	return *p.Status
}
