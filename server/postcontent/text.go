package postcontent

import (
	"fmt"
	"strings"
)

// AuthorAs is who a post reads as written by, given its account (as
// "@username"): an integration under the name it posted as, never as the
// owner of the webhook speaking; a bot marked as one.
func (c Content) AuthorAs(account string) string {
	switch c.PostedBy {
	case PostedByIntegration:
		if c.ShownAs != "" {
			return fmt.Sprintf("integration %q (an incoming webhook of %s)", c.ShownAs, account)
		}
		return fmt.Sprintf("integration (an incoming webhook of %s)", account)
	case PostedByBot:
		return account + " (bot)"
	}
	return account
}

// Lines are the content as lines of text, each to be indented under the
// post's message.
func (c Content) Lines() []string {
	var out []string
	if c.Attribution != "" {
		out = append(out, fmt.Sprintf("[posted through this MCP server; Mattermost shows under it: %q]", c.Attribution))
	}
	for i, card := range c.Cards {
		out = append(out, fmt.Sprintf("message attachment %d of %d:", i+1, len(c.Cards)+c.CardsLeft))
		for _, l := range card.lines() {
			out = append(out, "  "+l)
		}
	}
	if c.CardsLeft > 0 {
		out = append(out, fmt.Sprintf("[%d more message attachments not shown: the whole post is at its link]", c.CardsLeft))
	}
	if pv := c.Preview; pv != nil {
		s := "link preview: " + pv.URL
		if pv.Site != "" {
			s += " (" + pv.Site + ")"
		}
		if pv.Title != "" {
			s += fmt.Sprintf(" %q", pv.Title)
		}
		out = append(out, s)
		if pv.Description != "" {
			out = append(out, indented("  ", pv.Description)...)
		}
		if pv.Image != "" {
			out = append(out, "  image: "+pv.Image)
		}
	}
	if pr := c.Priority; pr != nil {
		out = append(out, pr.line())
	}
	return out
}

func (card Card) lines() []string {
	var out []string
	if card.Pretext != "" {
		out = append(out, indented("pretext: ", card.Pretext)...)
	}
	if card.Author != "" {
		out = append(out, "author: "+withLink(card.Author, card.AuthorLink))
	}
	if card.Title != "" {
		out = append(out, "title: "+withLink(card.Title, card.TitleLink))
	}
	if card.Text != "" {
		out = append(out, indented("text: ", card.Text)...)
	}
	if len(card.Fields) > 0 {
		out = append(out, "fields:")
	}
	for _, f := range card.Fields {
		out = append(out, fmt.Sprintf("  %s: %s", f.Title, f.Value))
	}
	if card.Footer != "" {
		out = append(out, "footer: "+card.Footer)
	}
	if card.ImageURL != "" {
		out = append(out, "image: "+card.ImageURL)
	}
	if card.ThumbURL != "" {
		out = append(out, "thumbnail: "+card.ThumbURL)
	}
	if len(card.Actions) > 0 {
		var labels []string
		for _, a := range card.Actions {
			labels = append(labels, fmt.Sprintf("%s %q", a.Type, a.Label))
		}
		out = append(out, "buttons and menus only a person can press in Mattermost (no tool presses them): "+strings.Join(labels, ", "))
	}
	for _, s := range card.Cut {
		out = append(out, "["+s+"]")
	}
	return out
}

func withLink(s, link string) string {
	if link == "" {
		return s
	}
	return s + " <" + link + ">"
}

// indented is a multi-line part under its label, continuation lines
// indented so they stay part of it.
func indented(label, s string) []string {
	lines := strings.Split(s, "\n")
	out := []string{label + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, "    "+l)
	}
	return out
}

func (pr Priority) line() string {
	var parts []string
	if pr.Level != "" {
		parts = append(parts, "priority "+pr.Level)
	}
	if pr.AckRequested {
		parts = append(parts, "acknowledgement requested")
	}
	if pr.Persistent {
		parts = append(parts, "persistent notifications on")
	}
	switch n := len(pr.AckedBy) + pr.AckedOthers; {
	case n == 0 && pr.AckRequested:
		parts = append(parts, "nobody has acknowledged it yet")
	case n > 0:
		who := strings.Join(pr.AckedBy, ", ")
		if pr.AckedOthers > 0 {
			if who != "" {
				who += " and "
			}
			who += fmt.Sprintf("%d others", pr.AckedOthers)
		}
		parts = append(parts, "acknowledged by "+who)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
