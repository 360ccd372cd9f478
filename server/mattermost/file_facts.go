package mattermost

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
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

type fileFact struct {
	info model.FileInfo // without Content
	at   time.Time
}

type fileFacts struct {
	mu sync.Mutex
	m  map[string]fileFact
}

// cacheable is a posted file whose extracted text nothing reads: PDFs are
// read through their extracted text (tools/pdf.go).
func cacheable(info *model.FileInfo) bool {
	return info.PostId != "" && info.ChannelId != "" && info.DeleteAt == 0 &&
		!strings.EqualFold(info.Extension, "pdf") && info.MimeType != "application/pdf"
}

func (f *fileFacts) get(id string, now time.Time) (*model.FileInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.m[id]
	if !ok || now.Sub(e.at) >= fileFactsFor || now.Before(e.at) {
		return nil, false
	}
	info := e.info
	return &info, true
}

func (f *fileFacts) put(info *model.FileInfo, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]fileFact{}
	}
	if _, ok := f.m[info.Id]; !ok && len(f.m) >= maxFileFacts {
		for id, e := range f.m {
			if now.Sub(e.at) >= fileFactsFor {
				delete(f.m, id)
			}
		}
		if len(f.m) >= maxFileFacts {
			clear(f.m)
		}
	}
	kept := *info
	kept.Content = ""
	f.m[info.Id] = fileFact{info: kept, at: now}
}

func (f *fileFacts) drop(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, id)
}

// knownFile is File for a file this node has the record of: its post says
// whether it is still posted, and where. known is false when the post no
// longer matches the record (the file taken off it in an edit, the thread
// moved): then Mattermost's record is read again.
func (c *Caller) knownFile(info *model.FileInfo) (f Readable, known bool, err error) {
	post, err := c.g.api.Post.GetPost(info.PostId)
	if err != nil {
		if isNotFound(err) {
			c.g.files.drop(info.Id)
			return Readable{}, true, ErrNotFound
		}
		return Readable{}, true, notFoundOr(err, "read post")
	}
	if post.DeleteAt != 0 || !slices.Contains(post.FileIds, info.Id) || post.ChannelId != info.ChannelId {
		c.g.files.drop(info.Id)
		return Readable{}, false, nil
	}
	if !c.canRead(post.ChannelId) {
		return Readable{}, true, ErrNotFound
	}
	return Readable{info: info, channelID: post.ChannelId, postID: post.Id}, true, nil
}

// postFile is a file of a post just read: a record kept here needs no
// second look at the post.
func (c *Caller) postFile(p *model.Post, id string) (*model.FileInfo, bool) {
	info, ok := c.g.files.get(id, time.Now())
	if !ok || info.PostId != p.Id || info.ChannelId != p.ChannelId {
		return nil, false
	}
	return info, true
}
