package e2e

// Issue 20, prompts: each prompt, got through the official MCP Go SDK,
// embeds as resources the same posts and files Mattermost's REST API reads
// for the person, within its bounds; a bad argument is an invalid-params
// error naming the allowed form; a toolset turned off hides its prompts.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// promptBound is the most a prompt embeds (prompts.maxPromptBytes) and the
// room its notes take.
const promptBound = 96<<10 + 4<<10

// officialSDK is the official MCP Go SDK signed in with the person's token,
// speaking 2025-11-25 (sessions), as Claude Code, VS Code and Cursor do.
func officialSDK(t testing.TB, u harness.User) *sdk.ClientSession {
	t.Helper()
	return officialSDKSpeaking(t, u, "2025-11-25")
}

// officialSDKSpeaking is officialSDK speaking protocol ("": the SDK's own,
// 2026-07-28, stateless).
func officialSDKSpeaking(t testing.TB, u harness.User, protocol string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-prompts", Version: "1.8.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: mcpURL(mm.URL), MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{map[string]string{"Authorization": "Bearer " + u.Token}}, Timeout: 60 * time.Second}},
		&sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("the official SDK could not connect: %v (server log: %s)", err, mm.ServerLogTail(20))
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func getPrompt(t *testing.T, s *sdk.ClientSession, name string, args map[string]string) *sdk.GetPromptResult {
	t.Helper()
	res, err := s.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("prompts/get %s %v: %v", name, args, err)
	}
	return res
}

// promptParts are a prompt's notes, its embedded texts by URI (in order)
// and its resource links.
type promptParts struct {
	notes string
	uris  []string
	texts map[string]string
	links []*sdk.ResourceLink
	bytes int
}

func partsOf(t *testing.T, res *sdk.GetPromptResult) promptParts {
	t.Helper()
	p := promptParts{texts: map[string]string{}}
	for _, m := range res.Messages {
		switch c := m.Content.(type) {
		case *sdk.TextContent:
			p.notes += c.Text + "\n"
		case *sdk.EmbeddedResource:
			if c.Resource.MIMEType != "text/plain" || !strings.HasPrefix(c.Resource.URI, "mattermost://") {
				t.Fatalf("an embedded resource %q of type %q", c.Resource.URI, c.Resource.MIMEType)
			}
			p.uris = append(p.uris, c.Resource.URI)
			p.texts[c.Resource.URI] = c.Resource.Text
			p.bytes += len(c.Resource.Text)
		case *sdk.ResourceLink:
			p.links = append(p.links, c)
		}
	}
	if p.bytes > promptBound {
		t.Fatalf("the prompt embeds %d bytes, bound %d", p.bytes, promptBound)
	}
	return p
}

// containsAll fails unless text holds every message.
func containsAll(t *testing.T, what, text string, messages []string) {
	t.Helper()
	if len(messages) == 0 {
		t.Fatalf("%s: REST read no posts to compare", what)
	}
	for _, m := range messages {
		if !strings.Contains(text, m) {
			t.Errorf("%s lacks %q, which REST reads:\n%.2000s", what, m, text)
		}
	}
}

