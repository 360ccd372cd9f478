package approval

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mattermost/mattermost/server/public/shared/markdown"

	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// The bot's direct message is markdown that the person's Mattermost renders
// as soon as it arrives, before anyone answers: an image there is fetched at
// once, a link invites a click. So no text the model chose, and no name
// others wrote, reaches it as markup. A value the model chose is inline
// code (codeSpan); the plugin's sentences, with the names of channels,
// teams and files in them, are escaped (markdownText). The only link in the
// message is the confirmation page the plugin built.

// codeSpan is a short value as inline code: shown exactly, rendering
// nothing (no link, image, mention, emoji or emphasis). Its fence is one
// backtick longer than the longest run of backticks inside, so the value
// cannot close it; line breaks and control characters are made visible, so
// it cannot end the line it stands in.
func codeSpan(v string) string {
	v = oneLineOf(v)
	if v == "" {
		return "(empty)"
	}
	longest, run := 0, 0
	for _, r := range v {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	fence := strings.Repeat("`", longest+1)
	// CommonMark strips one space on each side of a span's content, which
	// lets the content begin or end with a backtick.
	if strings.HasPrefix(v, "`") || strings.HasSuffix(v, "`") || strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") {
		v = " " + v + " "
	}
	return fence + v + fence
}

// codeBlock is text (a message's first lines) as a fenced code block,
// whose fence is longer than any run of backticks in it, so the text
// mentions nobody and renders nothing.
func codeBlock(text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + "\n" + text + "\n" + fence + "\n"
}

// oneLineOf makes a value's line breaks visible (↵) and its other control
// and direction-changing characters visible (present.Clean).
func oneLineOf(v string) string {
	v = strings.NewReplacer("\r\n", "↵", "\n", "↵", "\r", "↵").Replace(v)
	return present.Clean(v)
}

// markdownEscaper escapes every character that can start markup in
// Mattermost's markdown, inline or at the start of a line: emphasis and
// code, links and images ([ and ], so ! and ( are plain), autolinks (<),
// headings, quotes and tables, channel links (~) and hashtags (#).
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`,
	`#`, `\#`, `|`, `\|`, `~`, `\~`, `$`, `\$`,
	// A bare web address: its scheme's :// is broken (and a www. below), so
	// no autolink, and no link preview, is made of it.
	"://", `\:\/\/`,
)

// wwwRE finds a www. in any case, which Mattermost links as a web address.
var wwwRE = regexp.MustCompile(`(?i)\b(www)\.`)

// markdownText is a sentence of the plugin's, with the names in it, as
// markdown that renders as exactly this text, on one line.
func markdownText(s string) string {
	s = wwwRE.ReplaceAllString(markdownEscaper.Replace(oneLineOf(s)), `$1\.`)
	// An @ inside a word starts an e-mail address, which Mattermost links;
	// an @ at a word's start is a mention, which renders no link elsewhere.
	var b strings.Builder
	var prev rune
	for _, r := range s {
		if r == '@' && prev != 0 && prev != ' ' && prev != '(' && prev != '“' && prev != '"' {
			b.WriteString(`\@`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// markdownLine is a line in spans as markdown: the model's spans in code,
// the rest escaped.
func markdownLine(l posting.Line) string {
	var b strings.Builder
	for _, s := range l {
		if s.AI {
			b.WriteString(codeSpan(s.Text))
			continue
		}
		b.WriteString(markdownText(s.Text))
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
