package posting

import (
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The values a confirmed write keeps beyond a post's, and the pieces every
// view of a write is made of (lines in spans, facts); how each kind of
// write reads is its approval.Write.

// PostTarget is the post a delete or a pin is about, as the person was
// shown it; the change is refused if the post no longer reads this way.
type PostTarget struct {
	AuthorID string `json:"author_id"`
	// Author is the poster's @username.
	Author  string   `json:"author"`
	EditAt  int64    `json:"edit_at"`
	Replies int      `json:"replies"`
	Files   []string `json:"files,omitempty"`
}

// ChannelSpec is the channel a change is about: the one a create makes, or
// the one joined, left or added to (ID set).
type ChannelSpec struct {
	ID          string `json:"id,omitempty"`
	TeamID      string `json:"team_id"`
	Team        string `json:"team"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Private     bool   `json:"private"`
	Purpose     string `json:"purpose,omitempty"`
	Header      string `json:"header,omitempty"`
}

// Kind is "public channel" or "private channel".
func (c ChannelSpec) Kind() string {
	if c.Private {
		return "private channel"
	}
	return "public channel"
}

// Person is someone a change brings into a channel.
type Person struct {
	ID       string `json:"id"`
	Username string `json:"username"`
}

// StatusSpec is a status to set: the availability (online, away, dnd,
// offline; "" keeps it), a do-not-disturb end, and a custom status (text
// and emoji, with when it clears; ClearCustom removes the one set).
type StatusSpec struct {
	Availability string    `json:"availability,omitempty"`
	DNDUntil     time.Time `json:"dnd_until,omitzero"`
	Text         string    `json:"text,omitempty"`
	Emoji        string    `json:"emoji,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	ClearCustom  bool      `json:"clear_custom,omitempty"`
	// Zone is the person's time zone, in which the times are shown.
	Zone string `json:"zone,omitempty"`
}

// Fact is one line of what a change does: a label and its value. AI marks
// a value the model wrote, which every view sets apart.
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
	AI    bool   `json:"ai,omitempty"`
}

// Span is a piece of a line the person reads: the plugin's own words, or a
// value the model chose (AI). Every view sets an AI span apart: the page and
// the modal mark it, the bot's message puts it in code, the client's
// question in quotes; none renders it as markup.
type Span struct {
	Text string `json:"text"`
	AI   bool   `json:"ai,omitempty"`
}

// Line is a line in spans, such as a heading.
type Line []Span

// Plain is the line as plain text: each AI span between quotation marks,
// with any quotation marks of its own made straight, so it cannot seem to
// close early; control characters are made visible.
func (l Line) Plain() string {
	var b strings.Builder
	for _, s := range l {
		if s.AI {
			b.WriteString("“" + strings.NewReplacer("“", `"`, "”", `"`).Replace(s.Text) + "”")
			continue
		}
		b.WriteString(s.Text)
	}
	return present.Clean(b.String())
}

// When is a time as the person reads it, in their zone: "17:00 (Europe/Berlin)"
// today, else with the date.
func When(t time.Time, zone string, now time.Time) string {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		loc, zone = time.UTC, "UTC"
	}
	t, now = t.In(loc), now.In(loc)
	if t.Year() == now.Year() && t.YearDay() == now.YearDay() {
		return t.Format("15:04") + " (" + zone + ")"
	}
	return t.Format("Mon 2 Jan 15:04") + " (" + zone + ")"
}
