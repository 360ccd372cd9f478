package mattermost

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/model"
)

// The plugin API does not check permissions: every accessor here does, and
// answers ErrNotFound for anything missing, deleted, or not readable by the
// caller, so a tool cannot tell (or tell the model) which it was.

// canRead reports whether the caller may read a channel's posts and files,
// the way Mattermost decides it: channel membership (or a role granting
// it), or, for a public channel, membership of its team; an archived
// channel only while the server lets people view archived channels
// (TeamSettings.ExperimentalViewArchivedChannels).
func (c *Caller) canRead(channelID string) bool {
	if channelID == "" {
		return false
	}
	ch, err := c.channel(channelID)
	return err == nil && c.canReadChannel(ch)
}

// readCheck is canRead asked once per channel: listings check many posts
// of few channels.
func (c *Caller) readCheck() func(channelID string) bool {
	readable := map[string]bool{}
	return func(channelID string) bool {
		ok, seen := readable[channelID]
		if !seen {
			ok = c.canRead(channelID)
			readable[channelID] = ok
		}
		return ok
	}
}

func (c *Caller) canReadChannel(ch *model.Channel) bool {
	if ch.DeleteAt != 0 && !c.policy().viewArchived {
		return false
	}
	if c.may(ch.Id, "", model.PermissionReadChannelContent) {
		return true
	}
	return ch.Type == model.ChannelTypeOpen && ch.DeleteAt == 0 &&
		c.may("", ch.TeamId, model.PermissionReadPublicChannel)
}

// Channel is a channel the caller can read.
func (c *Caller) Channel(channelID string) (*model.Channel, error) {
	if !model.IsValidId(channelID) {
		return nil, ErrNotFound
	}
	ch, err := c.channel(channelID)
	if err != nil {
		return nil, notFoundOr(err, "read channel")
	}
	if !c.canReadChannel(ch) {
		return nil, ErrNotFound
	}
	return ch, nil
}

// Post is a post the caller can read.
func (c *Caller) Post(postID string) (*model.Post, error) {
	if !model.IsValidId(postID) {
		return nil, ErrNotFound
	}
	p, err := c.g.api.Post.GetPost(postID)
	if err != nil {
		return nil, notFoundOr(err, "read post")
	}
	if p.DeleteAt != 0 || !c.canRead(p.ChannelId) {
		return nil, ErrNotFound
	}
	return p, nil
}

// Readable is an attachment File found the caller may read. Only File
// makes one (its fields are unexported), so holding a Readable is proof
// that the check was made.
type Readable struct {
	info *model.FileInfo
	// textBytes is the length of the text Mattermost extracted from it, as
	// its record read it (0 when none was known).
	textBytes int64
	// channelID and postID are where it was posted; both empty for a file
	// the caller uploaded and has not posted yet.
	channelID, postID string
}

// Info is the attachment's file info.
func (f Readable) Info() *model.FileInfo { return f.info }

// ChannelID is the channel it was posted in ("" before it is posted).
func (f Readable) ChannelID() string { return f.channelID }

// PostID is the post it belongs to ("" before it is posted).
func (f Readable) PostID() string { return f.postID }

// File is an attachment the caller can read, with where it was posted.
func (c *Caller) File(fileID string) (Readable, error) {
	if !model.IsValidId(fileID) {
		return Readable{}, ErrNotFound
	}
	if kept, ok := c.g.keptFile(fileID); ok {
		if f, known, err := c.knownFile(kept); known { // file_facts.go
			return f, err
		}
	}
	r, err := c.g.fileRecord(fileID)
	if err != nil {
		return Readable{}, err
	}
	info := r.info
	if info.DeleteAt != 0 {
		// Deleting a post deletes its files too.
		return Readable{}, ErrNotFound
	}
	if info.PostId == "" {
		// Not posted yet: only its uploader may see it.
		if info.CreatorId != c.userID {
			return Readable{}, ErrNotFound
		}
		return Readable{info: info, textBytes: r.textBytes}, nil
	}
	// A posted file is read only while its post is: a record outlives its
	// post where the post goes without Mattermost deleting its files (a
	// thread moved, content flagged, a post removed by a job or a plugin).
	post, err := c.Post(info.PostId)
	if err != nil {
		return Readable{}, err
	}
	if !postLists(post, info) {
		return Readable{}, ErrNotFound
	}
	c.g.keepFile(r)
	return Readable{info: info, textBytes: r.textBytes, channelID: post.ChannelId, postID: post.Id}, nil
}

// postLists reports whether a live post still holds a file: it lists the
// file, and it is in the channel the file's record names (no channel on
// files attached before Mattermost kept it there). An edit can take a file
// off its post, and a move leave the record behind, with the record as it
// was.
func postLists(post *model.Post, info *model.FileInfo) bool {
	return post.DeleteAt == 0 && slices.Contains(post.FileIds, info.Id) && (info.ChannelId == "" || post.ChannelId == info.ChannelId)
}

