package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Bounds of list_emoji: a name a line, 100 is about 2k tokens.
const (
	defaultEmoji = 100
	maxEmoji     = 500
)

type listEmojiArgs struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"Only emoji whose name starts with this."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Emoji per page, 1-500; default 100."`
	paged
}

// EmojiInfo is a custom emoji in structured answers.
type EmojiInfo struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Created string `json:"created"`
}

// EmojiList is list_emoji's structured answer.
type EmojiList struct {
	Emoji      []EmojiInfo `json:"emoji"`
	Enabled    bool        `json:"enabled"`
	NextCursor string      `json:"next_cursor,omitempty"`
	Complete   bool        `json:"complete"`
}

func listEmoji(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_emoji",
		Title:       "List custom emoji",
		Description: "Lists the server's custom emoji (written :name: in messages and reactions), optionally by name prefix, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listEmoji)
}

func (d Deps) listEmoji(ctx context.Context, args listEmojiArgs) (res catalogue.Result[EmojiList], err error) {
	limit, err := limitOf(args.Limit, defaultEmoji, maxEmoji)
	if err != nil {
		return res, err
	}
	prefix := strings.Trim(strings.TrimSpace(args.Prefix), ":")
	if !mattermost.EmojiName.MatchString(prefix) {
		return res, refusal.New(fmt.Sprintf("%q is not the start of an emoji name: names hold only letters, digits, _, + and -.", present.Name(prefix)),
			"Call list_emoji again with such a prefix, or without prefix.")
	}
	pc, after, err := openPage("list_emoji", args)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	f := emojiFetched{enabled: c.CustomEmojiOn(), prefix: prefix, firstPage: after == ""}
	if !f.enabled {
		return answer(emojiAnswer(f))
	}
	list, more, err := c.CustomEmoji(prefix, after, limit)
	if errors.Is(err, mattermost.ErrNotFound) {
		return res, pc.refuse(err)
	}
	if err != nil {
		return res, err
	}
	f.emoji = list
	if more {
		if f.nextCursor, err = pc.next(list[len(list)-1].Name); err != nil {
			return res, err
		}
		f.nextCall = pc.nextCall(f.nextCursor)
	}
	return answer(emojiAnswer(f))
}

// emojiFetched is what list_emoji read: whether custom emoji are on, one
// page of them, and the cursor and call of the next page when there is one.
type emojiFetched struct {
	enabled    bool
	prefix     string
	firstPage  bool
	emoji      []mattermost.Emoji
	nextCursor string
	nextCall   string
}

// emojiAnswer writes list_emoji's answer from what was read.
func emojiAnswer(f emojiFetched) (string, EmojiList) {
	out := EmojiList{Emoji: []EmojiInfo{}, Enabled: f.enabled}
	if !f.enabled {
		out.Complete = true
		return "Custom emoji are turned off on this server (ServiceSettings.EnableCustomEmoji): only the standard emoji exist.", out
	}
	var b strings.Builder
	what := "Custom emoji"
	if f.prefix != "" {
		what = fmt.Sprintf("Custom emoji starting with %q", f.prefix)
	}
	switch {
	case len(f.emoji) == 0 && f.firstPage:
		fmt.Fprintf(&b, "%s: none.", what)
	case len(f.emoji) == 0:
		fmt.Fprintf(&b, "%s: none past the previous page.", what)
	default:
		fmt.Fprintf(&b, "%s, by name (%d):\n", what, len(f.emoji))
	}
	for _, e := range f.emoji {
		out.Emoji = append(out.Emoji, EmojiInfo{ID: e.ID, Name: e.Name, Created: e.Created.Format(time.RFC3339)})
		fmt.Fprintf(&b, "- :%s: (id %s)\n", e.Name, e.ID)
	}
	if f.nextCursor != "" {
		out.NextCursor = f.nextCursor
		fmt.Fprintf(&b, "More emoji: %s", f.nextCall)
	} else {
		out.Complete = true
		b.WriteString("\nThese are all of them.")
	}
	return strings.TrimSpace(b.String()), out
}
