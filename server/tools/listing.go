package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// A paged listing hands out one page and a cursor bound to the tool and to
// the exact other arguments, so a cursor passed with other arguments is
// refused rather than silently mixing two listings.

// pageCursor makes and reads the cursors of one call.
type pageCursor struct {
	tool string
	key  string
	// args are the call's arguments, for the exact next call the answer
	// names.
	args any
}

// openCursor binds cursors to tool and keyArgs (the arguments without the
// cursor) and reads where cursor continues: "" for the first page.
func openCursor(tool string, args, keyArgs any, cursor string) (pageCursor, string, error) {
	key, err := paging.Key(keyArgs)
	if err != nil {
		return pageCursor{}, "", err
	}
	pc := pageCursor{tool: tool, key: key, args: args}
	if cursor == "" {
		return pc, "", nil
	}
	at, err := paging.Decode(cursor, tool, key)
	if err != nil {
		return pc, "", pc.refuse(err)
	}
	return pc, at, nil
}

// offset reads a position in a list from where a cursor continues: 0 for
// the first page.
func (pc pageCursor) offset(at string) (int, error) {
	if at == "" {
		return 0, nil
	}
	offset, err := paging.Offset(at)
	if err != nil {
		return 0, pc.refuse(err)
	}
	return offset, nil
}

// paged is the cursor argument of every paged listing, embedded last in
// its arguments so that they read and fingerprint as they always have.
type paged struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"From the previous answer."`
}

func (p *paged) page() *paged { return p }

// pageArgs is a pointer to the arguments of a paged listing.
type pageArgs[A any] interface {
	*A
	page() *paged
}

// openPage is openCursor for a listing's arguments: its cursors are bound
// to tool and to args without their cursor.
func openPage[A any, P pageArgs[A]](tool string, args A) (pageCursor, string, error) {
	keyArgs := args
	P(&keyArgs).page().Cursor = ""
	return openCursor(tool, args, keyArgs, P(&args).page().Cursor)
}

// openPageOffset is openPage for listings paged by position in a list.
func openPageOffset[A any, P pageArgs[A]](tool string, args A) (pageCursor, int, error) {
	pc, at, err := openPage[A, P](tool, args)
	if err != nil {
		return pc, 0, err
	}
	offset, err := pc.offset(at)
	return pc, offset, err
}

func (pc pageCursor) refuse(err error) error {
	if errors.Is(err, paging.ErrOtherCall) {
		return refusal.New(fmt.Sprintf("This cursor was made by another call (another tool, or %s with other arguments).", pc.tool),
			fmt.Sprintf("Pass a cursor only with exactly the arguments it came with, or call %s again without cursor to start from the beginning.", pc.tool))
	}
	if errors.Is(err, paging.ErrOutOfRange) {
		return refusal.New(fmt.Sprintf("This cursor points beyond any page %s gives (positions go up to %d).", pc.tool, paging.MaxOffset),
			fmt.Sprintf("Call %s again without cursor to start from the beginning, and pass on only the next_cursor an answer gives.", pc.tool))
	}
	return refusal.New(fmt.Sprintf("This cursor is not one %s made.", pc.tool), fmt.Sprintf("Call %s again without cursor to start from the beginning.", pc.tool))
}

// next is the cursor that continues at position at.
func (pc pageCursor) next(at string) (string, error) { return paging.Encode(pc.tool, pc.key, at) }

// nextCall is the exact call that continues with cursor.
func (pc pageCursor) nextCall(cursor string) string {
	fields := map[string]any{}
	if raw, err := json.Marshal(pc.args); err == nil {
		_ = json.Unmarshal(raw, &fields)
	}
	fields["cursor"] = cursor
	raw, err := json.Marshal(fields)
	if err != nil {
		return pc.tool
	}
	return pc.tool + " " + string(raw)
}

// postPage turns the posts of one page into the structured answer; next is
// the cursor position after them, "" when nothing follows.
func (pc pageCursor) postPage(c *mattermost.Caller, shown []*model.Post, next string) (PostPage, error) {
	page := PostPage{Posts: []PostView{}, Complete: next == ""}
	w, err := newPostWriter(c, shown)
	if err != nil {
		return page, err
	}
	for _, p := range shown {
		v, err := w.view(p)
		if err != nil {
			return page, err
		}
		page.Posts = append(page.Posts, v)
	}
	if next != "" {
		if page.NextCursor, err = pc.next(next); err != nil {
			return page, err
		}
	}
	return page, nil
}

// offsetPage cuts the page at offset out of a list already in order.
func (pc pageCursor) offsetPage(c *mattermost.Caller, all []*model.Post, offset, limit int) (PostPage, int, error) {
	end := min(offset+limit, len(all))
	next := ""
	if end < len(all) {
		next = strconv.Itoa(end)
	}
	page, err := pc.postPage(c, all[min(offset, len(all)):end], next)
	return page, end, err
}

// writePosts writes the page's posts and the line that follows them: the
// exact next call (more introduces it), or done.
func (pc pageCursor) writePosts(b *strings.Builder, page PostPage, more, done string) {
	for _, v := range page.Posts {
		postText(b, v)
	}
	b.WriteString("\n")
	if page.NextCursor != "" {
		fmt.Fprintf(b, "%s: %s", more, pc.nextCall(page.NextCursor))
	} else {
		b.WriteString(done)
	}
}
