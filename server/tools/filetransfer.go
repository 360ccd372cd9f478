package tools

import (
	"bytes"
	"context"
	"errors"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// The tools' side of file transfer (draft SEP-2631, package
// filetransfer): what a file URI names is a workspace file or an
// attachment of the caller's, read and handed out as the workspace tools
// do.

// givesFile puts a file a result gives in its _meta, for a client that
// takes file outputs (the transport makes it a file content block).
func givesFile(ctx context.Context, meta *map[string]any, f filetransfer.FileValue) {
	if !transport.DeclaredFiles(ctx).Outputs() {
		return
	}
	if *meta == nil {
		*meta = map[string]any{}
	}
	(*meta)[filetransfer.MetaKey] = f
}

func workspaceFileValue(userID string, f workspace.File) filetransfer.FileValue {
	return filetransfer.FileValue{URI: filetransfer.WorkspaceURI(userID, f.Name), Name: f.Name, MIMEType: filetransfer.TypeOf(f.Name), Size: f.Size,
		Digest: filetransfer.DigestOfHex(f.SHA256)}
}

// FileTransfer is the backend of file transfer over d.
func (d Deps) FileTransfer() filetransfer.Backend { return fileBackend{d} }

type fileBackend struct{ d Deps }

func (b fileBackend) Caller(ctx context.Context) string {
	c, err := b.d.caller(ctx)
	if err != nil {
		return ""
	}
	return c.UserID()
}

func (b fileBackend) MaxFileBytes() int64 { return b.d.Workspace.Limits().MaxFileBytes }

func (b fileBackend) Upload(ctx context.Context, r filetransfer.UploadRequest) (filetransfer.Upload, error) {
	c, err := b.d.caller(ctx)
	if err != nil {
		return filetransfer.Upload{}, err
	}
	cfg := b.d.Config()
	if err := workspace.CheckName(r.Name); err != nil {
		return filetransfer.Upload{}, workspaceRefusal(err, r.Name, cfg)
	}
	if used, err := b.d.Workspace.Usage(c.UserID()); r.Size != nil && err == nil && used+*r.Size > cfg.WorkspaceQuotaBytes() {
		return filetransfer.Upload{}, workspaceRefusal(workspace.ErrQuota, r.Name, cfg)
	}
	// The name is fixed now, since the file URI answered names it; the
	// write claims it exactly (ClaimExact), so a file written under it
	// meanwhile is never replaced: the upload is refused instead.
	name := b.d.Workspace.FreeName(c.UserID(), r.Name)
	terms := workspace.UploadTerms{SHA256: r.SHA256, Claim: workspace.ClaimExact}
	if r.Size != nil {
		terms.MaxSize, terms.Size = max(*r.Size, 1), workspace.Exactly(*r.Size)
	}
	p, err := b.d.Workspace.PresignUpload(c.UserID(), name, terms)
	if err != nil {
		return filetransfer.Upload{}, workspaceRefusal(err, name, cfg)
	}
	// As request_upload records the slot it hands out (package paths).
	b.d.recordAs(ctx, filetransfer.MethodAuthorizeUpload, audit.KindUploadHandle, c.UserID(), map[string]string{"token_id": p.ID})
	return filetransfer.Upload{UserID: c.UserID(), Name: name, URL: b.d.URLs.Upload(p.Token), ExpiresAt: p.ExpiresAt}, nil
}

func (b fileBackend) Download(ctx context.Context, ref filetransfer.Ref) (filetransfer.Download, error) {
	c, err := b.d.caller(ctx)
	if err != nil {
		return filetransfer.Download{}, err
	}
	name, shown, mimeType := ref.Name, "", ""
	if ref.Kind == filetransfer.KindAttachment {
		// An attachment leaves as the workspace's files do: copied in,
		// then presigned, so its bytes never pass through the client.
		target := fileTarget{FileID: ref.Name}
		l, err := b.d.locate(c, target)
		if errors.Is(err, mattermost.ErrNotFound) {
			return filetransfer.Download{}, filetransfer.ErrNotFound
		}
		if err != nil {
			return filetransfer.Download{}, err
		}
		// Under a free name, claimed as it is stored: a file of the
		// person's of that name stays.
		shown, mimeType = l.Info().Name, l.Info().MimeType
		res, err := b.d.saveAttachment(ctx, saveAttachmentArgs{fileTarget: target, Name: shown, claim: workspace.ClaimFree})
		if errors.Is(err, mattermost.ErrNotFound) {
			return filetransfer.Download{}, filetransfer.ErrNotFound
		}
		if err != nil {
			return filetransfer.Download{}, err
		}
		name = res.Data.Name
	}
	f, err := b.d.Workspace.Stat(c.UserID(), name)
	if errors.Is(err, workspace.ErrNotFound) {
		return filetransfer.Download{}, filetransfer.ErrNotFound
	}
	if err != nil {
		return filetransfer.Download{}, err
	}
	p, err := b.d.Workspace.PresignDownload(c.UserID(), name)
	if errors.Is(err, workspace.ErrNotFound) {
		return filetransfer.Download{}, filetransfer.ErrNotFound
	}
	if err != nil {
		return filetransfer.Download{}, err
	}
	// As files_presign records the URL it hands out (package paths).
	targets := map[string]string{"token_id": p.ID, "direction": "download"}
	if p.FileID != "" {
		targets["file_id"] = p.FileID
	}
	if ref.Kind == filetransfer.KindAttachment {
		targets["attachment_id"] = ref.Name
	}
	b.d.recordAs(ctx, filetransfer.MethodAuthorizeDownload, audit.KindPresignedURL, c.UserID(), targets)
	if shown == "" {
		shown, mimeType = f.Name, filetransfer.TypeOf(f.Name)
	}
	return filetransfer.Download{URL: b.d.URLs.Download(p.Token), ExpiresAt: p.ExpiresAt, Name: shown, MIMEType: mimeType, Size: f.Size, SHA256: f.SHA256}, nil
}

func (b fileBackend) Store(ctx context.Context, in filetransfer.Inline) (string, error) {
	c, err := b.d.caller(ctx)
	if err != nil {
		return "", err
	}
	name := in.FileName()
	cfg := b.d.Config()
	if err := workspace.CheckName(name); err != nil {
		return "", refusal.New("The data: URI's name cannot be a file name here: "+err.Error()+".", "Give it another name parameter, or none.")
	}
	// Claimed free in the same update that stores it: a file the person
	// gives never replaces one already there.
	f, err := b.d.Workspace.Write(ctx, c.UserID(), name, bytes.NewReader(in.Data), workspace.WriteOptions{Size: workspace.Exactly(int64(len(in.Data))), Claim: workspace.ClaimFree})
	if err != nil {
		return "", workspaceRefusal(err, name, cfg)
	}
	return f.Name, nil
}
