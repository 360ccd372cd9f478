package tools

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// fetch reads in full what a research id names, with the text the reading
// tools write for it (read_thread, read_file, get_channel and
// read_channel), so a research host reads what any client reads.

const (
	// fetchThreadPosts is how much of a thread one fetch gives: a long
	// discussion whole; past it the text says what was left out.
	fetchThreadPosts = 100
	// fetchChannelPosts is how many recent posts come with a channel: its
	// latest conversation, not its history.
	fetchChannelPosts = 30
)

// FetchedItem is fetch's answer, the contract research hosts read.
type FetchedItem struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	URL   string `json:"url"`
	// Metadata is facts a host may show beside a citation, all strings.
	Metadata map[string]string `json:"metadata,omitempty"`
}

func (d Deps) fetch(ctx context.Context, args fetchArgs) (res catalogue.Result[FetchedItem], err error) {
	rid, err := parseResearchID(args.ID)
	if err != nil {
		return res, err
	}
	tried := researchKinds
	if rid.kind != "" {
		tried = []researchKind{rid.kind}
	}
	// A kind is read only where the tool it stands for is offered, decided
	// before anything is read: fetch is no way around the admin's settings
	// or the connection's choice.
	var kinds []researchKind
	var skipped []withheldKind
	for _, k := range tried {
		if why := d.kindWithheld(ctx, k); why != "" {
			skipped = append(skipped, withheldKind{kind: k, why: why})
			continue
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return res, withheldResearch(rid, skipped)
	}
	ct, err := d.citer(ctx)
	if err != nil {
		return res, err
	}
	for _, k := range kinds {
		var item FetchedItem
		switch k {
		case researchPost:
			item, err = d.fetchPost(ct, rid.id)
		case researchFile:
			item, err = d.fetchFile(ctx, ct, rid.id)
		case researchChannel:
			item, err = d.fetchChannel(ct, rid.id)
		}
		if errors.Is(err, mattermost.ErrNotFound) {
			continue
		}
		if err != nil {
			return res, err
		}
		item.ID = researchID{kind: k, id: rid.id}.String()
		return asJSON(item)
	}
	return res, notFoundResearch(rid, kinds, skipped)
}

// withheldKind is a kind fetch does not read here, and why: its tool is
// not offered.
type withheldKind struct {
	kind researchKind
	why  string
}

// kindWithheld is why kind may not be read on the connection of ctx,
// naming the tool it stands for, or "".
func (d Deps) kindWithheld(ctx context.Context, k researchKind) string {
	why := d.withheld(ctx, k.tool())
	if why == "" {
		return ""
	}
	return k.tool() + " is not offered here, since " + why
}

// fetchPost is a post's whole thread as read_thread writes it.
func (d Deps) fetchPost(ct *citer, postID string) (FetchedItem, error) {
	thread, err := ct.c.Thread(postID)
	if err != nil {
		return FetchedItem{}, err
	}
	pc, _, err := openPageOffset("read_thread", readThreadArgs{Post: postID, Limit: fetchThreadPosts})
	if err != nil {
		return FetchedItem{}, err
	}
	page, end, err := pc.offsetPage(ct.c, thread, 0, fetchThreadPosts)
	if err != nil {
		return FetchedItem{}, err
	}
	root := thread[0]
	v, err := ct.place(root.ChannelId)
	if err != nil {
		return FetchedItem{}, err
	}
	return threadItem(fetchedThread{
		posts: threadPosts{cursor: pc, rootID: root.Id, total: len(thread), page: page, end: end},
		root:  root, lastAt: thread[len(thread)-1].CreateAt,
		view: v, where: ct.where(v), author: ct.author(root.UserId), site: ct.c.SiteURL(),
	})
}

// fetchedThread is what fetch read of a thread.
type fetchedThread struct {
	posts  threadPosts
	root   *model.Post
	lastAt int64
	view   place
	where  string
	author string
	site   string
}

// threadItem writes fetch's answer for a thread.
func threadItem(f fetchedThread) (FetchedItem, error) {
	text, err := readThreadAnswer(f.posts)
	if err != nil {
		return FetchedItem{}, err
	}
	root := f.root
	meta := placeFacts(f.view, f.where)
	meta["type"] = "thread"
	meta["author"] = f.author
	meta["created_at"] = rfc3339(root.CreateAt)
	meta["replies"] = strconv.Itoa(f.posts.total - 1)
	meta["last_post_at"] = rfc3339(f.lastAt)
	meta["posts_shown"] = strconv.Itoa(f.posts.end)
	if root.EditAt != 0 {
		meta["edited_at"] = rfc3339(root.EditAt)
	}
	return FetchedItem{
		Title:    postTitle(root.Message, f.where, f.author, root.CreateAt),
		Text:     text.Text,
		URL:      present.Permalink(f.site, f.view.teamName(), root.Id),
		Metadata: meta,
	}, nil
}

// fetchFile is a file as read_file reads its text; an image, audio or
// video, which a text cannot carry, is described as get_file_info does.
func (d Deps) fetchFile(ctx context.Context, ct *citer, fileID string) (FetchedItem, error) {
	l, err := d.locate(ct.c, fileTarget{FileID: fileID})
	if err != nil {
		// locate refuses an unknown file with read_file's advice; fetch
		// says its own.
		if _, ok := refusal.As(err); ok {
			return FetchedItem{}, mattermost.ErrNotFound
		}
		return FetchedItem{}, err
	}
	info := l.Info()
	var text string
	if media(info.MimeType) {
		f := fileInfoFetched{info: info, channel: l.place.Channel, permalink: l.permalink, config: d.Config()}
		f.postedBy = strings.TrimPrefix(ct.author(info.CreatorId), "@")
		text, _ = fileInfoAnswer(f)
		text += "\nIts content is not text, so this is what is known of it; a person sees it at its post."
	} else {
		read, err := d.readLocated(ctx, ct.c, l, readFileArgs{fileTarget: fileTarget{FileID: fileID}})
		if r, ok := refusal.As(err); ok {
			return FetchedItem{}, r
		}
		if err != nil {
			return FetchedItem{}, err
		}
		text = read.Text
	}
	f := fetchedFile{info: info, text: text, postedBy: ct.author(info.CreatorId), site: ct.c.SiteURL(), permalink: l.permalink}
	if ch := l.place.Channel; ch != nil {
		v, err := ct.place(ch.Id)
		if err != nil {
			return FetchedItem{}, err
		}
		f.view, f.where = &v, ct.where(v)
	}
	return fileItem(f), nil
}

// fetchedFile is what fetch read of a file: its text, and where it was
// posted (view nil for a file not posted yet).
type fetchedFile struct {
	info      *model.FileInfo
	text      string
	postedBy  string
	view      *place
	where     string
	site      string
	permalink string
}

// fileItem writes fetch's answer for a file.
func fileItem(f fetchedFile) FetchedItem {
	info := f.info
	meta := map[string]string{"type": "file", "name": present.Name(info.Name), "mime_type": info.MimeType,
		"size_bytes": strconv.FormatInt(info.Size, 10), "created_at": rfc3339(info.CreateAt), "posted_by": f.postedBy}
	where, url := "your uploads", strings.TrimRight(f.site, "/")
	if f.view != nil {
		where, url = f.where, f.permalink
		maps.Copy(meta, placeFacts(*f.view, f.where))
	}
	return FetchedItem{Title: fileTitle(info.Name, where, info.CreateAt), Text: f.text, URL: url, Metadata: meta}
}

// media is a type whose content a text cannot carry.
func media(mimeType string) bool {
	for _, p := range []string{"image/", "audio/", "video/"} {
		if strings.HasPrefix(mimeType, p) {
			return true
		}
	}
	return false
}

// fetchChannel is a channel as get_channel describes it, then its recent
// thread roots as read_channel shows them.
func (d Deps) fetchChannel(ct *citer, channelID string) (FetchedItem, error) {
	v, err := ct.place(channelID)
	if err != nil {
		return FetchedItem{}, err
	}
	// Thread roots with their reply counts: the channel's latest topics,
	// each fetched whole by its id, rather than the last replies of one.
	const collapsed = true
	walk, err := walkChannel(ct.c, channelID, "", 0, 0, fetchChannelPosts, collapsed)
	if err != nil {
		return FetchedItem{}, err
	}
	pc, _, err := openPage("read_channel", readChannelArgs{Channel: channelID, Limit: fetchChannelPosts, Replies: repliesCollapsed})
	if err != nil {
		return FetchedItem{}, err
	}
	page, _, err := pc.channelPage(ct.c, v, walk)
	if err != nil {
		return FetchedItem{}, err
	}
	return channelItem(fetchedChannel{
		posts: channelPosts{cursor: pc, view: v, page: page, firstPage: true, collapsed: collapsed, chosen: true, skippedReplies: walk.skippedReplies, scannedOut: walk.scannedOut},
		where: ct.where(v), url: ct.channelURL(v),
	})
}

// fetchedChannel is what fetch read of a channel: its recent posts, and
// how it is cited.
type fetchedChannel struct {
	posts      channelPosts
	where, url string
}

// channelItem writes fetch's answer for a channel.
func channelItem(f fetchedChannel) (FetchedItem, error) {
	v := f.posts.view
	recent, err := readChannelAnswer(f.posts)
	if err != nil {
		return FetchedItem{}, err
	}
	// The channel as get_channel describes it, but for its advice to call
	// read_channel: its recent posts follow.
	about := getChannelAnswer(v).Text
	if i := strings.LastIndex(about, "\nRead it with read_channel("); i >= 0 {
		about = about[:i]
	}
	meta := placeFacts(v, f.where)
	meta["type"] = "channel"
	meta["posts_shown"] = strconv.Itoa(len(f.posts.page.Posts))
	if v.ch.LastPostAt != 0 {
		meta["last_post_at"] = rfc3339(v.ch.LastPostAt)
	}
	return FetchedItem{Title: channelTitle(v, f.where), Text: about + "\n\n" + recent.Text, URL: f.url, Metadata: meta}, nil
}

// placeFacts are the metadata of where something is.
func placeFacts(v place, where string) map[string]string {
	meta := map[string]string{"channel": present.Name(where), "channel_id": v.ch.Id, "channel_type": channelType(v.ch.Type)}
	if v.team != nil {
		meta["team"] = present.Name(v.team.DisplayName)
		meta["team_name"] = v.team.Name
	}
	return meta
}
