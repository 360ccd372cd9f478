package posting

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The changes beyond posts, edits and reactions (delete, pin, channels,
// members, status) are put to the person from one table: each has a
// Wording in its own file, and every place that shows a write (the
// client's question, the page, the webapp's modal, the bot's message, the
// tool's answer) reads it, so a new change is one line in wordings.

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

// say is a line of the plugin's own words.
func say(s string) Line { return Line{{Text: s}} }

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

// Wording is how one kind of change is put to the person and told after.
type Wording struct {
	// Heading is the change in the person's words: what and for whom, with
	// any value the model chose as a span of its own.
	Heading func(p Plan) Line
	// Lede is the sentence under the heading on the page and the modal.
	Lede string
	// Box is the title of the client form's one box; Accept the page's
	// accept button.
	Box, Accept string
	// Facts are the lines of what changes.
	Facts func(p Plan) []Fact
	// PostCaption captions the post the change is about (Plan.Shown);
	// "" for changes about no post.
	PostCaption string
	// NotesHeading heads the plan's notes.
	NotesHeading string
	// Done is what happened after a yes, Declined after a no; place is the
	// destination in the person's words ("" once the record keeps none).
	Done     func(place string) string
	Declined string
}

var wordings = map[string]Wording{
	ActionDelete:     deleteWording,
	ActionPin:        pinWording,
	ActionUnpin:      unpinWording,
	ActionJoin:       joinWording,
	ActionLeave:      leaveWording,
	ActionCreateChan: createChannelWording,
	ActionAddMembers: addMembersWording,
	ActionSetStatus:  setStatusWording,
	ActionSchedule:   scheduleWording,
}

// WordingOf is the wording of a change from the table, false for posts,
// edits, reactions and kinds this version does not know.
func WordingOf(action string) (Wording, bool) {
	w, ok := wordings[action]
	return w, ok
}

// Wording is the plan's wording; a kind this version does not know reads
// as an unknown change that nothing will carry out.
func (p Plan) Wording() Wording {
	if w, ok := wordings[p.Action]; ok {
		return w
	}
	return unknownWording
}

var unknownWording = Wording{
	Heading: func(Plan) Line { return say("A change this version does not know") },
	Lede:    "This confirmation is of a kind this version does not know; accepting it changes nothing.",
	Box:     "Go ahead", Accept: "Accept",
	Facts:    func(Plan) []Fact { return nil },
	Done:     func(string) string { return "Done." },
	Declined: "Declined: nothing was changed.",
}

// in is " in place" or "" when the place is not known any more.
func in(place string) string {
	if place == "" {
		return ""
	}
	return " in " + place
}

// plural is "1 reply", "3 replies".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// usernames lists people as "@a, @b and @c".
func usernames(people []Person) string {
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = "@" + p.Username
	}
	return join(names)
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
