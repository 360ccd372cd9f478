package mattermost

import (
	"strings"
	"unicode"

	"github.com/mattermost/mattermost/server/public/model"
)

// MentionKeys are the words that mention the caller, as Mattermost reads
// them from their account: @username, their own mention keys, their first
// name when they asked for it; and, unless they turned channel-wide
// mentions off, @channel, @all and @here.
type MentionKeys struct {
	Personal    []string
	ChannelWide []string
}

// MentionKeys of the caller.
func (c *Caller) MentionKeys() (MentionKeys, error) {
	u, err := c.Me()
	if err != nil {
		return MentionKeys{}, err
	}
	keys := MentionKeys{Personal: []string{"@" + u.Username}}
	seen := map[string]bool{strings.ToLower("@" + u.Username): true}
	add := func(k string) {
		k = strings.TrimSpace(k)
		if k != "" && !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			keys.Personal = append(keys.Personal, k)
		}
	}
	for _, k := range strings.Split(u.NotifyProps["mention_keys"], ",") {
		add(k)
	}
	if u.NotifyProps["first_name"] == "true" {
		add(u.FirstName)
	}
	if u.NotifyProps["channel"] != "false" {
		keys.ChannelWide = []string{"@channel", "@all", "@here"}
	}
	return keys, nil
}

// Mentioned are the keys a message mentions, the way Mattermost tells a
// mention: the key as a whole word, any case, so @carol does not mention
// @carolyn and "carolina" does not mention Carol.
func Mentioned(message string, keys []string) []string {
	lower := strings.ToLower(message)
	var out []string
	for _, k := range keys {
		lk := strings.ToLower(k)
		for from := 0; ; {
			i := strings.Index(lower[from:], lk)
			if i < 0 {
				break
			}
			i += from
			end := i + len(lk)
			if !wordRune(lower[:i], true) && !wordRune(lower[end:], false) {
				out = append(out, k)
				break
			}
			from = i + 1
		}
	}
	return out
}

// wordRune reports whether the rune next to a match (the last of before, or
// the first of after) continues a word or a username.
func wordRune(s string, last bool) bool {
	if s == "" {
		return false
	}
	var r rune
	if last {
		r = []rune(s)[len([]rune(s))-1]
	} else {
		r = []rune(s)[0]
		if r == '.' && len(s) > 1 {
			// "@carol." ends a sentence; "@carol.smith" is someone else.
			r = []rune(s)[1]
		}
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '@'
}

// SearchMentions finds up to perPage of the newest posts, in one of the
// caller's teams (with their direct and group messages), that contain any
// of terms, the way Mattermost's Recent mentions searches (is_or_search).
// Only posts the caller can read come back, newest first; the caller
// checks each with Mentioned, as search matches words, not mentions.
func (c *Caller) SearchMentions(teamID, terms string, perPage int) ([]*model.Post, error) {
	return c.search(teamID, terms, true, 0, perPage)
}