// restThread is the messages of a thread as REST reads them for u.
func restThread(t *testing.T, u harness.User, postID string) []string {
	t.Helper()
	list, _, err := mm.Client(u).GetPostThread(context.Background(), postID, "", false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, id := range list.Order {
		out = append(out, list.Posts[id].Message)
	}
	return out
}

// restChannel is the messages of a channel's newest posts as REST reads
// them for u, thread roots only, as the person's Mattermost shows them
// (collapsed reply threads, the server's default).
func restChannel(t *testing.T, u harness.User, channelID string) []string {
	t.Helper()
	list, _, err := mm.Client(u).GetPostsForChannel(context.Background(), channelID, 0, 60, "", true, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, id := range list.Order {
		if p := list.Posts[id]; p.Type == "" {
			out = append(out, p.Message)
		}
	}
	return out
}

func TestEachPromptEmbedsThePostsAndFilesRESTReadsForThePersonWithinItsBounds(t *testing.T) {
	alice, bob := mm.Users[0], mm.Users[1]
	ch := createChannel(t, alice, uniq(t, "prompts-"), "Prompts room", model.ChannelTypeOpen)
	if _, _, err := mm.Client(alice).AddChannelMember(context.Background(), ch.Id, bob.ID); err != nil {
		t.Fatal(err)
	}
	root := createPost(t, alice, ch.Id, "Shall we ship the "+uniq(t, "release-")+" on Friday?", "")
	createPost(t, bob, ch.Id, "Yes, once "+uniq(t, "check-")+" passes.", root.Id)
	createPost(t, alice, ch.Id, "Agreed, "+uniq(t, "agreed-")+".", root.Id)
	name := uniq(t, "budget-")
	_, files := postFiles(t, alice, ch.Id, "The numbers", map[string][]byte{name + ".txt": []byte("q3 1200\n")})
	createPost(t, alice, ch.Id, "Latest: "+uniq(t, "latest-"), "")
	s := officialSDK(t, alice)

	t.Run("summarize_channel", func(t *testing.T) {
		p := partsOf(t, getPrompt(t, s, "summarize_channel", map[string]string{"channel": ch.Name}))
		uri := "mattermost://channel/" + mm.Team.Name + "/" + ch.Name
		if len(p.uris) != 1 || p.uris[0] != uri {
			t.Fatalf("embedded %v, want %s", p.uris, uri)
		}
		containsAll(t, "summarize_channel", p.texts[uri], restChannel(t, alice, ch.Id))
		if !strings.Contains(p.notes, "at most 60 posts") || !strings.Contains(p.notes, "never instructions") {
			t.Errorf("the notes do not say the bound and the rule:\n%s", p.notes)
		}
	})
	t.Run("summarize_thread", func(t *testing.T) {
		p := partsOf(t, getPrompt(t, s, "summarize_thread", map[string]string{"thread": root.Id}))
		uri := "mattermost://thread/" + root.Id
		if len(p.uris) != 1 || p.uris[0] != uri {
			t.Fatalf("embedded %v, want %s", p.uris, uri)
		}
		containsAll(t, "summarize_thread", p.texts[uri], restThread(t, alice, root.Id))
	})
	t.Run("draft_reply", func(t *testing.T) {
		permalink := mm.URL + "/" + mm.Team.Name + "/pl/" + root.Id
		p := partsOf(t, getPrompt(t, s, "draft_reply", map[string]string{"thread": permalink, "about": "thanks"}))
		containsAll(t, "draft_reply", p.texts["mattermost://thread/"+root.Id], restThread(t, alice, root.Id))
		// Writes are off by default: the last step is to copy the text.
		if !strings.Contains(p.notes, "give the person the text to copy") {
			t.Errorf("with writes off, draft_reply should end in a text to copy:\n%s", p.notes)
		}
	})
	t.Run("find_file", func(t *testing.T) {
		p := partsOf(t, getPrompt(t, s, "find_file", map[string]string{"words": name}))
		info, _, err := mm.Client(alice).GetFileInfo(context.Background(), files[0].Id)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.links) != 1 || p.links[0].URI != "mattermost://file/"+info.Id || p.links[0].Name != info.Name {
			t.Fatalf("links %+v, want mattermost://file/%s %s", p.links, info.Id, info.Name)
		}
		if len(p.uris) != 1 || !strings.Contains(p.texts[p.uris[0]], info.Id) {
			t.Errorf("the embedded search %v does not name %s", p.uris, info.Id)
		}
	})
	t.Run("catch_up", func(t *testing.T) {
		// Bob has not read the channel since alice wrote in it.
		p := partsOf(t, getPrompt(t, officialSDK(t, bob), "catch_up", nil))
		uri := "mattermost://channel/" + mm.Team.Name + "/" + ch.Name
		if !slices.Contains(p.uris, "mattermost://unreads") || !slices.Contains(p.uris, "mattermost://mentions") || !slices.Contains(p.uris, "mattermost://threads") {
			t.Fatalf("catch_up embedded %v", p.uris)
		}
		if !strings.Contains(p.texts["mattermost://unreads"], ch.Id) {
			t.Fatalf("bob's unread channels do not list %s:\n%s", ch.Name, p.texts["mattermost://unreads"])
		}
		text, ok := p.texts[uri]
		if !ok {
			// More recent unread channels of other tests came first: the
			// channel is listed with the call that reads it.
			if !strings.Contains(p.notes, "read_unread(channel=<its id>)") {
				t.Fatalf("the channel is neither embedded nor named with its call: %v\n%s", p.uris, p.notes)
			}
			return
		}
		latest := restChannel(t, bob, ch.Id)[0]
		if !strings.Contains(text, latest) {
			t.Errorf("bob's unread posts lack %q:\n%.2000s", latest, text)
		}
	})
}

func TestABadPromptArgumentIsAnInvalidParamsErrorNamingTheAllowedForm(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", ""} {
		badArguments(t, officialSDKSpeaking(t, mm.Users[0], protocol))
	}
}

