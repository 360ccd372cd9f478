package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/chatfile"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/slots"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/untrusted"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Files the person attached in ChatGPT's chat, handed over by link
// (package chatfile): each is fetched as Mattermost fetches an untrusted
// URL (package untrusted), whole or not at all. For a post in a channel
// whose file's host declares its length, the bytes go straight into
// Mattermost as the post's own upload (posting.Receive), the way
// Mattermost's apps upload a file the person attaches before they press
// send; the write discards it on every end but the post. Otherwise (a
// direct or group message not yet made, a host that declares no length)
// they go into the person's workspace and are posted as a workspace file
// is. Either way the person says yes first.

const (
	// chatFetchesPerNode bounds the fetches running at once on a node:
	// each holds a connection out and a chunk of memory (1 MiB), and a
	// node serves everyone's calls.
	chatFetchesPerNode = 4
	// chatFetchesPerPerson: a post's files are fetched one after another,
	// so 2 leaves room for a second conversation and no more.
	chatFetchesPerPerson = 2
	// chatFetchWait is how long a fetch waits for its turn before the
	// answer is "busy".
	chatFetchWait = 10 * time.Second
	// chatFetchTimeout bounds one file's fetch: the largest file over a
	// slow link, and ChatGPT's links last only minutes anyway.
	chatFetchTimeout = 3 * time.Minute
)

var chatFetches = slots.New(chatFetchesPerNode, chatFetchesPerPerson)

// fetchedChatFile is a chat file now in the person's workspace, or, with
// received set, already in Mattermost as the post's upload.
type fetchedChatFile struct {
	name, host string
	received   *posting.Staged
}

// chatFiles are a post's chat files once fetched.
type chatFiles struct {
	// entries are those in the person's workspace, as files[] entries.
	entries []posting.Entry
	// received are those already in Mattermost as the post's uploads.
	received []posting.Staged
	// got is each of them, to drop when the post is not asked.
	got []fetchedChatFile
}

// fetchChatFiles fetches the files ChatGPT handed over: into the post's
// channel when dest has one, else into the person's workspace. On any
// failure nothing fetched is kept.
func (d Deps) fetchChatFiles(ctx context.Context, c *mattermost.Caller, dest posting.Destination, refs []chatfile.Ref, others int) (chatFiles, error) {
	var out chatFiles
	if len(refs) == 0 {
		return out, nil
	}
	if n := len(refs) + others; n > posting.MaxFiles {
		return out, refusal.Newf("A post takes at most %d files; %s and files together name %d.", posting.MaxFiles, chatfile.Argument, n)
	}
	taken := map[string]bool{}
	for i, ref := range refs {
		name := ref.Name()
		if taken[name] {
			// An upload's name is fixed once it is made: two chat files of
			// one name are told apart as Prepare tells entries apart.
			name = fmt.Sprintf("%d-%s", i+1, name)
		}
		taken[name] = true
		f, err := d.fetchChatFile(ctx, c, ref, name, dest.ChannelID)
		if err != nil {
			d.dropChatFiles(c, out.got)
			return chatFiles{}, chatFileRefusal(err, i, ref, d)
		}
		out.got = append(out.got, f)
		if f.received != nil {
			out.received = append(out.received, *f.received)
		} else {
			out.entries = append(out.entries, posting.Entry{WorkspaceFile: f.name})
		}
	}
	return out, nil
}

// dropChatFiles deletes fetched files that will not be posted.
func (d Deps) dropChatFiles(c *mattermost.Caller, files []fetchedChatFile) {
	var received []string
	for _, f := range files {
		if f.received != nil {
			received = append(received, f.received.Ref)
			continue
		}
		_ = d.Workspace.Delete(c.UserID(), f.name)
	}
	if len(received) > 0 {
		_ = c.DiscardUploads(received)
	}
}

