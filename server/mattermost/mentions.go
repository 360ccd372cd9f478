package mattermost

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/shared/markdown"
)

// The rules here are Mattermost's own (server/channels/app: notification.go
// getExplicitMentions, mention_parser_standard.go, mention_keywords.go
// AddUser), so that what list_mentions lists is what Mattermost counts in
// the channel's mention_count.

// MentionKeys are the words that mention the caller, as Mattermost reads
// them from their account: @username, their own mention keys, their first
// name when they asked for it; and, when they have "Notify me about
// @channel, @all and @here" on, those three.
type MentionKeys struct {
	Personal    []string
	ChannelWide []string

	// words are the keys Mattermost compares in lower case (@username and
	// the mention keys), each with the key as listed.
	words map[string]string
	// firstName is compared as written, as Mattermost does.
	firstName string
}

var channelWideKeys = []string{"@channel", "@all", "@here"}

// MentionKeys of the caller.
func (c *Caller) MentionKeys() (MentionKeys, error) {
	u, err := c.Me()
	if err != nil {
		return MentionKeys{}, err
	}
	return mentionKeysOf(u), nil
}

func mentionKeysOf(u *model.User) MentionKeys {
	keys := MentionKeys{Personal: []string{"@" + u.Username}, words: map[string]string{strings.ToLower("@" + u.Username): "@" + u.Username}}
	for _, k := range u.GetMentionKeys() {
		if _, dup := keys.words[strings.ToLower(k)]; !dup {
			keys.words[strings.ToLower(k)] = k
			keys.Personal = append(keys.Personal, k)
		}
	}
	if u.NotifyProps[model.FirstNameNotifyProp] == "true" && u.FirstName != "" {
		keys.firstName = u.FirstName
		if _, dup := keys.words[strings.ToLower(u.FirstName)]; !dup {
			keys.Personal = append(keys.Personal, u.FirstName)
		}
	}
	// Mattermost asks for "true": an account without the setting gets no
	// channel-wide mentions.
	if u.NotifyProps[model.ChannelMentionsNotifyProp] == "true" {
		keys.ChannelWide = channelWideKeys
	}
	return keys
}

// IgnoresChannelMentions reports whether a channel member's settings turn
// @channel, @all and @here off in that channel: "Ignore mentions for
// @channel, @here and @all" on, or the channel muted with that setting left
// at its default.
func IgnoresChannelMentions(props model.StringMap) bool {
	ignore := props[model.IgnoreChannelMentionsNotifyProp]
	return ignore == model.IgnoreChannelMentionsOn ||
		props[model.MarkUnreadNotifyProp] == model.UserNotifyMention && ignore == model.IgnoreChannelMentionsDefault
}

// Mentions are the keys a post mentions, the way Mattermost tells a
// mention when the post is made: in the message and the text of its
// attachments, outside code spans, code blocks and link targets, a key as a
// word of its own (trailing ".", "-", ":" or "_" allowed). channelWide is
// whether @channel, @all and @here count in this post (see MentionChecker).
func (k MentionKeys) Mentions(p *model.Post, channelWide bool) []string {
	found := map[string]bool{}
	check := func(word string) bool {
		if key, ok := k.match(word, channelWide); ok {
			found[key] = true
			return true
		}
		return false
	}
	buf := ""
	flush := func() {
		if buf != "" {
			k.processText(buf, check)
		}
		buf = ""
	}
	for _, text := range mentionFields(p) {
		markdown.Inspect(text, func(node any) bool {
			t, ok := node.(*markdown.Text)
			if !ok {
				flush()
				return true
			}
			buf += t.Text
			return false
		})
	}
	flush()
	var out []string
	for _, key := range append(append([]string{}, k.Personal...), k.ChannelWide...) {
		if found[key] {
			out = append(out, key)
		}
	}
	return out
}

// match is checkForMention: the key a word is, lower case first, then the
// first name as written.
func (k MentionKeys) match(word string, channelWide bool) (string, bool) {
	lower := strings.ToLower(word)
	for _, cw := range channelWideKeys {
		if lower == cw {
			if channelWide && len(k.ChannelWide) > 0 {
				return cw, true
			}
			return "", false
		}
	}
	if key, ok := k.words[lower]; ok {
		return key, true
	}
	if k.firstName != "" && word == k.firstName {
		return k.firstName, true
	}
	return "", false
}

// processText is StandardMentionParser.ProcessText, for the keys of one
// person.
func (k MentionKeys) processText(text string, check func(string) bool) {
	for _, word := range strings.FieldsFunc(text, func(c rune) bool {
		return !(c == ':' || c == '.' || c == '-' || c == '_' || c == '@' || unicode.IsLetter(c) || unicode.IsNumber(c))
	}) {
		// ":word:" is an emoji.
		if word[0] == ':' && word[len(word)-1] == ':' {
			continue
		}
		word = strings.TrimLeft(word, ":.-_")
		if check(word) {
			continue
		}
		// "@alice." and "@alice_" end a sentence or a word.
		found := false
		for w := word; w != "" && strings.LastIndexAny(w, ".-:_") == len(w)-1; {
			w = w[:len(w)-1]
			if check(w) {
				found = true
				break
			}
		}
		if found {
			continue
		}
		// A word that is no @mention but holds a sentence end is split:
		// "deploy.zeppelin" holds the key "zeppelin".
		if !strings.HasPrefix(word, "@") && strings.ContainsAny(word, ".-:") {
			for _, part := range strings.FieldsFunc(word, func(c rune) bool { return c == '.' || c == '-' || c == ':' }) {
				check(part)
			}
		}
		k.multibyte(word, check)
	}
}

