package mattermost

import (
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/expiring"
)

// A file's record from Mattermost carries the text Mattermost extracted
// from it (up to a megabyte for a text file), and the plugin API hands it
// over whole on every read: paging through a large text file moved that
// megabyte on every window. What the plugin needs of a posted file (name,
// size, type, where it was posted) does not change, so each node keeps it
// without the text for a while; what can change (the post deleted, the
// file taken off the post, the person's access) is asked on every read,
// from the post, which is small.
const (
	// fileFactsFor is how long a node keeps a file's record: it bounds
	// only how stale a field Mattermost never changes could be.
	fileFactsFor = time.Minute
	// maxFileFacts bounds the records kept (each a few hundred bytes
	// without its text): past it the stale ones go, and when none is
	// stale, all.
	maxFileFacts = 4096
)

// keptRecord is a record as a node keeps it: a copy without the text.
type keptRecord struct {
	info      model.FileInfo
	textBytes int64
}

func newFileFacts() *expiring.Map[string, keptRecord] {
	return expiring.New[string, keptRecord](fileFactsFor, maxFileFacts)
}

// keepFile keeps a posted file's record without its text.
func (g *Gateway) keepFile(r record) {
	if !cacheable(r.info) {
		return
	}
	kept := keptRecord{info: *r.info, textBytes: r.textBytes}
	kept.info.Content = ""
	g.files.Put(r.info.Id, kept, time.Now())
}

// keptFile is a copy of the record keepFile kept.
func (g *Gateway) keptFile(id string) (record, bool) {
	kept, ok := g.files.Get(id, time.Now())
	return record{info: &kept.info, textBytes: kept.textBytes}, ok
}

// knownFile is File for a file this node has the record of: its post says
// whether it is still posted, and where. known is false when the post no
// longer matches the record (the file taken off it in an edit, the thread
// moved): then Mattermost's record is read again.
func (c *Caller) knownFile(r record) (f Readable, known bool, err error) {
	info := r.info
	post, err := c.g.api.Post.GetPost(info.PostId)
	if err != nil {
		if isNotFound(err) {
			c.g.files.Drop(info.Id)
			return Readable{}, true, ErrNotFound
		}
		return Readable{}, true, notFoundOr(err, "read post")
	}
	if !postLists(post, info) { // access.go
		c.g.files.Drop(info.Id)
		return Readable{}, false, nil
	}
	if !c.canRead(post.ChannelId) {
		return Readable{}, true, ErrNotFound
	}
	return Readable{info: info, textBytes: r.textBytes, channelID: post.ChannelId, postID: post.Id}, true, nil
}

// postFile is a file of a post just read: a record kept here needs no
// second look at the post.
func (c *Caller) postFile(p *model.Post, id string) (*model.FileInfo, bool) {
	r, ok := c.g.keptFile(id)
	if !ok || r.info.PostId != p.Id || r.info.ChannelId != p.ChannelId {
		return nil, false
	}
	return r.info, true
}

// cacheable is a posted file: its record is kept without the extracted
// text, which ExtractedText reads when it is needed.
func cacheable(info *model.FileInfo) bool {
	return info.PostId != "" && info.ChannelId != "" && info.DeleteAt == 0
}
