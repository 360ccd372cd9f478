package tools

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// The values the model chooses for a change others see (an emoji, a
// channel's names, purpose and header, a custom status) are checked as
// Mattermost checks them before anyone is asked, so the person is never
// asked about a change Mattermost would refuse, and a refusal says what
// form is allowed.

// emojiNameRE is the form of an emoji name in a reaction (Mattermost's
// model.Reaction.IsValid); EmojiNameMaxLength bounds it.
var emojiNameRE = regexp.MustCompile(`^[a-zA-Z0-9+_-]+$`)

// emojiForm refuses an emoji name that is not of the form Mattermost
// takes; arg is the argument it came in.
func emojiForm(arg, name string) error {
	if name == "" || len(name) > model.EmojiNameMaxLength || !emojiNameRE.MatchString(name) {
		return refusal.New(fmt.Sprintf("%s %s is not an emoji name.", arg, quoteValue(name)),
			fmt.Sprintf("Give an emoji's name without colons: letters, digits, _, + and -, at most %d characters, e.g. thumbsup, white_check_mark or tada; list_emoji lists the custom ones.", model.EmojiNameMaxLength))
	}
	return nil
}

// checkEmoji refuses an emoji that is not of Mattermost's form or does not
// exist on this server (neither a standard emoji nor one of its custom
// emoji).
func checkEmoji(c *mattermost.Caller, arg, name string) error {
	if err := emojiForm(arg, name); err != nil {
		return err
	}
	ok, err := c.EmojiExists(name)
	if err != nil {
		return err
	}
	if !ok {
		custom := "list_emoji lists the server's custom emoji"
		if !c.CustomEmojiOn() {
			custom = "custom emoji are turned off on this server"
		}
		return refusal.New(fmt.Sprintf("There is no emoji :%s: on this Mattermost.", name),
			"Give a standard emoji's name, e.g. thumbsup, white_check_mark or tada, or a custom one ("+custom+").")
	}
	return nil
}

// oneLine refuses a value that is not one line of text Mattermost shows as
// it is: at most max characters, valid UTF-8, no control character (a
// newline included), no invisible or direction-changing character and no
// character that stands for a line break (names.LineSymbol), which would
// make it read differently from what it holds.
func oneLine(arg, v string, max int) error {
	return shownText(arg, v, max, false)
}

// someLines is oneLine that allows newlines (a purpose, a header).
func someLines(arg, v string, max int) error {
	return shownText(arg, v, max, true)
}

func shownText(arg, v string, max int, lines bool) error {
	form := fmt.Sprintf("Give %s as one line of at most %d characters, without control or invisible characters.", arg, max)
	if lines {
		form = fmt.Sprintf("Give %s as text of at most %d characters; it may have line breaks, but no other control or invisible characters.", arg, max)
	}
	if n := utf8.RuneCountInString(v); n > max {
		return refusal.New(fmt.Sprintf("%s is %d characters; Mattermost takes at most %d.", arg, n, max), form)
	}
	if !utf8.ValidString(v) {
		return refusal.New(arg+" is not valid UTF-8.", form)
	}
	if char, why := names.LineSymbol(v); char != "" {
		next := "use a plain name on one line."
		if lines {
			next = "write a line break as a real line break."
		}
		return refusal.New(fmt.Sprintf("%s holds %s: %s.", arg, char, why), fmt.Sprintf("Remove %s from %s; %s", char, arg, next))
	}
	for _, r := range v {
		switch {
		case r == '\n' && lines:
		case r == '\n' || r == '\r':
			return refusal.New(arg+" holds a line break.", form)
		case unicode.IsControl(r):
			return refusal.New(fmt.Sprintf("%s holds the control character U+%04X.", arg, r), form)
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			// Cf holds the zero-width and bidirectional controls and the
			// tag characters.
			return refusal.New(fmt.Sprintf("%s holds the invisible or direction-changing character U+%04X.", arg, r), form)
		}
	}
	return nil
}

// quoteValue is a value of the model's, quoted for a refusal, cut short.
func quoteValue(v string) string {
	const most = 80 // enough to recognise the value, not to repeat a page
	if r := []rune(v); len(r) > most {
		v = string(r[:most]) + "…"
	}
	return fmt.Sprintf("%q", present.Clean(strings.TrimSpace(v)))
}
