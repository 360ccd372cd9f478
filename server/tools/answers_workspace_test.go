package tools

import (
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

var otherWrittenAt = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

func otherWorkspaceFiles() []workspace.File {
	return []workspace.File{
		{Name: "summary.md", Size: 2048, Type: "UTF-8 text", SHA256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", WrittenAt: otherWrittenAt, Blob: "blob-1", Chunks: 1},
		{Name: "chart\u202egnp.png", Size: 3 << 20, Type: "PNG image", SHA256: "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", WrittenAt: otherWrittenAt.Add(time.Hour), Blob: "blob-2", Chunks: 2},
		{Name: "blob.bin", Size: 10, WrittenAt: otherWrittenAt},
	}
}

func TestFilesListSaysEachFileUntilWhenAndTheQuota(t *testing.T) {
	cfg := config.Configuration{WorkspaceQuotaMiB: 100}
	for _, tc := range []struct {
		name  string
		files []workspace.File
	}{{"empty", nil}, {"three_files", otherWorkspaceFiles()}} {
		t.Run(tc.name, func(t *testing.T) {
			text, list := workspaceListAnswer(tc.files, cfg)
			otherGoldenAnswer(t, "files_list_"+tc.name, text, list)
		})
	}
}

func TestAWrittenWorkspaceFileIsNamedWithTheCallsThatUseIt(t *testing.T) {
	f := otherWorkspaceFiles()
	text, entry := writtenAnswer(f[0], "Wrote")
	otherGoldenAnswer(t, "files_write", text, entry)
	text, entry = writtenAnswer(f[1], "Saved the attachment as")
	otherGoldenAnswer(t, "save_attachment", text, entry)
	text, deleted := deletedAnswer(f[1].Name)
	otherGoldenAnswer(t, "files_delete", text, deleted)
}

func TestAPresignedURLSaysHowItIsUsedInEachDirection(t *testing.T) {
	for _, p := range []presigned{
		{name: "summary.md", direction: "download", url: "https://chat.example.com/plugins/mcp-server/workspace/download/tok-d", expiresAt: otherWrittenAt.Add(5 * time.Minute), maxFileMiB: 50},
		{name: "out.csv", direction: "upload", url: "https://chat.example.com/plugins/mcp-server/workspace/upload/tok-u", expiresAt: otherWrittenAt.Add(15 * time.Minute), maxFileMiB: 50},
	} {
		t.Run(p.direction, func(t *testing.T) {
			text, out := presignAnswer(p)
			otherGoldenAnswer(t, "files_presign_"+p.direction, text, out)
		})
	}
}

func TestAnUploadSlotNamesItsURLItsHandleAndWhenEachExpires(t *testing.T) {
	up := workspace.Upload{Name: "chart.png", Token: "tok-u", ExpiresAt: otherWrittenAt.Add(15 * time.Minute), MaxSize: 5 << 20,
		SHA256: "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", Handle: "wsh_0123456789abcdef"}
	text, desc := uploadAnswer(up, "https://chat.example.com/plugins/mcp-server/workspace/upload/tok-u", otherWrittenAt)
	otherGoldenAnswer(t, "request_upload", text, desc)
}