// multibyte is isKeywordMultibyte: a key with characters outside ASCII is
// found anywhere inside a word (scripts without spaces between words).
func (k MentionKeys) multibyte(word string, check func(string) bool) {
	if len(word) == utf8.RuneCountInString(word) {
		return
	}
	for lower := range k.words {
		if len(lower) != utf8.RuneCountInString(lower) && strings.Contains(word, lower) {
			check(lower)
		}
	}
	if f := k.firstName; f != "" && len(f) != utf8.RuneCountInString(f) && strings.Contains(word, f) {
		check(f)
	}
}

// mentionFields are the texts of a post in which Mattermost looks for
// mentions: the message, and the pretext, text and field values of its
// message attachments.
func mentionFields(p *model.Post) []string {
	out := []string{p.Message}
	for _, a := range p.Attachments() {
		if a.Pretext != "" {
			out = append(out, a.Pretext)
		}
		if a.Text != "" {
			out = append(out, a.Text)
		}
		for _, f := range a.Fields {
			if s, ok := f.Value.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// MentionChecker tells which posts mention the caller, as Mattermost counts
// them, reading each channel's settings once per call.
type MentionChecker struct {
	c    *Caller
	keys MentionKeys
	// maxNotify is TeamSettings.MaxNotificationsPerChannel: in a channel
	// with at least that many members @channel, @all and @here notify
	// nobody.
	maxNotify int64
	channels  map[string]channelWideRule
	posters   map[string]bool // channel id + poster id -> may use channel mentions
}

type channelWideRule struct {
	allowed bool
	direct  bool
}

// MentionChecker of the caller.
func (c *Caller) MentionChecker() (*MentionChecker, error) {
	keys, err := c.MentionKeys()
	if err != nil {
		return nil, err
	}
	m := &MentionChecker{c: c, keys: keys, channels: map[string]channelWideRule{}, posters: map[string]bool{}}
	if cfg := c.g.config(); cfg != nil && cfg.TeamSettings.MaxNotificationsPerChannel != nil {
		m.maxNotify = *cfg.TeamSettings.MaxNotificationsPerChannel
	}
	return m, nil
}

// Keys are the caller's mention keys.
func (m *MentionChecker) Keys() MentionKeys { return m.keys }

// Mentions are the keys a post the caller can read mentions. In a direct
// message Mattermost reads no keys (every message there counts, as a
// direct message); @channel, @all and @here count unless the caller
// ignores them in that channel, the poster may not use them, the channel is
// too large, or the post is a header or purpose change.
func (m *MentionChecker) Mentions(p *model.Post) ([]string, error) {
	rule, err := m.channelRule(p.ChannelId)
	if err != nil {
		return nil, err
	}
	if rule.direct {
		return m.keys.Mentions(p, false), nil
	}
	wide := rule.allowed && len(m.keys.ChannelWide) > 0 &&
		p.Type != model.PostTypeHeaderChange && p.Type != model.PostTypePurposeChange
	if wide {
		key := p.ChannelId + p.UserId
		may, ok := m.posters[key]
		if !ok {
			may = m.c.g.api.User.HasPermissionToChannel(p.UserId, p.ChannelId, model.PermissionUseChannelMentions)
			m.posters[key] = may
		}
		wide = may
	}
	return m.keys.Mentions(p, wide), nil
}

func (m *MentionChecker) channelRule(channelID string) (channelWideRule, error) {
	if r, ok := m.channels[channelID]; ok {
		return r, nil
	}
	var r channelWideRule
	ch, appErr := m.c.g.raw.GetChannel(channelID)
	if appErr != nil {
		return r, notFoundOr(appErr, "read channel")
	}
	r.direct = ch.Type == model.ChannelTypeDirect
	member, appErr := m.c.g.raw.GetChannelMember(channelID, m.c.userID)
	switch {
	case appErr != nil && isNotFound(appErr):
		// No longer a member: nothing there counts for the caller now.
	case appErr != nil:
		return r, fmt.Errorf("read channel membership: %w", appErr)
	default:
		r.allowed = !IgnoresChannelMentions(member.NotifyProps)
	}
	if r.allowed && m.maxNotify > 0 {
		stats, appErr := m.c.g.raw.GetChannelStats(channelID)
		if appErr != nil {
			return r, fmt.Errorf("read channel member count: %w", appErr)
		}
		r.allowed = stats.MemberCount < m.maxNotify
	}
	m.channels[channelID] = r
	return r, nil
}

// SearchMentions finds up to perPage of the newest posts, in one of the
// caller's teams (with their direct and group messages), that contain any
// of terms, the way Mattermost's Recent mentions searches (is_or_search).
// Only posts the caller can read come back, newest first; the caller
// checks each with a MentionChecker, as search matches words, not mentions.
func (c *Caller) SearchMentions(teamID, terms string, perPage int) ([]*model.Post, error) {
	return c.SearchPostsAnyTerm(teamID, terms, perPage)
}
