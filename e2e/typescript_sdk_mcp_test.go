package e2e

// Issue 20: resources, prompts and completion through the official MCP
// TypeScript SDK (e2e/node/mcp-client.mjs), on the same fixtures as the Go
// SDK's tests (resources_test.go, prompts_test.go, completion_test.go):
// what alice reads matches REST, what bob cannot read is not found.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/resources"
)

// sdkContents is a resources/read result as the TypeScript SDK returns it.
type sdkContents struct {
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"contents"`
}

// sdkDecode decodes step i of run into out, failing on an error answer.
func sdkDecode(t *testing.T, run sdkRun, i int, out any) {
	t.Helper()
	r := run.Results[i]
	if r.Error != nil {
		t.Fatalf("step %d (%s) answered an error: %s", i, r.Method, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatalf("step %d (%s): %v in %s", i, r.Method, err, r.Result)
	}
}

// sdkErrorIs fails unless step i of run answered the error code with a
// message holding says.
func sdkErrorIs(t *testing.T, run sdkRun, i, code int, says string) {
	t.Helper()
	r := run.Results[i]
	if r.Error == nil || r.Error.Code == nil || *r.Error.Code != code || !strings.Contains(r.Error.Message, says) {
		t.Fatalf("step %d (%s) answered %s %+v, want the error %d saying %q", i, r.Method, r.Result, r.Error, code, says)
	}
}

func readStep(uri string) sdkStep {
	return sdkStep{Method: "resources/read", Params: map[string]any{"uri": uri}}
}

func TestTheOfficialTypeScriptSDKReadsEachResourceTemplateAsAliceAsRESTDoesAndBobFindsNone(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	v := privateVault(t, alice)
	name := uniq(t, "ts-notes ") + ".md"
	uris := map[string]string{
		"file":      resources.FileURI(v.file.Id),
		"channel":   resources.ChannelURI(mm.Team.Name, v.channel.Name),
		"thread":    resources.ThreadURI(v.root.Id),
		"workspace": resources.WorkspaceURI(name),
	}
	kinds := slices.Sorted(maps.Keys(uris))
	plan := []sdkStep{
		{Method: "resources/templates/list"},
		{Method: "tools/call", Params: map[string]any{"name": "files_write", "arguments": map[string]any{"name": name, "text": "# Notes\nonly alice's workspace holds these\n"}}},
	}
	for _, kind := range kinds {
		plan = append(plan, readStep(uris[kind]))
	}
	run := runTypeScriptSDK(t, mm.URL, alice.Token, plan...)

	var templates struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	sdkDecode(t, run, 0, &templates)
	var listed []string
	for _, tpl := range templates.ResourceTemplates {
		listed = append(listed, tpl.URITemplate)
	}
	slices.Sort(listed)
	want := []string{resources.ChannelTemplate, resources.FileTemplate, resources.ThumbnailTemplate, resources.ThreadTemplate, resources.WorkspaceTemplate}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("the TypeScript SDK lists the templates %v, want %v", listed, want)
	}
	t.Logf("resources/templates/list through the TypeScript SDK: %d templates in %d bytes", len(listed), len(run.Results[0].Result))

	read := map[string]string{}
	for i, kind := range kinds {
		var c sdkContents
		sdkDecode(t, run, 2+i, &c)
		if len(c.Contents) == 0 || c.Contents[0].URI != uris[kind] || c.Contents[0].MIMEType != "text/plain" {
			t.Fatalf("%s (%s) read as %+v", kind, uris[kind], c)
		}
		read[kind] = c.Contents[0].Text
	}
	ctx := context.Background()
	rest, _, err := mm.Client(alice).GetFile(ctx, v.file.Id)
	if err != nil {
		t.Fatal(err)
	}
	holdsLines(t, "the file's resource", read["file"], rest)
	containsAll(t, "the channel's resource", read["channel"], restChannel(t, alice, v.channel.Id))
	containsAll(t, "the thread's resource", read["thread"], restThread(t, alice, v.root.Id))
	containsAll(t, "the workspace file's resource", read["workspace"], []string{"only alice's workspace holds these"})

	// REST agrees that bob cannot read the vault.
	if _, resp, err := mm.Client(bob).GetChannel(ctx, v.channel.Id); err == nil || resp.StatusCode != 403 {
		t.Fatalf("REST lets bob read alice's private channel: %v", err)
	}
	var bobPlan []sdkStep
	for _, kind := range kinds {
		bobPlan = append(bobPlan, readStep(uris[kind]))
	}
	bobRun := runTypeScriptSDKPlan(t, mm.URL, bob.Token, bobPlan...)
	for i, kind := range kinds {
		t.Run("bob "+kind, func(t *testing.T) { sdkErrorIs(t, bobRun, i, -32002, uris[kind]+" was not found") })
	}
}

func TestTheOfficialTypeScriptSDKReadsAResourceLinkFromReadChannelBackAsTheAttachment(t *testing.T) {
	alice := mm.Users[0]
	ch := createChannel(t, alice, uniq(t, "ts-gallery"), "Gallery", model.ChannelTypeOpen)
	_, infos := postFiles(t, alice, ch.Id, "a picture and notes", map[string][]byte{"chart.png": tinyPNG(t), "notes.txt": []byte("first line of the notes\nsecond line\n")})

	run := runTypeScriptSDK(t, mm.URL, alice.Token,
		sdkStep{Method: "tools/call", Params: map[string]any{"name": "read_channel", "arguments": map[string]any{"channel": ch.Id}}})
	var answer struct {
		Content []struct {
			Type string `json:"type"`
			URI  string `json:"uri"`
			Name string `json:"name"`
			Size *int64 `json:"size"`
		} `json:"content"`
	}
	sdkDecode(t, run, 0, &answer)
	linked := map[string]string{}
	for _, c := range answer.Content {
		if c.Type == "resource_link" {
			linked[c.Name] = c.URI
		}
	}
	if len(linked) != len(infos) {
		t.Fatalf("read_channel's answer links %v, want the %d attachments", linked, len(infos))
	}

	// A second client reads the links as they came, the way a person's
	// client attaches them.
	var plan []sdkStep
	for _, info := range infos {
		if linked[info.Name] != resources.FileURI(info.Id) {
			t.Fatalf("%s is linked as %q, want %s", info.Name, linked[info.Name], resources.FileURI(info.Id))
		}
		plan = append(plan, readStep(linked[info.Name]))
	}
	back := runTypeScriptSDK(t, mm.URL, alice.Token, plan...)
	for i, info := range infos {
		rest, _, err := mm.Client(alice).GetFile(context.Background(), info.Id)
		if err != nil {
			t.Fatal(err)
		}
		var c sdkContents
		sdkDecode(t, back, i, &c)
		switch info.Name {
		case "chart.png":
			if len(c.Contents) != 2 || c.Contents[1].MIMEType != "image/png" {
				t.Fatalf("the picture read back as %+v", c.Contents)
			}
			blob, err := base64.StdEncoding.DecodeString(c.Contents[1].Blob)
			if err != nil || !bytes.Equal(blob, rest) {
				t.Fatalf("the picture's blob (%d bytes, %v) is not the %d bytes REST serves", len(blob), err, len(rest))
			}
		case "notes.txt":
			holdsLines(t, "the notes read back", c.Contents[0].Text, rest)
		}
	}
}

// sdkPrompt is a prompts/get result as the TypeScript SDK returns it.
type sdkPrompt struct {
	Messages []struct {
		Role    string `json:"role"`
		Content struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Resource struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
			} `json:"resource"`
		} `json:"content"`
	} `json:"messages"`
}

func TestTheOfficialTypeScriptSDKListsTheFivePromptsAndSummarizesAThreadAsRESTReadsIt(t *testing.T) {
	alice := mm.Users[0]
	v := privateVault(t, alice)
	run := runTypeScriptSDKPlan(t, mm.URL, alice.Token,
		sdkStep{Method: "prompts/list"},
		sdkStep{Method: "prompts/get", Params: map[string]any{"name": "summarize_thread", "arguments": map[string]string{"thread": v.root.Id}}},
		sdkStep{Method: "prompts/get", Params: map[string]any{"name": "summarize_thread", "arguments": map[string]string{"thread": "not-a-post"}}},
		sdkStep{Method: "prompts/get", Params: map[string]any{"name": "find_file", "arguments": map[string]string{"words": "x", "color": "red"}}},
	)

	var listed struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	sdkDecode(t, run, 0, &listed)
	got := map[string]string{}
	for _, p := range listed.Prompts {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				a.Name += "*"
			}
			args = append(args, a.Name)
		}
		got[p.Name] = strings.Join(args, ",")
	}
	want := map[string]string{"catch_up": "", "summarize_channel": "channel*,team,since", "summarize_thread": "thread*", "draft_reply": "thread*,about", "find_file": "words*"}
	if !maps.Equal(got, want) {
		t.Fatalf("the TypeScript SDK lists the prompts (arguments, * required) %v, want %v", got, want)
	}
	t.Logf("prompts/list through the TypeScript SDK: %d prompts in %d bytes", len(listed.Prompts), len(run.Results[0].Result))

	var prompt sdkPrompt
	sdkDecode(t, run, 1, &prompt)
	uri := resources.ThreadURI(v.root.Id)
	var embedded []string
	var thread string
	size := 0
	for _, m := range prompt.Messages {
		if m.Content.Type == "resource" {
			embedded = append(embedded, m.Content.Resource.URI)
			size += len(m.Content.Resource.Text)
			if m.Content.Resource.URI == uri && m.Content.Resource.MIMEType == "text/plain" {
				thread = m.Content.Resource.Text
			}
		}
	}
	if len(embedded) != 1 || thread == "" || size > promptBound {
		t.Fatalf("summarize_thread embeds %v (%d bytes), want %s as text within %d bytes", embedded, size, uri, promptBound)
	}
	containsAll(t, "summarize_thread's embedded thread", thread, restThread(t, alice, v.root.Id))

	sdkErrorIs(t, run, 2, -32602, "post id (26 letters and digits) or its permalink")
	sdkErrorIs(t, run, 3, -32602, `no argument "color"`)
}

func TestTheOfficialTypeScriptSDKCompletesAPrivateChannelForItsMemberAndNotForAnotherPerson(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	v := privateVault(t, alice)
	complete := sdkStep{Method: "completion/complete", Params: map[string]any{
		"ref":      map[string]string{"type": "ref/prompt", "name": "summarize_channel"},
		"argument": map[string]string{"name": "channel", "value": v.channel.Name},
	}}
	values := func(token string) []string {
		t.Helper()
		var res struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		sdkDecode(t, runTypeScriptSDK(t, mm.URL, token, complete), 0, &res)
		if len(res.Completion.Values) > 100 {
			t.Fatalf("%d values, the protocol's cap is 100", len(res.Completion.Values))
		}
		return res.Completion.Values
	}
	if got := values(alice.Token); !slices.Equal(got, []string{v.channel.Name}) {
		t.Fatalf("alice completes %q to %v, want [%s]", v.channel.Name, got, v.channel.Name)
	}
	if got := values(bob.Token); len(got) != 0 {
		t.Fatalf("bob completes alice's private %q to %v", v.channel.Name, got)
	}
}

func TestTheOfficialTypeScriptSDKReadsEachMCPAppsViewThatItsToolNames(t *testing.T) {
	alice := mm.Users[0]
	run := runTypeScriptSDK(t, mm.URL, alice.Token, sdkStep{Method: "tools/list"},
		readStep(resources.ThreadView), readStep(resources.FileView), readStep(resources.PendingView))
	var listed struct {
		Tools []struct {
			Name string `json:"name"`
			Meta struct {
				UI struct {
					ResourceURI string `json:"resourceUri"`
				} `json:"ui"`
			} `json:"_meta"`
		} `json:"tools"`
	}
	sdkDecode(t, run, 0, &listed)
	views := map[string]string{}
	for _, tool := range listed.Tools {
		if uri := tool.Meta.UI.ResourceURI; uri != "" {
			views[tool.Name] = uri
		}
	}
	// Writes are off by default, so create_post is not listed; the rest are.
	for tool, uri := range map[string]string{"read_thread": resources.ThreadView, "read_channel": resources.ThreadView,
		"search_posts": resources.ThreadView, "read_file": resources.FileView, "get_pending": resources.PendingView} {
		if views[tool] != uri {
			t.Errorf("%s names the view %q, want %q", tool, views[tool], uri)
		}
	}
	for i, uri := range []string{resources.ThreadView, resources.FileView, resources.PendingView} {
		var got sdkContents
		sdkDecode(t, run, i+1, &got)
		if len(got.Contents) != 1 || got.Contents[0].URI != uri || got.Contents[0].MIMEType != resources.ViewMIMEType ||
			!strings.Contains(got.Contents[0].Text, "<script") || !strings.Contains(got.Contents[0].Text, "Content-Security-Policy") {
			t.Errorf("%s read as %+v", uri, got.Contents)
		}
	}
}

func TestTheOfficialTypeScriptSDKReadsAnImagesThumbnailAsRESTServesItAndBobFindsNone(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	v := privateVault(t, alice)
	_, infos := postFiles(t, alice, v.channel.Id, "the launch photo", map[string][]byte{"launch.png": photo(t, 800, 600)})
	id := infos[0].Id
	// Mattermost makes the thumbnail after the upload: REST has it first.
	var rest []byte
	eventually(t, "REST serves the photo's thumbnail", func() bool {
		var err error
		rest, _, err = mm.Client(alice).GetFileThumbnail(context.Background(), id)
		return err == nil && len(rest) > 0
	})
	run := runTypeScriptSDK(t, mm.URL, alice.Token, readStep(resources.ThumbnailURI(id)))
	var c sdkContents
	sdkDecode(t, run, 0, &c)
	if len(c.Contents) != 1 || c.Contents[0].URI != resources.ThumbnailURI(id) || c.Contents[0].Blob == "" {
		t.Fatalf("the thumbnail read as %+v", c)
	}
	blob, err := base64.StdEncoding.DecodeString(c.Contents[0].Blob)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(blob, rest) {
		t.Fatalf("the thumbnail is %d bytes of %s, not the %d bytes REST serves as Mattermost's thumbnail", len(blob), c.Contents[0].MIMEType, len(rest))
	}
	bobRun := runTypeScriptSDKPlan(t, mm.URL, bob.Token, readStep(resources.ThumbnailURI(id)))
	sdkErrorIs(t, bobRun, 0, -32002, resources.ThumbnailURI(id)+" was not found")
}
