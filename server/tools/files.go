package tools

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
)

type fileTarget struct {
	FileID    string `json:"file_id,omitempty" jsonschema:"As listed beside a post."`
	Permalink string `json:"permalink,omitempty" jsonschema:"Else the post's permalink or id (and file_name if several)."`
	FileName  string `json:"file_name,omitempty" jsonschema:"With permalink: the file's name."`
}

type readFileArgs struct {
	fileTarget
	Offset int `json:"offset,omitempty" jsonschema:"First line, from 1 (default); each header gives the next call."`
	Column int `json:"column,omitempty" jsonschema:"Byte column in the first line, if a header says so."`
	Limit  int `json:"limit,omitempty" jsonschema:"Lines, 1-2000; default 500. A window also stops at 32 KiB."`
}

type fileInfoArgs struct {
	fileTarget
}

type searchFilesArgs struct {
	Words     string `json:"words,omitempty" jsonschema:"Words in the file's name or text (text, PDF and Office files as Mattermost extracted them); each matches a word or its start."`
	Name      string `json:"name,omitempty" jsonschema:"Part of the file name, any case."`
	Extension string `json:"extension,omitempty" jsonschema:"File extension without the dot, e.g. pdf, docx, png."`
	ChannelID string `json:"channel_id,omitempty" jsonschema:"Only files posted in this channel (its id)."`
	After     string `json:"after,omitempty" jsonschema:"Only files posted on or after this day, YYYY-MM-DD (UTC)."`
	Before    string `json:"before,omitempty" jsonschema:"Only files posted before this day, YYYY-MM-DD (UTC)."`
	Limit     int    `json:"limit,omitempty" jsonschema:"At most this many, 1-100; default 20."`
	paged
}

// FileResult is read_file's structured answer.
type FileResult struct {
	FileID     string `json:"file_id"`
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Detected   string `json:"detected"`
	Mismatch   string `json:"mismatch,omitempty"`
	Size       int64  `json:"size"`
	Read       bool   `json:"read"`
	TotalLines int    `json:"total_lines,omitempty"`
	Start      int    `json:"start,omitempty"`
	End        int    `json:"end,omitempty"`
	NextStart  int    `json:"next_start,omitempty"`
	NextColumn int    `json:"next_column,omitempty"`
	Image      *Image `json:"image,omitempty"`
	MediaType  string `json:"media_type,omitempty"`
	Permalink  string `json:"permalink,omitempty"`
	// File is the file itself for ChatGPT, which fetches it.
	File        *chatfile.Ref `json:"file,omitempty"`
	Description string        `json:"-"`
}

// Image is what read_file says about an image it returned.
type Image struct {
	OriginalWidth  int  `json:"original_width"`
	OriginalHeight int  `json:"original_height"`
	Width          int  `json:"width"`
	Height         int  `json:"height"`
	OriginalBytes  int  `json:"original_bytes"`
	Bytes          int  `json:"bytes"`
	Turned         bool `json:"turned"`
	Scaled         bool `json:"scaled"`
	Frames         int  `json:"frames"`
}

// FileDetails is get_file_info's structured answer.
type FileDetails struct {
	FileID    string `json:"file_id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Extension string `json:"extension"`
	Size      int64  `json:"size"`
	CreatedAt string `json:"created_at"`
	Readable  bool   `json:"readable"`
	Permalink string `json:"permalink,omitempty"`
	ChannelID string `json:"channel_id,omitempty"`
	Channel   string `json:"channel,omitempty"`
	PostedBy  string `json:"posted_by,omitempty"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
}

// FileList is search_files' structured answer.
type FileList struct {
	Files []FoundFile `json:"files"`
	// Complete is false when older files may match too.
	Complete   bool   `json:"complete"`
	NextCursor string `json:"next_cursor,omitempty"`
}