func badArguments(t *testing.T, s *sdk.ClientSession) {
	t.Helper()
	for _, tc := range []struct {
		name string
		args map[string]string
		says string
	}{
		{"summarize_thread", map[string]string{"thread": "not-a-post"}, "post id (26 letters and digits) or its permalink"},
		{"summarize_thread", nil, `needs the argument "thread"`},
		{"summarize_channel", map[string]string{"channel": "town-square", "since": "yesterday-ish"}, "RFC 3339"},
		{"find_file", map[string]string{"words": "x", "color": "red"}, `no argument "color"`},
	} {
		_, err := s.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: tc.name, Arguments: tc.args})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, tc.says) {
			t.Errorf("%s %v (protocol %s): %v, want invalid params saying %q", tc.name, tc.args, s.InitializeResult().ProtocolVersion, err, tc.says)
		}
	}
}

func promptNames(t *testing.T, s *sdk.ClientSession) ([]string, int) {
	t.Helper()
	res, err := s.ListPrompts(context.Background(), &sdk.ListPromptsParams{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names, len(raw)
}

func TestTheFilesToolsetOffHidesFindFileAndBackOnOffersItAgainWithoutReconnecting(t *testing.T) {
	s := officialSDK(t, mm.Users[0])
	all, size := promptNames(t, s)
	t.Logf("prompts/list: %d prompts in %d bytes", len(all), size)
	if want := []string{"catch_up", "draft_reply", "find_file", "summarize_channel", "summarize_thread"}; !slices.Equal(all, want) {
		t.Fatalf("prompts listed: %v, want %v", all, want)
	}
	t.Cleanup(func() {
		if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": true, "ToolsetChannels": true}); err != nil {
			t.Errorf("restore the toolsets: %v", err)
		}
	})
	if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": false}); err != nil {
		t.Fatal(err)
	}
	if got, _ := promptNames(t, s); slices.Contains(got, "find_file") || len(got) != 4 {
		t.Fatalf("with the files toolset off: %v", got)
	}
	_, err := s.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "find_file", Arguments: map[string]string{"words": "x"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "not offered") {
		t.Fatalf("find_file with its toolset off: %v", err)
	}
	if err := mm.PatchPluginSettings(map[string]any{"ToolsetFiles": true, "ToolsetChannels": false}); err != nil {
		t.Fatal(err)
	}
	if got, _ := promptNames(t, s); !slices.Equal(got, []string{"find_file"}) {
		t.Fatalf("with only the channels toolset off: %v, want [find_file]", got)
	}
}
