package tools

import (
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/postcontent"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// What a post holds besides its message (package postcontent) reaches
// every post listing through postWriter: lookContent reads the facts of a
// page once, addContent fills one view, contentText writes its lines.

// contentFacts are what a page's posts need looked up for their content.
type contentFacts struct {
	meta map[string]*mattermost.PostMeta
	// ackers are the people who acknowledged a post, as the caller sees
	// them; someone the caller may not see is absent.
	ackers    map[string]*model.User
	overrides bool
}

// lookContent reads the metadata of the page's posts and the people who
// acknowledged them.
func (w *postWriter) lookContent(posts []*model.Post) error {
	meta, err := w.c.PostMeta(posts)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var ids []string
	for _, m := range meta {
		for _, a := range m.Acks {
			if !seen[a.UserId] {
				seen[a.UserId] = true
				ids = append(ids, a.UserId)
			}
		}
	}
	ackers, err := w.c.Authors(ids)
	if err != nil {
		return err
	}
	w.content = contentFacts{meta: meta, ackers: ackers, overrides: w.c.UsernameOverridesShown()}
	return nil
}

func (f contentFacts) of(p *model.Post, author *model.User) postcontent.Facts {
	facts := postcontent.Facts{Author: author, OverridesShown: f.overrides}
	m := f.meta[p.Id]
	if m == nil {
		return facts
	}
	facts.Priority = m.Priority
	for _, a := range m.Acks {
		ack := postcontent.Ack{At: a.AcknowledgedAt}
		if u := f.ackers[a.UserId]; u != nil {
			ack.Username = u.Username
		}
		facts.Acks = append(facts.Acks, ack)
	}
	if pv := m.Preview; pv != nil {
		facts.Preview = &postcontent.Preview{URL: pv.URL, Title: pv.Title, Description: pv.Description, Site: pv.SiteName, Image: pv.Image}
	}
	return facts
}

// addContent adds what p holds besides its message to v, whose message
// messageOf has filled: a system message reads in Mattermost's words, the
// author as who Mattermost shows posted it, and the note on hidden
// characters counts those of every part.
func (w *postWriter) addContent(v *PostView, p *model.Post) {
	author := w.authors[p.UserId]
	content, found := postcontent.Of(p, w.content.of(p, author))
	msg, system := postcontent.SystemMessage(p)
	if !system {
		msg = p.Message
	}
	if system || found.Any() {
		cut := false
		if r := []rune(msg); len(r) > maxMessageRunes {
			msg, cut = string(r[:maxMessageRunes]), true
		}
		text, mf := present.Text(msg)
		v.Message, v.MessageCut, v.Hidden = text, cut, found.Plus(mf).Note("This post")
	}
	v.Content = content
	v.Author = content.AuthorAs(v.Author)
}

// postKind is what the header says of a post's type: a system message as
// one; a post carrying message attachments is an ordinary post.
func postKind(v PostView) string {
	switch {
	case v.System:
		return ", system message"
	case v.Type == "" || v.Type == model.PostTypeSlackAttachment:
		return ""
	}
	return fmt.Sprintf(", post type %s", v.Type)
}