// mayUpload is whether the caller may attach files in channelID; when not,
// the file goes to the workspace and staging the post says why it cannot
// carry it.
func mayUpload(c *mattermost.Caller, channelID string) bool {
	_, upload, err := c.MayPost(channelID)
	return err == nil && upload
}

// workspaceOnly are the files fetched into the workspace.
func workspaceOnly(files []fetchedChatFile) []fetchedChatFile {
	var out []fetchedChatFile
	for _, f := range files {
		if f.received == nil {
			out = append(out, f)
		}
	}
	return out
}

// markChatOrigins tells the person, in what they are asked, that these
// files came from the chat and where from.
func markChatOrigins(plan *posting.Plan, files []fetchedChatFile) {
	for _, f := range files {
		for i := range plan.Files {
			s := &plan.Files[i]
			if (s.Kind == posting.KindWorkspace && f.received == nil && s.Ref == f.name) ||
				(s.Kind == posting.KindUploaded && f.received != nil && s.Ref == f.received.Ref) {
				s.Origin = chatfile.Origin(f.host)
			}
		}
	}
}

// errChatLink is a download link the host no longer answers.
type errChatLink struct{ status int }

func (e errChatLink) Error() string { return "the file host answered " + strconv.Itoa(e.status) }

// errChatTooLarge is a chat file over the largest file this server takes
// from the chat, told from its declared length before a byte is stored.
type errChatTooLarge struct{ size, limit int64 }

func (e errChatTooLarge) Error() string {
	return fmt.Sprintf("the file is %d bytes, over the %d bytes taken", e.size, e.limit)
}

// fetchChatFile fetches one chat file under name: into channelID as the
// post's upload when it is set and the host declares the length, else
// into the person's workspace.
func (d Deps) fetchChatFile(ctx context.Context, c *mattermost.Caller, ref chatfile.Ref, name, channelID string) (f fetchedChatFile, err error) {
	f.host = ref.Host()
	var size int64 = -1
	defer func() { d.recordChatFile(ctx, c.UserID(), ref, f.host, size, err) }()
	if err := ref.Check(); err != nil {
		return f, err
	}
	release, ok := chatFetches.Take(ctx, c.UserID(), chatFetchWait)
	defer release()
	if !ok {
		return f, errChatBusy
	}
	ctx, cancel := context.WithTimeout(ctx, chatFetchTimeout)
	defer cancel()
	client := untrusted.Client{Policy: untrusted.ParsePolicy(d.MM.AllowedUntrustedInternalConnections())}
	resp, err := client.Get(ctx, ref.DownloadURL)
	if err != nil {
		return f, err
	}
	defer resp.Body.Close()
	f.host = chatfile.BoundHost(resp.Host)
	if resp.Status != http.StatusOK {
		return f, errChatLink{status: resp.Status}
	}
	if channelID != "" && resp.Length > 0 && mayUpload(c, channelID) {
		size = resp.Length
		// Refused from the declared length before a byte is stored; the
		// upload then takes exactly that many.
		limit := min(int64(d.Config().MaxWorkspaceFileMiB)<<20, c.ServerMaxFileSize())
		if size > limit {
			return f, errChatTooLarge{size: size, limit: limit}
		}
		// Held whole (for its type and thumbnail) only within the memory
		// conversions share; otherwise described by its ends.
		var keepWhole func(int64) (func(), bool)
		if d.Conversions != nil {
			keepWhole = d.Conversions.TryAcquire
		}
		s, err := posting.Receive(ctx, c, resp.Body, size, channelID, name, chatfile.Origin(f.host), keepWhole)
		if err != nil {
			return f, err
		}
		f.name, f.received = s.Name, &s
		return f, nil
	}
	opts := workspace.WriteOptions{Claim: workspace.ClaimFree}
	if resp.Length >= 0 {
		// The write refuses a declared length over the largest file or
		// the quota before it reads a byte, and checks again as they come.
		size = resp.Length
		opts.Size = workspace.Exactly(resp.Length)
	}
	w, err := d.Workspace.Write(ctx, c.UserID(), name, resp.Body, opts)
	if err != nil {
		return f, err
	}
	size, f.name = w.Size, w.Name
	return f, nil
}

