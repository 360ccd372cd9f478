package present

import (
	"strings"
)

// A post the plugin writes into Mattermost (the bot's direct message, the
// /mcp answers) is markdown that the person's apps render as soon as it
// arrives: an image there is fetched at once, a link invites a click. The
// web app parses with Mattermost's fork of marked, the mobile app with its
// fork of commonmark, and they differ (the web app's lexer turns U+2424
// into a line break before it parses; each autolinks its own forms), so no
// escaping can be proved right for both. Instead a value anyone chose (the
// model, an MCP client, another person) goes into a post only inside one
// fenced code block, which both apps show as text: the fence is longer
// than any run of backticks inside, and every character either app reads as
// a line break is shown as ↵, so no value can end its line or the block.

// LineBreakSign is how a line break inside a value is shown.
const LineBreakSign = "↵"

// minFence is the shortest fence markdown knows.
const minFence = 3

// lineBreaks are what Mattermost's apps, or a reader, take for a line
// break: CommonMark's \n, \r\n and \r, U+2424 (the web app's lexer makes it
// one), the Unicode line and paragraph separators and NEL.
var lineBreaks = strings.NewReplacer(
	"\r\n", LineBreakSign, "\n", LineBreakSign, "\r", LineBreakSign,
	"\u2424", LineBreakSign, "\u2028", LineBreakSign, "\u2029", LineBreakSign, "\u0085", LineBreakSign,
)

// ShownLine is a value as one line of a fenced block: its line breaks shown
// as ↵ and its other control and direction-changing characters made
// visible (Clean).
func ShownLine(v string) string {
	return Clean(lineBreaks.Replace(v))
}

// ShownLines are a text (a message's first lines) as lines of a fenced
// block: split at its real line breaks (\n, \r\n), each line a ShownLine,
// so a \r, a U+2424 or a separator inside a line stays in it as ↵.
func ShownLines(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = ShownLine(l)
	}
	return lines
}

// Fenced is lines as one fenced code block, each line as given: the caller
// makes each with ShownLine or ShownLines. The fence is longer than any run
// of backticks in the lines, so nothing in them can close it.
func Fenced(lines []string) string {
	longest := 0
	for _, l := range lines {
		run := 0
		for _, r := range l {
			if r != '`' {
				run = 0
				continue
			}
			run++
			longest = max(longest, run)
		}
	}
	fence := strings.Repeat("`", max(minFence, longest+1))
	return fence + "\n" + strings.Join(lines, "\n") + "\n" + fence + "\n"
}
