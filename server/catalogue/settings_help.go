package catalogue

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// WriteSettings is what the System Console (plugin.json's help texts) and
// the README's settings table say the two write settings allow, made from
// the tools that write, so that a new write cannot go unmentioned where an
// admin decides on the switch.
type WriteSettings struct {
	// AllowHelp and ConfirmHelp are the help texts of "Allow tools that
	// change Mattermost" and "Who confirms a write".
	AllowHelp, ConfirmHelp string
	// AllowRow and ConfirmRow are the same settings' descriptions in the
	// README's settings table.
	AllowRow, ConfirmRow string
}

// DescribeWrites says what the tools that write do, toolset by toolset in
// the System Console's order, each tool by its title in the order given:
// first the writes others see, which the person confirms, then those only
// the person sees, done without a question.
func DescribeWrites(tools []Tool) WriteSettings {
	confirmed, own := writesBySet(tools, ChangesMattermost), writesBySet(tools, ChangesOwnView)
	offers := "Writes others see, each confirmed by the person as set below. " + listed(confirmed) +
		" Writes only the person sees, done without a question. " + listed(own)
	row := "Writes others see, each confirmed by the person. " + listed(confirmed) +
		" Writes only the person sees, without a question. " + listed(own)
	sets := make([]string, len(confirmed))
	for i, s := range confirmed {
		sets[i] = s.set.DisplayName()
	}
	which := joinAnd(sets)
	return WriteSettings{
		AllowHelp: "When true, MCP clients are also offered the tools that change Mattermost. " + offers +
			" When false, only tools that read are offered. A change takes effect on the next request; nobody needs to reconnect.",
		ConfirmHelp: fmt.Sprintf("Before a tool changes what others see (%s, as \"Allow tools that change Mattermost\" lists them), "+
			"the person sees exactly what will be done (for a post: destination, message, who is notified, every file) and says yes or no; "+
			"nothing is uploaded, sent or changed before the answer. Whom each choice trusts: "+
			"\"The MCP client asks\" trusts the MCP client app (Claude, Cursor, VS Code...) to show its form to the person and pass on their answer honestly; "+
			"a client that cannot ask leaves the question to Mattermost. "+
			"\"Always ask in Mattermost\" is the strict choice: only the person, signed in to Mattermost in the web or desktop app, can say yes, "+
			"in the dialog or on the confirmation page; no token, no OAuth app, no bot and not the MCP client's own sign-in can answer, "+
			"so the AI cannot confirm its own writes. Switching to it also applies to questions already handed to a client: "+
			"their answers are refused and the write waits in Mattermost. "+
			"\"Leave it to the MCP client's own tool approval\" trusts the client's own per-tool approval alone: Mattermost asks nothing.", which),
		AllowRow: "Offers the tools that change Mattermost. " + row +
			" Off: only tools that read are listed or callable. Takes effect on the next request.",
		ConfirmRow: fmt.Sprintf("Every write others see (%s) is shown to the person (for a post: destination, message, who is notified, every file) "+
			"before anything is sent or changed. The default trusts the MCP client app to show its form to the person; "+
			"\"Always ask in Mattermost\" trusts only the person, signed in to Mattermost in the web or desktop app "+
			"(see [Who can say yes](#who-can-say-yes)); \"Leave it to the client's own tool approval\" trusts the client's "+
			"per-tool approval alone and asks nothing more.", which),
	}
}

// setWrites is one toolset's writes, by their titles as an admin reads them.
type setWrites struct {
	set    config.Toolset
	writes []string
}

// writesBySet is the tools of effect e grouped by toolset, in the System
// Console's order of toolsets; a toolset without one is left out.
func writesBySet(tools []Tool, e Effect) []setWrites {
	var out []setWrites
	for _, set := range config.Toolsets() {
		s := setWrites{set: set}
		for _, t := range tools {
			if t.Toolset == set && t.Effect == e {
				s.writes = append(s.writes, adminVoice(t.Title))
			}
		}
		if len(s.writes) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// listed is "Posting: post in a channel, pin a post. Status: set the
// person's status."
func listed(sets []setWrites) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = s.set.DisplayName() + ": " + strings.Join(s.writes, ", ") + "."
	}
	return strings.Join(parts, " ")
}

// joinAnd is "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// personWords are the words of a tool title, written to the person ("Set
// your status", "Remind me of a post"), as an admin reads them.
var personWords = regexp.MustCompile(`\b(your|me)\b`)

// adminVoice is a tool's title as the admin's help text says it: its first
// letter in lower case, and about the person ("set the person's status").
func adminVoice(title string) string {
	r, size := utf8.DecodeRuneInString(title)
	s := string(unicode.ToLower(r)) + title[size:]
	return personWords.ReplaceAllStringFunc(s, func(w string) string {
		if w == "your" {
			return "the person's"
		}
		return "the person"
	})
}
