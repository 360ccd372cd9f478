package tools

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// The resources a person can attach read through the tools that read the
// same thing: a resource is that tool's first answer (its first window, its
// newest page), with the same converters, bounds and access checks.

// Resources are the resource templates, each read by its tool's handler.
func Resources(d Deps) []resources.Template {
	return []resources.Template{
		{
			URITemplate: resources.FileTemplate, Name: "attachment", Title: "Mattermost attachment",
			Description: "A file posted in Mattermost, by the file_id posts list: text in its first numbered window, Office files and PDFs as text, archives listed, images upright and scaled, small audio and video as themselves.",
			Priority:    0.8, Tool: "read_file",
			Read: func(ctx context.Context, v map[string]string) (resources.Answer, error) {
				return resourceAnswer(d.readFile(ctx, readFileArgs{fileTarget: fileTarget{FileID: v["file_id"]}}))
			},
		},
		{
			URITemplate: resources.ThumbnailTemplate, Name: "thumbnail", Title: "Mattermost image thumbnail",
			Description: "A small picture of an image attachment, as Mattermost shows beside its name, for a view to draw; read_file reads the image itself.",
			Priority:    0.2, Tool: "read_file",
			Read: func(ctx context.Context, v map[string]string) (resources.Answer, error) {
				return d.thumbnail(ctx, v["file_id"])
			},
		},
		{
			URITemplate: resources.ChannelTemplate, Name: "channel", Title: "Mattermost channel's recent posts",
			Description: "The newest posts of a channel, with their attachments' file_ids. team and channel are names as in Mattermost's URLs; a direct or group message has team \"-\" and its channel id.",
			MIMEType:    "text/plain", Priority: 0.6, Tool: "read_channel",
			Read: func(ctx context.Context, v map[string]string) (resources.Answer, error) {
				team := v["team"]
				if team == resources.NoTeam {
					team = ""
				}
				return resourceAnswer(d.readChannel(ctx, readChannelArgs{Channel: v["channel"], Team: team}))
			},
			Watch: func(ctx context.Context, v map[string]string) (resources.Target, error) {
				team := v["team"]
				if team == resources.NoTeam {
					team = ""
				}
				_, view, err := d.channelOf(ctx, v["channel"], team)
				if err != nil {
					return resources.Target{}, err
				}
				return resources.Target{ChannelID: view.ch.Id}, nil
			},
		},
		{
			URITemplate: resources.ThreadTemplate, Name: "thread", Title: "Mattermost thread",
			Description: "A whole thread from any of its posts: the root, then the replies oldest first (the first page), with their attachments' file_ids.",
			MIMEType:    "text/plain", Priority: 0.7, Tool: "read_thread",
			Read: func(ctx context.Context, v map[string]string) (resources.Answer, error) {
				return resourceAnswer(d.readThread(ctx, readThreadArgs{Post: v["post_id"]}))
			},
			Watch: d.watchThread,
		},
		{
			URITemplate: resources.WorkspaceTemplate, Name: "workspace_file", Title: "Your workspace file",
			Description: "A file of your own MCP workspace (deleted 24 hours after it was written), read as an attachment is.",
			Priority:    0.5, Tool: "files_read",
			Read: func(ctx context.Context, v map[string]string) (resources.Answer, error) {
				return resourceAnswer(d.filesRead(ctx, filesReadArgs{Name: v["name"]}))
			},
		},
	}
}

// resourceAnswer is a tool's answer as a resource reads it; a thing the
// person cannot read is not found.
func resourceAnswer[Out any](res catalogue.Result[Out], err error) (resources.Answer, error) {
	if errors.Is(err, mattermost.ErrNotFound) {
		return resources.Answer{}, resources.ErrNotFound
	}
	if err != nil {
		return resources.Answer{}, err
	}
	return resources.Answer{Text: res.Text, More: res.More}, nil
}

// Bounds of resources/list: enough to pick from, listed in a few pages.
const (
	// maxListedWorkspace is how many workspace files are listed, newest
	// first (a workspace holds up to workspace.MaxFiles).
	maxListedWorkspace = 100
	// maxListedChannels is how many of the person's channels are listed,
	// those with the newest posts first.
	maxListedChannels = 10
	// maxListedAttachments is how many attachments are listed, the newest
	// in the person's channels: one scan of file infos, each checked.
	maxListedAttachments = 50
)

