package approval

import (
	"slices"
	"strings"

	"github.com/mattermost/mattermost/server/public/shared/markdown"

	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The bot's direct message is markdown that the person's Mattermost renders
// as soon as it arrives, before anyone answers: an image there is fetched at
// once, a link invites a click. So it is built of two parts that never mix:
// the plugin's own sentences, which hold no value anyone chose, and one
// fenced code block (present.Fenced) that holds every such value as
// labelled lines: the model's, and the names others wrote (channels, teams,
// files, the post a write is about). The only link in the message is the
// one the plugin built (the confirmation page, or the post made).

// block is the values of a message, as the lines of one fenced code block.
type block struct{ lines []string }

// line adds "label: value", the value on one line.
func (b *block) line(label, value string) {
	if value == "" {
		value = "(empty)"
	}
	b.lines = append(b.lines, label+": "+present.ShownLine(value))
}

// plain adds a line of the plugin's own words with values in it.
func (b *block) plain(text string) { b.lines = append(b.lines, present.ShownLine(text)) }

// text adds a text of several lines (a message's first lines) under its
// label, each line marked, so that none reads as a label of the plugin's.
func (b *block) text(label, text string) {
	b.lines = append(b.lines, label+":")
	for _, l := range present.ShownLines(text) {
		b.lines = append(b.lines, textMark+l)
	}
}

// list adds items (names, notes) under their heading, one a line.
func (b *block) list(heading string, items []string) {
	b.lines = append(b.lines, heading+":")
	for _, it := range items {
		b.lines = append(b.lines, "- "+present.ShownLine(it))
	}
}

// textMark starts each line of a text in the block.
const textMark = "│ "

// String is the fenced block, after a blank line; "" when it holds nothing.
func (b *block) String() string {
	if len(b.lines) == 0 {
		return ""
	}
	return "\n" + present.Fenced(b.lines)
}

// lineOf is a line in spans as one line of the block: the model's spans in
// quotation marks, as Line.Plain sets them.
func lineOf(l posting.Line) string {
	var b strings.Builder
	for _, s := range l {
		if s.AI {
			b.WriteString("“" + strings.NewReplacer("“", `"`, "”", `"`).Replace(s.Text) + "”")
			continue
		}
		b.WriteString(s.Text)
	}
	return b.String()
}

// LinkTargets are the targets of every link, image and autolink that
// Mattermost's own markdown parser finds in a message, images marked
// "image ".
func LinkTargets(msg string) []string {
	var out []string
	markdown.Inspect(msg, func(n any) bool {
		switch v := n.(type) {
		case *markdown.InlineLink:
			out = append(out, v.Destination())
		case *markdown.InlineImage:
			out = append(out, "image "+v.Destination())
		case *markdown.ReferenceLink:
			out = append(out, v.Destination())
		case *markdown.ReferenceImage:
			out = append(out, "image "+v.Destination())
		case *markdown.Autolink:
			out = append(out, v.Destination())
		}
		return true
	})
	return out
}

// onlyLinksTo is the bot's message msg when every link Mattermost would
// render in it leads to one of allowed (the page, the post made). Every
// part of the message is built inert; this checks that it stayed so, as
// Mattermost parses it, because a link or image that slipped through would
// act as soon as the message arrives. Otherwise the message is replaced by
// one that only points at the page, and the slip is logged (without the
// text, which is the model's).
func (a *Approvals) onlyLinksTo(msg, recordID string, allowed ...string) string {
	for _, target := range LinkTargets(msg) {
		if target != "" && !slices.Contains(allowed, target) {
			a.opts.MM.Log().Error("The bot's message about a write held a link the plugin did not build; sent a message with the page link alone", "record_id", recordID)
			return "An AI assistant asks to do something as you, or did after you answered. [Open the confirmation](" + a.PageURL(recordID) + ") to see what."
		}
	}
	return msg
}
