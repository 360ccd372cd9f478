package e2e

// Issue 56: the methods that are not tool calls pass the decision of the
// tools they stand for (package paths). File transfer stands for the
// workspace's tools: with them off, no download is authorized, nothing is
// copied into the workspace, and the refusal is in the audit trail; past
// the rate, it is refused as a tool call is.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/audit"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// workspaceNames lists u's workspace with a separate request.
func workspaceNames(t *testing.T, c *filesClient) []string {
	t.Helper()
	res, _ := toolCall(t, c, "files_list", map[string]any{})
	var list tools.WorkspaceList
	if res.IsError || json.Unmarshal(res.StructuredContent, &list) != nil {
		t.Fatalf("files_list: %s", res.text())
	}
	var names []string
	for _, f := range list.Files {
		names = append(names, f.Name)
	}
	return names
}

func TestWithFilesAndTheWorkspaceOffNoDownloadIsAuthorizedNothingIsCopiedAndTheRefusalIsRecorded(t *testing.T) {
	u := newPerson(t, "pathsoff")
	_, infos := postFiles(t, u, townSquare(t).Id, "the plan", map[string][]byte{"plan.txt": []byte("ship on friday\n")})
	attachment := filetransfer.AttachmentURI(u.ID, infos[0].Id)
	c := newFilesClient(t, u.Token, mcp.LATEST_PROTOCOL_VERSION, declaresFiles)
	adminToken, err := mm.PersonalAccessToken(mm.Admin)
	if err != nil {
		t.Fatal(err)
	}
	// On: the attachment is copied into the workspace and a download is
	// authorized, so what follows could fail.
	r := c.call(t, filetransfer.MethodAuthorizeDownload, map[string]any{"uri": attachment})
	var authorized filetransfer.AuthorizedDownload
	if r.Error != nil || json.Unmarshal(r.Result, &authorized) != nil || authorized.Download.URL == "" {
		t.Fatalf("authorizeDownload with the toolsets on: %+v %s", r.Error, r.Result)
	}
	before := workspaceNames(t, c)
	if len(before) != 1 || before[0] != "plan.txt" {
		t.Fatalf("the workspace after one authorized download: %v", before)
	}

	if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetFiles]: false, toolsetKeys[config.ToolsetWorkspace]: false}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetFiles]: true, toolsetKeys[config.ToolsetWorkspace]: true}); err != nil {
			t.Errorf("restore the toolsets: %v", err)
		}
	})
	for _, req := range []struct {
		method string
		params map[string]any
	}{
		{filetransfer.MethodAuthorizeDownload, map[string]any{"uri": attachment}},
		{filetransfer.MethodAuthorizeDownload, map[string]any{"uri": filetransfer.WorkspaceURI(u.ID, "plan.txt")}},
		{"files/getDownload", map[string]any{"uri": attachment}},
		{filetransfer.MethodAuthorizeUpload, map[string]any{"name": "b.txt", "size": 1}},
	} {
		r := c.call(t, req.method, req.params)
		if r.Error == nil || r.Error.Code != -32601 || r.Error.Data["reason"] != "notOffered" ||
			!strings.Contains(r.Error.Message, `the admin has turned off the toolset "`+config.ToolsetWorkspace.DisplayName()+`"`) {
			t.Fatalf("%s %v with files and the workspace off: %+v %s", req.method, req.params, r.Error, r.Result)
		}
	}

	// The URL handed out while it was on answers nothing either: the side
	// channel stands for the workspace's tools.
	eventuallyWithin(t, 30*time.Second, "the download URL is refused with the workspace off", func() bool {
		resp, err := http.Get(authorized.Download.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), "turned off the file workspace")
	})

	if err := mm.PatchPluginSettings(map[string]any{toolsetKeys[config.ToolsetFiles]: true, toolsetKeys[config.ToolsetWorkspace]: true}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 30*time.Second, "the download URL answers again with the workspace on", func() bool {
		resp, err := http.Get(authorized.Download.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if got := download(t, authorized.Download); string(got) != "ship on friday\n" {
		t.Fatalf("the download URL back on gave %q", got)
	}
	if after := workspaceNames(t, c); len(after) != 1 {
		t.Fatalf("the refused downloads left the workspace %v, want only %v", after, before)
	}
	entries, body := waitAuditOf(t, adminToken, url.Values{"user": {u.ID}, "outcome": {string(audit.OutcomeRefused)}}, 4)
	byMethod := map[string]int{}
	for _, e := range entries {
		if e.Reason == "not_offered" {
			byMethod[e.Tool+" "+string(e.Kind)]++
		}
	}
	if byMethod["files/authorizeDownload presigned_url"] != 2 || byMethod["files/getDownload presigned_url"] != 1 || byMethod["files/authorizeUpload upload_handle"] != 1 {
		t.Fatalf("the refusals recorded: %v\n%s", byMethod, body)
	}
	issued, body := waitAuditOf(t, adminToken, url.Values{"user": {u.ID}, "kind": {string(audit.KindPresignedURL)}, "outcome": {string(audit.OutcomeIssued)}}, 1)
	if issued[0].Tool != filetransfer.MethodAuthorizeDownload || issued[0].Targets["attachment_id"] != infos[0].Id {
		t.Fatalf("the download authorized with the toolsets on is recorded as %s", body)
	}
}

func TestPastTheRateAFileTransferIsRefusedAsAToolCallIsAndCountsWithThem(t *testing.T) {
	u := newPerson(t, "pathsrate")
	c := newFilesClient(t, u.Token, mcp.LATEST_PROTOCOL_VERSION, declaresFiles)
	if res, _ := toolCall(t, c, "files_write", map[string]any{"name": "a.txt", "text": "a"}); res.IsError {
		t.Fatalf("files_write: %s", res.text())
	}
	if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.MinMaxCallsPerMinute}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"MaxCallsPerMinute": config.DefaultMaxCallsPerMinute}); err != nil {
			t.Errorf("restore the calls a minute: %v", err)
		}
	})
	uri := filetransfer.WorkspaceURI(u.ID, "a.txt")
	// The write above may share this minute: at most the limit pass.
	passed := 0
	var refused *rpcReply
	for i := 0; i <= config.MinMaxCallsPerMinute; i++ {
		r := c.call(t, filetransfer.MethodAuthorizeDownload, map[string]any{"uri": uri})
		if r.Error != nil {
			refused = &r
			break
		}
		passed++
	}
	if refused == nil || passed == 0 || passed > config.MinMaxCallsPerMinute || refused.Error.Code != -32000 ||
		!strings.Contains(refused.Error.Message, "You are going too fast") || !strings.Contains(refused.Error.Message, "Try again in") {
		t.Fatalf("%d downloads authorized, then %+v", passed, refused)
	}
	// The same count: a tool call now is refused too.
	if res, _ := toolCall(t, c, "files_list", map[string]any{}); !res.IsError || !strings.Contains(res.text(), "You are going too fast") {
		t.Fatalf("a tool call after file transfer used the rate: %s", res.text())
	}
}
