package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

type listMentionsArgs struct {
	Limit int `json:"limit,omitempty" jsonschema:"Posts per page, 1-100; default 20."`
	paged
}

// MentionPage is list_mentions' structured answer.
type MentionPage struct {
	PostPage
	// Keys are the words searched for: @username, mention keys, first
	// name, and @channel, @all, @here unless turned off in the account
	// (in a channel whose "Ignore mentions for @channel, @here and @all"
	// is on, those three do not count).
	Keys []string `json:"keys"`
	// Matched are, post by post, the keys each mentions.
	Matched map[string][]string `json:"matched"`
}

func listMentions(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "list_mentions",
		Title:       "List my recent Mattermost mentions",
		Description: "Lists recent posts by others that mention you, by Mattermost's rules (@username, mention keys, first name if set, @channel/@all/@here unless ignored), newest first, paged.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
	}, d.listMentions)
}

func (d Deps) listMentions(ctx context.Context, args listMentionsArgs) (res catalogue.Result[MentionPage], err error) {
	limit, err := limitOf(args.Limit, defaultHits, maxHits)
	if err != nil {
		return res, err
	}
	pc, offset, err := openPageOffset("list_mentions", args)
	if err != nil {
		return res, err
	}
	if offset+limit > maxHitDepth {
		return res, refusal.New(fmt.Sprintf("Mentions are paged only to the newest %d.", maxHitDepth),
			"Call search_posts with @yourname and an in:, from: or before: filter to go further back.")
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	check, err := c.MentionChecker()
	if err != nil {
		return res, err
	}
	keys := check.Keys()
	ms, err := c.Teams()
	if err != nil {
		return res, err
	}
	all := append(append([]string{}, keys.Personal...), keys.ChannelWide...)
	// Mattermost's Recent mentions searches the personal keys in one
	// search that matches any of them. Search drops common words ("all",
	// "here") unless a quoted term is searched alone, and matches words
	// rather than mentions, so each channel-wide key has its own search,
	// deeper, and every hit is checked for a real mention.
	searches := []struct {
		terms string
		depth int
	}{{strings.Join(quoteKeys(keys.Personal), " "), offset + limit + 1}}
	for _, k := range keys.ChannelWide {
		searches = append(searches, struct {
			terms string
			depth int
		}{`"` + k + `"`, min(maxHitDepth, 4*(offset+limit+1))})
	}
	me := c.UserID()
	seen := map[string]bool{}
	matched := map[string][]string{}
	var hits []*model.Post
	for _, m := range ms {
		for _, s := range searches {
			found, err := c.SearchMentions(m.Team.Id, s.terms, s.depth)
			if err != nil {
				return res, err
			}
			for _, p := range found {
				if seen[p.Id] || p.UserId == me {
					continue
				}
				ks, err := check.Mentions(p)
				if err != nil {
					return res, err
				}
				if len(ks) > 0 {
					seen[p.Id] = true
					matched[p.Id] = ks
					hits = append(hits, p)
				}
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].CreateAt > hits[j].CreateAt })
	page, end, err := pc.offsetPage(c, hits, offset, limit)
	if err != nil {
		return res, err
	}
	return listMentionsAnswer(mentionsFound{cursor: pc, page: page, keys: all, matched: matched, offset: offset, end: end})
}

// mentionsFound is what list_mentions fetched: one page of posts that
// mention the caller, the keys searched and, post by post, the keys found.
type mentionsFound struct {
	cursor  pageCursor
	page    PostPage
	keys    []string
	matched map[string][]string
	// offset and end are the page's place in the list of mentions.
	offset, end int
}

// listMentionsAnswer writes list_mentions' answer.
func listMentionsAnswer(f mentionsFound) (catalogue.Result[MentionPage], error) {
	pc, page, all, matched, offset, end := f.cursor, f.page, f.keys, f.matched, f.offset, f.end
	out := MentionPage{PostPage: page, Keys: all, Matched: map[string][]string{}}
	for _, v := range page.Posts {
		out.Matched[v.ID] = matched[v.ID]
	}
	var b strings.Builder
	quoted := make([]string, len(all))
	for i, k := range all {
		quoted[i] = fmt.Sprintf("%q", present.Name(k))
	}
	if len(page.Posts) == 0 {
		fmt.Fprintf(&b, "No posts by others mention you (%s)", strings.Join(quoted, ", "))
		if offset > 0 {
			b.WriteString(" beyond the previous page")
		}
		b.WriteString(".")
		return answer(b.String(), out)
	}
	fmt.Fprintf(&b, "Posts that mention you (%s), newest first: %d to %d. Read a whole conversation with read_thread(post=<id>).",
		strings.Join(quoted, ", "), offset+1, end)
	pc.writePosts(&b, page, "Older mentions", "These are all the mentions found.")
	return answerLinked(b.String(), out, postLinks(page.Posts...))
}

// quoteKeys puts in quotes the keys search would otherwise split (spaces,
// punctuation), so each is searched whole.
func quoteKeys(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		plain := strings.TrimPrefix(k, "@")
		if strings.ContainsFunc(plain, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			k = `"` + strings.ReplaceAll(k, `"`, "") + `"`
		}
		out = append(out, k)
	}
	return out
}