// ResourceList lists the person's resources for resources/list: their
// workspace files, their most recent channels and the newest attachments in
// their channels, within the bounds above; a kind whose template is not
// offered is not even read.
func ResourceList(d Deps) func(ctx context.Context, offered func(uriTemplate string) bool) ([]mcp.Resource, error) {
	return func(ctx context.Context, offered func(string) bool) ([]mcp.Resource, error) {
		c, err := d.caller(ctx)
		if err != nil {
			return nil, err
		}
		var out []mcp.Resource
		if offered(resources.WorkspaceTemplate) && d.Workspace != nil {
			files, err := d.Workspace.List(c.UserID())
			if err != nil {
				return nil, err
			}
			sort.SliceStable(files, func(i, j int) bool { return files[i].WrittenAt.After(files[j].WrittenAt) })
			for _, f := range files[:min(len(files), maxListedWorkspace)] {
				out = append(out, listed(resources.WorkspaceURI(f.Name), f.Name, present.Name(f.Name)+" (your workspace)",
					fmt.Sprintf("%s in your workspace, deleted at %s.", orUnknown(f.Type), f.ExpiresAt().UTC().Format("2006-01-02 15:04 UTC")),
					mime.TypeByExtension(path.Ext(f.Name)), f.Size))
			}
		}
		if offered(resources.ChannelTemplate) {
			mine, err := c.MyChannels()
			if err != nil {
				return nil, err
			}
			for _, m := range mine[:min(len(mine), maxListedChannels)] {
				out = append(out, channelListed(placeOfMine(m)))
			}
		}
		if offered(resources.FileTemplate) {
			found, err := c.SearchFiles(mattermost.FileQuery{Limit: maxListedAttachments})
			if err != nil {
				return nil, err
			}
			for _, f := range found.Files {
				out = append(out, listed(resources.FileURI(f.Id), f.Name, present.Name(f.Name),
					fmt.Sprintf("Attachment posted %s; read_file(file_id=%q) reads it too.", time.UnixMilli(f.CreateAt).UTC().Format("2006-01-02 15:04 UTC"), f.Id),
					f.MimeType, f.Size))
			}
		}
		return out, nil
	}
}

// channelListed is a channel as resources/list gives it.
func channelListed(v place) mcp.Resource {
	uri := resources.ChannelURI("", v.ch.Id)
	title := present.Name(v.name())
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		title = "Direct message with " + title
	case model.ChannelTypeGroup:
		title = "Group message " + title
	default:
		uri = resources.ChannelURI(v.teamName(), v.ch.Name)
		if v.team != nil {
			title += " (" + present.Name(v.team.DisplayName) + ")"
		}
	}
	r := mcp.NewResource(uri, v.ch.Name, mcp.WithMIMEType("text/plain"),
		mcp.WithResourceDescription("The newest posts of "+v.shown()+"."))
	r.Title = title
	return r
}

func listed(uri, name, title, description, mimeType string, size int64) mcp.Resource {
	r := mcp.NewResource(uri, name, mcp.WithResourceDescription(description))
	r.Title, r.MIMEType, r.Size = title, mimeType, &size
	return r
}

// maxLinks bounds the resource links of one answer: its text lists every
// attachment anyway, and 50 links are about 10 KiB.
const maxLinks = 50

// fileLinks are the resource links of the attachments an answer lists, at
// most maxLinks, beside their file ids.
func fileLinks(refs []present.FileRef) []mcp.Content {
	var out []mcp.Content
	for _, f := range refs[:min(len(refs), maxLinks)] {
		l := mcp.NewResourceLink(resources.FileURI(f.ID), f.Name, "Mattermost attachment, file_id="+f.ID+".", f.Type)
		if f.Type == "unknown type" {
			l.MIMEType = ""
		}
		size := f.Size
		l.Size = &size
		out = append(out, l)
	}
	return out
}

// postLinks are the resource links of the attachments of posts.
func postLinks(posts ...PostView) []mcp.Content {
	var refs []present.FileRef
	for _, p := range posts {
		refs = append(refs, p.Attachments...)
	}
	return fileLinks(refs)
}

// answerLinked is answer with the resource links of the attachments it
// lists.
func answerLinked[Out any](text string, data Out, links []mcp.Content) (catalogue.Result[Out], error) {
	return catalogue.Result[Out]{Text: text, Data: data, More: links}, nil
}

// watchThread resolves a thread resource, from any of its posts, to its
// channel and root, as the caller reads it.
func (d Deps) watchThread(ctx context.Context, v map[string]string) (resources.Target, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return resources.Target{}, err
	}
	p, err := c.Post(strings.TrimSpace(v["post_id"]))
	if errors.Is(err, mattermost.ErrNotFound) {
		return resources.Target{}, resources.ErrNotFound
	}
	if err != nil {
		return resources.Target{}, err
	}
	root := p.RootId
	if root == "" {
		root = p.Id
	}
	return resources.Target{ChannelID: p.ChannelId, RootID: root}, nil
}