// FileBytes reads an attachment that File has already cleared for the
// caller: only File hands out a Readable. Callers check the size against
// their cap first: the plugin API hands back the whole file.
func (c *Caller) FileBytes(f Readable) ([]byte, error) {
	if f.info == nil {
		// The zero Readable cleared nothing.
		return nil, ErrNotFound
	}
	if copyOfFile(f.info) {
		return []byte(f.info.Content), nil
	}
	if textMayBeTheFile(f) {
		// The record read from the table came without the text: asked now,
		// a plain text file's text is the file, and the file store is not
		// asked at all.
		if info, appErr := c.g.raw.GetFileInfo(f.info.Id); appErr == nil && copyOfFile(info) {
			return []byte(info.Content), nil
		}
	}
	data, appErr := c.g.raw.GetFile(f.info.Id)
	if appErr != nil {
		return nil, notFoundOr(appErr, "read file")
	}
	return data, nil
}

// ExtractedText is the text Mattermost extracted from a file File cleared
// for the caller (FileSettings.ExtractContent; "" when there is none). A
// record read from the table comes without it, so it is read here, through
// the plugin API, only when a file's text is what is read.
func (c *Caller) ExtractedText(f Readable) (string, error) {
	if f.info == nil {
		return "", ErrNotFound
	}
	if f.info.Content != "" {
		return f.info.Content, nil
	}
	info, appErr := c.g.raw.GetFileInfo(f.info.Id)
	if appErr != nil {
		return "", notFoundOr(appErr, "read file's text")
	}
	return info.Content, nil
}

// convertedByMattermost are the extensions whose text Mattermost extracts
// by converting (its document, PDF and archive extractors): their text is
// not the file.
var convertedByMattermost = map[string]bool{"doc": true, "docx": true, "pptx": true, "odt": true, "html": true, "htm": true,
	"rtf": true, "pdf": true, "zip": true, "tar": true, "gz": true, "tgz": true, "bz2": true, "xz": true, "7z": true, "rar": true, "zst": true}

// copyOfFile reports whether the text Mattermost extracted from a file,
// which came with its record (read through the plugin API where the table
// does not answer), is the file itself: for a plain text file Mattermost's
// extractor keeps the bytes as they are, cut at 1 MiB. The same length and
// valid UTF-8 tell it was not cut or converted, and the file's bytes need
// not cross the plugin API a second time.
func copyOfFile(info *model.FileInfo) bool {
	return info.Content != "" && int64(len(info.Content)) == info.Size && !info.IsImage() &&
		!convertedByMattermost[strings.ToLower(info.Extension)] && utf8.ValidString(info.Content)
}

// extractedCap is the most text Mattermost keeps of a file: a larger file
// is cut, so its text is never the file.
const extractedCap = 1 << 20

// textMayBeTheFile reports whether the text Mattermost extracted from a
// file, not read yet, may be the file itself (copyOfFile): its length, as
// the record read it, is the file's; or none was known then (extraction
// runs a moment after upload) and the file is small text of a kind
// Mattermost keeps as it is (no image, audio or video, nothing it converts).
func textMayBeTheFile(f Readable) bool {
	info := f.info
	if info.Content != "" || info.Size <= 0 || info.IsImage() || convertedByMattermost[strings.ToLower(info.Extension)] {
		return false
	}
	if f.textBytes > 0 {
		return f.textBytes == info.Size
	}
	return info.Size <= extractedCap && !strings.HasPrefix(info.MimeType, "audio/") && !strings.HasPrefix(info.MimeType, "video/")
}

// notFoundOr turns Mattermost's "not found" into ErrNotFound and wraps the
// rest, which are real failures.
func notFoundOr(err error, what string) error {
	if isNotFound(err) {
		return ErrNotFound
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Readers are which of userIDs can read the channel now, asked together:
// its members with one call, and, for a public channel, each other person
// as Caller.Channel asks (a team member may read it without joining). A
// channel that is gone or archived is read by none of them here: nothing
// new is posted in it.
func (g *Gateway) Readers(channelID string, userIDs []string) (map[string]bool, error) {
	out := make(map[string]bool, len(userIDs))
	ch, err := g.api.Channel.Get(channelID)
	if err != nil {
		return out, notFoundOr(err, "read channel")
	}
	if ch.DeleteAt != 0 {
		return out, nil
	}
	members, err := g.api.Channel.ListMembersByIDs(channelID, userIDs)
	if err != nil {
		return out, err
	}
	for _, m := range members {
		out[m.UserId] = true
	}
	if ch.Type != model.ChannelTypeOpen {
		return out, nil
	}
	for _, id := range userIDs {
		if !out[id] {
			out[id] = g.As(id).canReadChannel(ch)
		}
	}
	return out, nil
}