// FoundFile is one file search_files found.
type FoundFile struct {
	FileID    string `json:"file_id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	Size      int64  `json:"size"`
	ChannelID string `json:"channel_id"`
	PostID    string `json:"post_id"`
	CreatedAt string `json:"created_at"`
	// Snippet is a few lines of the file's text around a word searched.
	Snippet string `json:"snippet,omitempty"`
}

func fileTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name:        "read_file",
			Title:       "Read an attachment",
			Description: "Reads an attachment: text in numbered windows (page as each header says); Office files and PDFs as text (a small PDF also as itself); archives as listings; images upright, max 1568 px; small audio/video as is; the rest described.",
			Hints:       readOnly,
			View:        resources.FileView,
			Effect:      catalogue.ReadsOnly,
			Toolset:     config.ToolsetFiles,
			Files:       catalogue.GivesFile,
		}, d.readFile),
		catalogue.Define(catalogue.Tool{
			Name:        "get_file_info",
			Title:       "Describe an attachment",
			Description: "Describes an attachment without reading it: name, type, size, who posted it where, and whether read_file can read it. By file_id, or permalink and file_name.",
			Hints:       readOnly,
			Effect:      catalogue.ReadsOnly,
			Toolset:     config.ToolsetFiles,
		}, d.fileInfo),
		catalogue.Define(catalogue.Tool{
			Name:        "search_files",
			Title:       "Find attachments",
			Description: "Finds files in your channels by words in their name or text, name, extension, channel and date, newest first, ready for read_file. To search the text of posts, use search_posts.",
			Hints:       readOnly,
			Effect:      catalogue.ReadsOnly,
			Toolset:     config.ToolsetFiles,
		}, d.searchFiles),
	}
}

// located is a file the caller can read, with where it was posted.
type located struct {
	mattermost.Readable
	place     mattermost.PostPlace
	permalink string
}

// locate resolves a file target for the caller, or refuses with what to
// do next.
func (d Deps) locate(c *mattermost.Caller, t fileTarget) (*located, error) {
	var file mattermost.Readable
	var err error
	switch {
	case t.FileID != "":
		file, err = c.File(strings.TrimSpace(t.FileID))
		if errors.Is(err, mattermost.ErrNotFound) {
			return nil, refusal.New(fmt.Sprintf("File %q was not found.", t.FileID),
				"Take file_id from the attachments listed beside posts (read_channel, read_thread, search_posts) or from search_files.")
		}
	case t.Permalink != "":
		file, err = d.fileOfPost(c, t.Permalink, t.FileName)
	default:
		return nil, refusal.New("Say which file:", "give file_id (as listed beside a post), or permalink with file_name.")
	}
	if err != nil {
		return nil, err
	}
	l := &located{Readable: file}
	if file.PostID() != "" {
		l.place, err = c.PlaceOf(file)
		if err != nil {
			return nil, err
		}
		l.permalink = present.Permalink(c.SiteURL(), l.place.TeamName, file.PostID())
	}
	return l, nil
}

// fileOfPost finds an attachment by its post's permalink and its name.
func (d Deps) fileOfPost(c *mattermost.Caller, link, name string) (mattermost.Readable, error) {
	postID := postIDFromLink(link)
	post, err := c.Post(postID)
	if errors.Is(err, mattermost.ErrNotFound) {
		return mattermost.Readable{}, refusal.New(fmt.Sprintf("The post at %q was not found.", link),
			"Give a permalink like https://<site>/<team>/pl/<post id>, or the file_id listed beside the post.")
	}
	if err != nil {
		return mattermost.Readable{}, err
	}
	files, err := c.PostFiles(post)
	if err != nil {
		return mattermost.Readable{}, err
	}
	var names []string
	for _, f := range files {
		// The name as listed (hidden characters shown) finds the file too.
		if name == "" && len(files) == 1 || strings.EqualFold(f.Name, strings.TrimSpace(name)) || strings.EqualFold(present.Name(f.Name), strings.TrimSpace(name)) {
			return c.File(f.Id)
		}
		names = append(names, fmt.Sprintf("%q (file_id=%s)", present.Name(f.Name), f.Id))
	}
	switch {
	case len(files) == 0:
		return mattermost.Readable{}, refusal.New("That post has no attachments.", "Read the post's thread with read_thread for files posted in replies.")
	case name == "":
		return mattermost.Readable{}, refusal.New(fmt.Sprintf("That post has %d attachments: %s.", len(files), strings.Join(names, ", ")), "Call again with file_name, or with file_id.")
	}
	return mattermost.Readable{}, refusal.New(fmt.Sprintf("That post has no attachment named %q. Its attachments: %s.", name, strings.Join(names, ", ")),
		"Call again with one of these names, or with its file_id.")
}

// postIDFromLink accepts a permalink (…/pl/<id>), a thread link, or an id.
func postIDFromLink(link string) string {
	link = strings.TrimSpace(link)
	if u, err := url.Parse(link); err == nil && u.Path != "" {
		return path.Base(strings.TrimRight(u.Path, "/"))
	}
	return link
}

func (d Deps) readFile(ctx context.Context, args readFileArgs) (res catalogue.Result[FileResult], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	l, err := d.locate(c, args.fileTarget)
	if err != nil {
		return res, err
	}
	return d.readLocated(ctx, c, l, args)
}

// readLocated is read_file of a file located for the caller.
func (d Deps) readLocated(ctx context.Context, c *mattermost.Caller, l *located, args readFileArgs) (res catalogue.Result[FileResult], err error) {
	info := l.Info()
	req := fileview.Request{
		Name:   info.Name,
		Offset: args.Offset, Column: args.Column, Limit: args.Limit,
		Permalink: l.permalink,
		NextCall:  nextCallOf("read_file", "file_id", info.Id),
	}
	var view *fileview.View
	release := func() {}
	if isPDF(info) && info.Size <= d.Config().MaxFileSizeBytes() {
		var text string
		if text, err = c.ExtractedText(l.Readable); err != nil {
			return res, err
		}
		view, release, err = d.pdfView(ctx, info, text, req, func() ([]byte, error) { return c.FileBytes(l.Readable) })
	} else {
		view, release, err = d.viewWithin(ctx, c, viewcache.Key{Source: "attachment", ID: info.Id}, req, info.Size, info.MimeType,
			func() ([]byte, error) { return c.FileBytes(l.Readable) })
	}
	// The memory is held until the answer, image included, is built.
	defer release()
	if err != nil {
		return res, readRefusal(err, info.Name)
	}
	res = fileContent(info, l.permalink, view)
	givesFile(ctx, &res.Meta, filetransfer.FileValue{URI: filetransfer.AttachmentURI(c.UserID(), info.Id), Name: info.Name, MIMEType: info.MimeType, Size: info.Size})
	if args.Offset <= 1 && args.Column <= 1 {
		// Once per reading, on its first window: the copy costs a write.
		res.Data.File = d.chatFileOfAttachment(ctx, info.Id, info.Name, info.MimeType)
	}
	return res, nil
}

// nextCallOf renders the call that reads another window of a file with a
// tool, for the header the model reads.
func nextCallOf(tool, key, value string) func(offset, column, limit int) string {
	return func(offset, column, limit int) string {
		call := fmt.Sprintf("%s(%s=%q, offset=%d", tool, key, value, offset)
		if column > 1 {
			call += fmt.Sprintf(", column=%d", column)
		}
		return call + fmt.Sprintf(", limit=%d)", limit)
	}
}

// viewWithin converts a file's bytes, or, for a file over the size setting,
// describes it from its metadata: then its bytes are never fetched. The
// memory it takes for this is held until the caller calls release, once its
// answer is built.
//
// A file whose whole text was kept by an earlier read (any node's) is cut
// from that text: no fetch, no conversion. key names the file's bytes (an
// attachment's id, a workspace file's sha256); the caller has checked the
// person's access to the file.
func (d Deps) viewWithin(ctx context.Context, c *mattermost.Caller, key viewcache.Key, req fileview.Request, size int64, typ string, fetch func() ([]byte, error)) (view *fileview.View, release func(), err error) {
	cfg := d.Config()
	if size > cfg.MaxFileSizeBytes() {
		return fileview.Describe(req, size, typ, fmt.Sprintf("it is larger than the %d MiB this server reads", cfg.MaxFileSizeMiB)), noRelease, nil
	}
	mem := d.memory(cfg)
	if view, release, ok := d.keptView(ctx, mem, key, req); ok {
		return view, release, nil
	}
	defer func() {
		// Only a text longer than one window is worth keeping, and it is
		// kept once this read's answer is built (when it gives its memory
		// back): the answer does not wait for the store.
		if err == nil && view != nil && view.Whole != nil && view.Window != nil && (view.Window.NextStart != 0 || view.Window.Start > 1) && d.Views != nil {
			answered, whole := release, view.Whole
			var once sync.Once
			release = func() {
				once.Do(func() {
					answered()
					d.keepLater(mem, c.UserID(), key, whole)
				})
			}
		}
	}()
	data, held, err := d.fetchAndTake(ctx, mem, size, fetch)
	if err != nil {
		return nil, noRelease, err
	}
	var over *overBudget
	if errors.As(held.err, &over) {
		if data != nil {
			_, typ, _ = fileview.Sniff(data, req.Name)
		}
		return fileview.Describe(req, size, typ, over.reason()), noRelease, nil
	}
	view, err = fileview.Convert(ctx, data, req)
	release = giveBack(held.release, held.cost)
	if err != nil {
		release()
		return nil, noRelease, err
	}
	return view, release, nil
}

// fileContent turns a view into MCP content beside the text header.
func fileContent(info *model.FileInfo, permalink string, v *fileview.View) catalogue.Result[FileResult] {
	res := FileResult{
		FileID: info.Id, Name: present.Name(info.Name), Kind: string(v.Kind), Detected: v.Detected, Mismatch: v.Mismatch,
		Size: info.Size, Permalink: permalink,
	}
	body := v.Header
	if v.Text != "" {
		// The file's text is someone else's writing too: what it hides is
		// shown, with the note beside the header.
		text, found := present.Text(v.Text)
		if note := found.Note("This window of the file"); note != "" {
			body += "\n" + note
		}
		body += "\n\n" + text
	}
	var content []mcp.Content
	if w := v.Window; w != nil {
		res.Read = true
		res.TotalLines, res.Start, res.End, res.NextStart, res.NextColumn = w.TotalLines, w.Start, w.End, w.NextStart, w.NextColumn
	}
	if img := v.Image; img != nil {
		res.Read = true
		res.Image = &Image{OriginalWidth: img.OriginalWidth, OriginalHeight: img.OriginalHeight, Width: img.Width, Height: img.Height,
			OriginalBytes: img.OriginalBytes, Bytes: img.Bytes, Turned: img.Turned, Scaled: img.Scaled, Frames: img.Frames}
		content = append(content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType))
	}
	if m := v.Media; m != nil {
		res.Read = true
		res.MediaType = m.MIMEType
		encoded := base64.StdEncoding.EncodeToString(m.Data)
		if v.Kind == fileview.KindAudio {
			content = append(content, mcp.NewAudioContent(encoded, m.MIMEType))
		} else {
			content = append(content, mcp.NewEmbeddedResource(mcp.BlobResourceContents{
				URI: "mattermost-file://" + info.Id + "/" + url.PathEscape(info.Name), MIMEType: m.MIMEType, Blob: encoded,
			}))
		}
	}
	return catalogue.Result[FileResult]{Text: body, Data: res, More: content}
}

func (d Deps) fileInfo(ctx context.Context, args fileInfoArgs) (res catalogue.Result[FileDetails], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	l, err := d.locate(c, args.fileTarget)
	if err != nil {
		return res, err
	}
	f := fileInfoFetched{info: l.Info(), channel: l.place.Channel, permalink: l.permalink, config: d.Config()}
	if u, err := c.Poster(f.info.CreatorId); err == nil {
		f.postedBy = u.Username
	}
	text, out := fileInfoAnswer(f)
	return answerLinked(text, out, fileLinks([]present.FileRef{present.RefOf(f.info)}))
}

// fileInfoFetched is what get_file_info read: the file's metadata, the
// channel and post it came with (none for a file not posted yet), who
// posted it (empty when they cannot be shown) and the size setting.
type fileInfoFetched struct {
	info      *model.FileInfo
	channel   *model.Channel
	permalink string
	postedBy  string
	config    config.Configuration
}

// fileInfoAnswer describes a file from what was read, without its bytes.
func fileInfoAnswer(f fileInfoFetched) (string, FileDetails) {
	info := f.info
	readable := info.Size <= f.config.MaxFileSizeBytes()
	out := FileDetails{
		FileID: info.Id, Name: present.Name(info.Name), Type: info.MimeType, Extension: info.Extension,
		Size: info.Size, CreatedAt: time.UnixMilli(info.CreateAt).UTC().Format(time.RFC3339),
		Readable: readable, Permalink: f.permalink,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q: %s, %s, posted %s", present.Name(info.Name), orUnknown(info.MimeType), present.Size(info.Size),
		time.UnixMilli(info.CreateAt).UTC().Format("2006-01-02 15:04 UTC"))
	if f.channel != nil {
		out.ChannelID, out.Channel = f.channel.Id, present.Name(f.channel.DisplayName)
		fmt.Fprintf(&b, " in %s", place{ch: f.channel}.brief())
	}
	if f.postedBy != "" {
		out.PostedBy = f.postedBy
		fmt.Fprintf(&b, " by @%s", f.postedBy)
	}
	b.WriteString(".\n")
	if f.permalink != "" {
		fmt.Fprintf(&b, "Post: %s\n", f.permalink)
	}
	if info.Width > 0 {
		out.Width, out.Height = info.Width, info.Height
		fmt.Fprintf(&b, "Image size: %dx%d px.\n", info.Width, info.Height)
	}
	if readable {
		fmt.Fprintf(&b, "Read it with read_file(file_id=%q).", info.Id)
	} else {
		fmt.Fprintf(&b, "It is larger than the %d MiB this server reads, so read_file can only describe it; a person can open it from the post.", f.config.MaxFileSizeMiB)
	}
	return b.String(), out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

const (
	// defaultSearchFiles keeps a listing readable at a glance.
	defaultSearchFiles = 20
	// maxSearchFiles bounds one answer to a few thousand tokens.
	maxSearchFiles = 100
)

func (d Deps) searchFiles(ctx context.Context, args searchFilesArgs) (res catalogue.Result[FileList], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	limit, err := limitOf(args.Limit, defaultSearchFiles, maxSearchFiles)
	if err != nil {
		return res, err
	}
	pc, at, err := openPage("search_files", args)
	if err != nil {
		return res, err
	}
	q := mattermost.FileQuery{NameContains: strings.TrimSpace(args.Name), Extension: strings.TrimSpace(args.Extension),
		ChannelID: strings.TrimSpace(args.ChannelID), Limit: limit}
	if at != "" {
		if q.From, err = mattermost.ParseFilePosition(at); err != nil {
			return res, pc.refuse(paging.ErrMalformed)
		}
	}
	if args.Words != "" {
		if q.Words = queryWords(args.Words); len(q.Words) == 0 {
			return res, refusal.Newf("words %q holds no word to search for (words of one letter and words like \"the\" find nothing).", args.Words)
		}
	}
	for _, day := range []struct {
		text string
		into *int64
		name string
	}{{args.After, &q.Since, "after"}, {args.Before, &q.Before, "before"}} {
		if day.text == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", strings.TrimSpace(day.text))
		if err != nil {
			return res, refusal.Newf("%s must be a day written YYYY-MM-DD, like 2026-03-31; %q is not.", day.name, day.text)
		}
		*day.into = t.UnixMilli()
	}
	found, err := c.SearchFiles(q)
	if errors.Is(err, mattermost.ErrNotFound) {
		return res, refusal.Newf("Channel %q was not found. Call list_channels or get_channel for channel ids.", args.ChannelID)
	}
	if err != nil {
		return res, searchRefusal(err)
	}
	var snippets map[string]string
	if len(q.Words) > 0 {
		ids := make([]string, len(found.Files))
		for i, f := range found.Files {
			ids[i] = f.Id
		}
		if snippets, err = c.FileSnippets(ids, q.Words); err != nil {
			return res, searchRefusal(err)
		}
	}
	next := ""
	if !found.Next.IsStart() {
		if next, err = pc.next(found.Next.String()); err != nil {
			return res, err
		}
	}
	text, out := searchFilesAnswer(found.Files, snippets, next, pc)
	refs := make([]present.FileRef, 0, len(out.Files))
	for _, f := range out.Files {
		refs = append(refs, present.FileRef{ID: f.FileID, Name: f.Name, Type: f.Type, Size: f.Size})
	}
	return answerLinked(text, out, fileLinks(refs))
}

// searchRefusal words a search that did not get its turn as a refusal that
// says when to try again; any other error passes as it is.
func searchRefusal(err error) error {
	if errors.Is(err, mattermost.ErrSearchBusy) {
		return refusal.New(fmt.Sprintf("This server is busy with other file searches: it runs %d at once, %d of one person's, and none came free within %d seconds. Nothing is wrong with the search.",
			mattermost.SearchesPerNode, mattermost.SearchesPerPerson, int(mattermost.SearchWait.Seconds())), "Try the same call again in a few seconds, one search at a time.")
	}
	return err
}

// searchFilesAnswer lists the files found, newest first, each with its
// snippet where it has one; next continues the listing ("" at its end).
func searchFilesAnswer(files []*model.FileInfo, snippets map[string]string, next string, pc pageCursor) (string, FileList) {
	found := make([]FoundFile, 0, len(files))
	var b strings.Builder
	switch {
	case len(files) == 0 && next == "":
		b.WriteString("No files match. Try fewer filters or other words, or search_posts for words in the posts that carry files.")
	case len(files) == 0:
		b.WriteString("None of the files on this page is one you can read now.\n")
	default:
		fmt.Fprintf(&b, "%d files, newest first:\n", len(files))
	}
	for _, f := range files {
		ref := present.RefOf(f)
		posted := time.UnixMilli(f.CreateAt).UTC().Format("2006-01-02 15:04 UTC")
		ff := FoundFile{FileID: ref.ID, Name: ref.Name, Type: ref.Type, Size: ref.Size,
			ChannelID: f.ChannelId, PostID: f.PostId, CreatedAt: time.UnixMilli(f.CreateAt).UTC().Format(time.RFC3339)}
		fmt.Fprintf(&b, "- %s, posted %s\n", present.FileLine(ref), posted)
		if s, ok := snippets[f.Id]; ok {
			ff.Snippet = present.Name(strings.Join(strings.Fields(s), " "))
			fmt.Fprintf(&b, "  text: \u2026%s\u2026\n", ff.Snippet)
		}
		found = append(found, ff)
	}
	if next != "" {
		fmt.Fprintf(&b, "Older files may match: %s", pc.nextCall(next))
	}
	return strings.TrimRight(b.String(), "\n"), FileList{Files: found, Complete: next == "", NextCursor: next}
}