var errChatBusy = errors.New("too many chat files are being fetched")

// recordChatFile puts one fetch in the audit trail: the host, the size and
// how it ended; never the link's path or query, which carry its signature.
func (d Deps) recordChatFile(ctx context.Context, userID string, ref chatfile.Ref, host string, size int64, err error) {
	if d.Audit == nil {
		return
	}
	client := transport.Client(ctx)
	e := audit.Event{Kind: audit.KindChatFile, UserID: userID, ClientName: client.Name, ClientVersion: client.Version,
		Tool: transport.CallOf(ctx).Tool, Targets: map[string]string{"host": host}, Outcome: audit.OutcomeDone}
	if size >= 0 {
		e.Targets["bytes"] = strconv.FormatInt(size, 10)
	}
	if err != nil {
		e.Outcome, e.Reason = audit.OutcomeRefused, chatFileReason(err)
	}
	d.Audit.Record(e)
}

// chatFileReason is the audit's short code for a failed fetch.
func chatFileReason(err error) string {
	var link errChatLink
	switch {
	case errors.Is(err, chatfile.ErrBadRef):
		return "bad_object"
	case errors.Is(err, errChatBusy):
		return "busy"
	case errors.As(err, &link):
		return "status_" + strconv.Itoa(link.status)
	case errors.As(err, new(errChatTooLarge)):
		return "too_large"
	}
	if _, ok := untrusted.IsRefusal(err); ok {
		return "host_not_allowed"
	}
	for _, r := range []struct {
		err  error
		code string
	}{
		{untrusted.ErrUnreachable, "unreachable"}, {untrusted.ErrStalled, "stalled"}, {untrusted.ErrShorter, "cut_short"},
		{untrusted.ErrLonger, "too_long"}, {workspace.ErrSizeMismatch, "cut_short"}, {posting.ErrLengthMismatch, "cut_short"},
		{workspace.ErrTooLarge, "too_large"},
		{workspace.ErrQuota, "quota"}, {workspace.ErrTooMany, "too_many_files"}, {context.DeadlineExceeded, "timed_out"},
	} {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	return "failed"
}

// chatFileRefusal says what happened to file i and what to do; nothing
// of the post's chat files was kept.
func chatFileRefusal(err error, i int, ref chatfile.Ref, d Deps) error {
	what := fmt.Sprintf("%s[%d] (%s)", chatfile.Argument, i, present.Name(ref.Name()))
	kept := " Nothing was kept or posted."
	var link errChatLink
	switch {
	case errors.Is(err, chatfile.ErrBadRef):
		return refusal.New(what+" is not a file ChatGPT handed over: "+err.Error()+"."+kept,
			"Leave "+chatfile.Argument+" for ChatGPT to fill; to post a file of your own, use files[].")
	case errors.Is(err, errChatBusy):
		return refusal.New("Too many chat files are being fetched on this server just now."+kept, "Try again in a few seconds.")
	case errors.As(err, &link) && (link.status == http.StatusNotFound || link.status == http.StatusGone || link.status == http.StatusForbidden):
		return refusal.New(fmt.Sprintf("The link to %s no longer works (the file host answered %d): ChatGPT's links last only a few minutes.%s", what, link.status, kept),
			"Ask the person to attach the file again, then call again with it.")
	case errors.As(err, &link):
		return refusal.New(fmt.Sprintf("The file host answered %d for %s.%s", link.status, what, kept), "Try again in a moment; if it keeps failing, ask the person to attach the file again.")
	}
	var large errChatTooLarge
	if errors.As(err, &large) {
		return refusal.New(fmt.Sprintf("%s is %s; this server takes files from the chat up to %s.%s", what, present.Size(large.size), present.Size(large.limit), kept),
			"Ask the person for a smaller file, or to give it on Mattermost's own page: call request_file.")
	}
	if r, ok := untrusted.IsRefusal(err); ok {
		return refusal.New(fmt.Sprintf("This Mattermost does not fetch %s from %s: %s.%s", what, r.Host, r.Reason, kept),
			"Ask the person to give the file on Mattermost's own page instead: call request_file.")
	}
	switch {
	case errors.Is(err, untrusted.ErrUnreachable):
		return refusal.New(fmt.Sprintf("This Mattermost cannot reach %s to fetch %s (many servers may not connect out).%s", ref.Host(), what, kept),
			"Ask the person to give the file on Mattermost's own page instead: call request_file.")
	case errors.Is(err, untrusted.ErrStalled), errors.Is(err, context.DeadlineExceeded):
		return refusal.New(fmt.Sprintf("%s stopped arriving from %s before it was whole.%s", what, ref.Host(), kept),
			"Try again; if it keeps failing, ask the person to give the file with request_file.")
	case errors.Is(err, untrusted.ErrShorter), errors.Is(err, untrusted.ErrLonger), errors.Is(err, workspace.ErrSizeMismatch),
		errors.Is(err, posting.ErrLengthMismatch):
		return refusal.New(fmt.Sprintf("%s arrived at another length than its host declared, so it is not the whole file.%s", what, kept),
			"Try again; if it keeps failing, ask the person to attach the file again.")
	}
	return workspaceRefusal(err, ref.Name(), d.Config())
}

// chatFileOut is a file given back to ChatGPT, which fetches it: a
// workspace file presigned for minutes (workspace.DownloadLifetime),
// fetchable without credentials; nil for any other client, or when no
// link can be made (the answer is whole without it).
func (d Deps) chatFileOut(ctx context.Context, userID string, f workspace.File, mediaType string) *chatfile.Ref {
	if !chatfile.Takes(transport.Client(ctx).Name) {
		return nil
	}
	p, err := d.Workspace.PresignDownload(userID, f.Name)
	if err != nil {
		return nil
	}
	d.record(ctx, audit.KindPresignedURL, userID, map[string]string{"token_id": p.ID, "direction": "download", "file_id": p.FileID})
	if mediaType == "" {
		mediaType = chatfile.TypeOf(f.Name)
	}
	return &chatfile.Ref{DownloadURL: d.URLs.Download(p.Token), FileID: p.FileID, MIMEType: mediaType, FileName: f.Name}
}

// chatFileNamed is chatFileOut of the caller's workspace file name, read
// only for ChatGPT.
func (d Deps) chatFileNamed(ctx context.Context, name, mediaType string) *chatfile.Ref {
	if !chatfile.Takes(transport.Client(ctx).Name) {
		return nil
	}
	c, err := d.caller(ctx)
	if err != nil {
		return nil
	}
	f, err := d.Workspace.Stat(c.UserID(), name)
	if err != nil {
		return nil
	}
	return d.chatFileOut(ctx, c.UserID(), f, mediaType)
}

// chatFileOfAttachment gives an attachment back to ChatGPT: copied into
// the person's workspace under a free name, as files leave through the
// workspace's bounded path, and named as the attachment; nil for any
// other client or when it cannot be copied (over the largest size, the
// quota).
func (d Deps) chatFileOfAttachment(ctx context.Context, fileID, name, mediaType string) *chatfile.Ref {
	if !chatfile.Takes(transport.Client(ctx).Name) {
		return nil
	}
	saved, err := d.saveAttachment(ctx, saveAttachmentArgs{fileTarget: fileTarget{FileID: fileID}, claim: workspace.ClaimFree})
	if err != nil {
		return nil
	}
	out := d.chatFileNamed(ctx, saved.Data.Name, mediaType)
	if out != nil {
		// Named as the attachment, whatever free name its copy took.
		out.FileName = name
	}
	return out
}
