package e2e

// Issue 19, "Connect an AI client": the /mcp command and the Connect dialog
// give the MCP URL and setups that a real client (the official MCP Go SDK)
// connects with; a token for MCP is made only from the person's own
// interactive session; Disconnect ends that client on every node.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	mcpconnect "github.com/mcp-server/mattermost-plugin-mcp/server/connect"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func connectAPI(site string) string { return site + "/plugins/mcp-server" + mcpconnect.APIPath }

// tokenMaker is a fresh person who may make personal access tokens (the
// role Mattermost gives for it), so the dialog offers them one.
func tokenMaker(t *testing.T, name string) harness.User {
	t.Helper()
	u, err := mm.CreateUser(uniq(t, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.Client(mm.Admin).UpdateUserRoles(context.Background(), u.ID, model.SystemUserRoleId+" "+model.SystemUserAccessTokenRoleId); err != nil {
		t.Fatal(err)
	}
	return u
}

// personDo sends a request of the connect API from the person's own
// Mattermost in the browser: the session cookie and its CSRF token.
func personDo(t *testing.T, site string, web *http.Client, csrf, method, path string, into any) int {
	t.Helper()
	req, err := http.NewRequest(method, connectAPI(site)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	if csrf != "" {
		req.Header.Set(model.HeaderCsrfToken, csrf)
	}
	resp, err := web.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if into != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s %s: %v %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// bearerDo sends a request of the connect API with a bearer token, as a
// program holding it would.
func bearerDo(t *testing.T, method, path, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, connectAPI(mm.URL)+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// vscodeConfig is VS Code's mcp.json as VS Code reads it.
type vscodeConfig struct {
	Servers map[string]struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"servers"`
}

// headerTransport sends the configured headers with every request, as a
// client does with its config's "headers".
type headerTransport struct{ headers map[string]string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sdkFromVSCode connects the official MCP Go SDK with the server entry of a
// VS Code mcp.json, as VS Code would: its url and its headers.
func sdkFromVSCode(t *testing.T, config, clientName string) *sdk.ClientSession {
	t.Helper()
	var cfg vscodeConfig
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		t.Fatalf("the VS Code config does not parse: %v\n%s", err, config)
	}
	entry, ok := cfg.Servers[mcpconnect.ServerName]
	if !ok || entry.Type != "http" || entry.URL != mcpURL(mm.URL) {
		t.Fatalf("the VS Code config names no http server at %s: %s", mcpURL(mm.URL), config)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.8.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: entry.URL, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{entry.Headers}, Timeout: 60 * time.Second}},
		// The protocol VS Code and Cursor speak today, with sessions; the
		// SDK's default, 2026-07-28, is stateless.
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("the official SDK could not connect with the VS Code config: %v (server log: %s)", err, mm.ServerLogTail(20))
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// sdkFromCursor connects the official MCP Go SDK, with its own protocol
// version, with the server entry of a Cursor mcp.json: its url and headers.
func sdkFromCursor(t *testing.T, config, clientName string) *sdk.ClientSession {
	t.Helper()
	var cfg struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		t.Fatalf("the Cursor config does not parse: %v\n%s", err, config)
	}
	entry, ok := cfg.MCPServers[mcpconnect.ServerName]
	if !ok || entry.URL != mcpURL(mm.URL) {
		t.Fatalf("the Cursor config names no server at %s: %s", mcpURL(mm.URL), config)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.8.0"}, nil)
	s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: entry.URL, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: headerTransport{entry.Headers}, Timeout: 60 * time.Second}}, nil)
	if err != nil {
		t.Fatalf("the official SDK could not connect with the Cursor config: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// sdkGetMe calls get_me through the SDK and returns who it answered for.
func sdkGetMe(t *testing.T, s *sdk.ClientSession) tools.Me {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_me"})
	if err != nil || res.IsError {
		t.Fatalf("get_me through the official SDK: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var me tools.Me
	if err := json.Unmarshal(raw, &me); err != nil {
		t.Fatalf("get_me structured content %s: %v", raw, err)
	}
	return me
}

func TestTheMcpSlashCommandAnswersWithTheURLAndTheSetup(t *testing.T) {
	alice := mm.Users[0]
	c := mm.Client(alice)
	res, _, err := c.ExecuteCommand(context.Background(), townSquare(t).Id, "/mcp")
	if err != nil {
		t.Fatalf("/mcp: %v", err)
	}
	for _, want := range []string{mcpURL(mm.URL), "claude mcp add --transport http mattermost " + mcpURL(mm.URL), `"mcpServers"`, `"servers"`, "OAuth", "ChatGPT, claude.ai and Claude Desktop"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("/mcp does not answer %q:\n%s", want, res.Text)
		}
	}
	if res.ResponseType != model.CommandResponseTypeEphemeral {
		t.Errorf("/mcp answers as %q, not only to the person", res.ResponseType)
	}
	help, _, err := c.ExecuteCommand(context.Background(), townSquare(t).Id, "/mcp help")
	if err != nil || !strings.Contains(help.Text, "/mcp clients") {
		t.Fatalf("/mcp help: %v %+v", err, help)
	}
}

func TestATokenMadeInTheDialogConnectsTheOfficialSDKFromItsVSCodeConfigAndOnlyThePersonCanMakeOne(t *testing.T) {
	u := tokenMaker(t, "tess")
	web, csrf := cookieSession(t, u)

	var o mcpconnect.Overview
	if code := personDo(t, mm.URL, web, "", http.MethodGet, "", &o); code != http.StatusOK {
		t.Fatalf("GET connect: %d", code)
	}
	// 11.4 in this suite signs clients in with OAuth; 9.11 (make e2e-test-min) cannot.
	if o.URL != mcpURL(mm.URL) || o.OAuth != (harness.MattermostVersion() != "9.11") || !o.CanCreateToken || !strings.Contains(o.Setup.VSCode, o.URL) || !strings.HasPrefix(o.Setup.VSCodeLink, "vscode:mcp/install?") {
		t.Fatalf("the overview: %+v", o)
	}
	if o.OAuth && !strings.HasPrefix(o.Setup.CursorLink, "cursor://anysphere.cursor-deeplink/mcp/install?name=mattermost&config=") {
		t.Fatalf("no Cursor link with OAuth: %+v", o.Setup)
	}

	// What a program holding one of the person's tokens sends is refused.
	pat, err := mm.PersonalAccessToken(u)
	if err != nil {
		t.Fatal(err)
	}
	programs := map[string]string{"a personal access token": pat, "the password login's token without its CSRF token": u.Token}
	if o.OAuth {
		programs["an OAuth access token"] = oauthAccessToken(t, u)
	}
	for name, token := range programs {
		if code, body := bearerDo(t, http.MethodPost, "/token", token); code != http.StatusForbidden || !strings.Contains(body, "web or desktop app") {
			t.Errorf("POST token with %s: %d %s", name, code, body)
		}
	}
	if code := personDo(t, mm.URL, web, "", http.MethodPost, "/token", nil); code == http.StatusCreated {
		t.Error("POST token from the browser without the CSRF token made a token")
	}

	var tok mcpconnect.Token
	if code := personDo(t, mm.URL, web, csrf, http.MethodPost, "/token", &tok); code != http.StatusCreated || tok.Token == "" {
		t.Fatalf("POST token from the person's own session: %d %+v", code, tok)
	}
	// Read back: Mattermost lists the token under the person with what it is for.
	listed, _, err := mm.Client(mm.Admin).GetUserAccessTokensForUser(context.Background(), u.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range listed {
		found = found || (l.Id == tok.ID && strings.HasPrefix(l.Description, "MCP") && l.IsActive)
	}
	if !found {
		t.Fatalf("the token made is not listed with its description: %+v", listed)
	}

	s := sdkFromVSCode(t, tok.Setup.VSCode, "sdk-vscode")
	if me := sdkGetMe(t, s); me.UserID != u.ID {
		t.Fatalf("get_me answered %s, want %s", me.UserID, u.ID)
	}
	// The Cursor config, with the SDK's own protocol (stateless, 2026-07-28).
	if me := sdkGetMe(t, sdkFromCursor(t, tok.Setup.Cursor, "sdk-cursor")); me.UserID != u.ID {
		t.Fatalf("get_me through the Cursor config answered %s, want %s", me.UserID, u.ID)
	}

	var clients struct {
		Clients []mcpconnect.Client `json:"clients"`
	}
	if code := personDo(t, mm.URL, web, "", http.MethodGet, "/clients", &clients); code != http.StatusOK {
		t.Fatalf("GET clients: %d", code)
	}
	// One sign-in (the token), so one client with both names; the VS Code
	// one opened an MCP session, the stateless one none.
	if len(clients.Clients) != 1 || clients.Clients[0].Version != "1.8.0" || !clients.Clients[0].TokenMadeHere || clients.Clients[0].Sessions != 1 ||
		len(clients.Clients[0].OtherNames) != 1 || clients.Clients[0].Name+","+clients.Clients[0].OtherNames[0] != "sdk-vscode,sdk-cursor" && clients.Clients[0].Name+","+clients.Clients[0].OtherNames[0] != "sdk-cursor,sdk-vscode" {
		t.Fatalf("the connected clients: %+v", clients.Clients)
	}
}

// rawGetMe calls get_me in an MCP session on one node directly, as the
// client's next call would, and returns the HTTP status.
func rawGetMe(t *testing.T, site, token, sessionID string) int {
	t.Helper()
	body := []byte(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"get_me","arguments":{}}}`)
	req, err := http.NewRequest(http.MethodPost, mcpURL(site), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sessionID)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestDisconnectEndsThatClientOnBothNodesWhileAnotherClientOfThePersonKeepsWorking(t *testing.T) {
	if _, err := mm.StartSecondNode(t.Context()); err != nil {
		t.Fatalf("second node: %v", err)
	}
	u := tokenMaker(t, "dora")
	web, csrf := cookieSession(t, u)
	var gone, kept mcpconnect.Token
	if personDo(t, mm.URL, web, csrf, http.MethodPost, "/token", &gone) != http.StatusCreated || personDo(t, mm.URL, web, csrf, http.MethodPost, "/token", &kept) != http.StatusCreated {
		t.Fatal("the two tokens were not made")
	}
	leaving := sdkFromVSCode(t, gone.Setup.VSCode, "sdk-leaving")
	staying := sdkFromVSCode(t, kept.Setup.VSCode, "sdk-staying")
	nodes := mm.NodeURLs()
	if len(nodes) != 2 {
		t.Fatalf("%d nodes", len(nodes))
	}
	for _, node := range nodes {
		if code := rawGetMe(t, node, gone.Token, leaving.ID()); code != http.StatusOK {
			t.Fatalf("before Disconnect the client's session answers %d on %s", code, node)
		}
	}

	var clients struct {
		Clients []mcpconnect.Client `json:"clients"`
	}
	personDo(t, mm.URL, web, "", http.MethodGet, "/clients", &clients)
	id := ""
	for _, c := range clients.Clients {
		if c.Name == "sdk-leaving" {
			id = c.ID
		}
	}
	if id == "" || len(clients.Clients) != 2 {
		t.Fatalf("the connected clients: %+v", clients.Clients)
	}
	// Not from a token: the staying client's own token cannot disconnect it.
	if code, body := bearerDo(t, http.MethodPost, "/clients/"+id+"/disconnect", kept.Token); code != http.StatusForbidden {
		t.Fatalf("disconnect with a token: %d %s", code, body)
	}
	var d mcpconnect.Disconnected
	if code := personDo(t, nodes[1], browserAt(t, nodes[1], u), "", http.MethodPost, "/clients/"+id+"/disconnect", nil); code != http.StatusForbidden {
		t.Fatalf("disconnect without the CSRF token: %d", code)
	}
	if code := personDo(t, mm.URL, web, csrf, http.MethodPost, "/clients/"+id+"/disconnect", &d); code != http.StatusOK || d.Revoked != "personal_access_token" || d.Ended != 1 {
		t.Fatalf("disconnect: %d %+v", code, d)
	}

	for _, node := range nodes {
		// On the node that disconnected at once; on the other through the
		// cluster event, or, on these two servers without a cluster (which
		// keeps even Mattermost's own copy of a revoked token's session),
		// within seconds.
		eventually(t, "after Disconnect the client's next call answers 404 or 401 on "+node, func() bool {
			code := rawGetMe(t, node, gone.Token, leaving.ID())
			return code == http.StatusNotFound || code == http.StatusUnauthorized
		})
		if code := rawGetMe(t, node, kept.Token, staying.ID()); code != http.StatusOK {
			t.Errorf("the other client's call answers %d on %s", code, node)
		}
	}
	if _, err := leaving.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_me"}); err == nil {
		t.Error("the disconnected SDK client's next call succeeded")
	}
	if me := sdkGetMe(t, staying); me.UserID != u.ID {
		t.Errorf("the staying client answered for %s", me.UserID)
	}
	// Read back: the token is revoked, and the client is no longer listed.
	revoked := model.NewAPIv4Client(mm.URL)
	revoked.SetToken(gone.Token)
	if _, resp, err := revoked.GetMe(context.Background(), ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token still signs in: %v", err)
	}
	personDo(t, mm.URL, web, "", http.MethodGet, "/clients", &clients)
	if len(clients.Clients) != 1 || clients.Clients[0].Name != "sdk-staying" {
		t.Errorf("the clients after Disconnect: %+v", clients.Clients)
	}
}

func TestAnOAuthClientDisconnectedInTheDialogIsDeauthorizedForThePerson(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	u := tokenMaker(t, "olga")
	access := oauthAccessToken(t, u)
	c := connect(t, mm.URL, access)
	getMe(t, c, u)
	web, csrf := cookieSession(t, u)
	var clients struct {
		Clients []mcpconnect.Client `json:"clients"`
	}
	personDo(t, mm.URL, web, "", http.MethodGet, "/clients", &clients)
	if len(clients.Clients) != 1 || clients.Clients[0].SignIn != "oauth" || clients.Clients[0].OAuthAppID == "" {
		t.Fatalf("the OAuth client: %+v", clients.Clients)
	}
	var d mcpconnect.Disconnected
	if code := personDo(t, mm.URL, web, csrf, http.MethodPost, "/clients/"+clients.Clients[0].ID+"/disconnect", &d); code != http.StatusOK || d.OAuthAppID != clients.Clients[0].OAuthAppID {
		t.Fatalf("disconnect: %d %+v", code, d)
	}
	// As the webapp does next, with the person's own session.
	person := mm.Client(u)
	if _, err := person.DeauthorizeOAuthApp(context.Background(), d.OAuthAppID); err != nil {
		t.Fatalf("deauthorize: %v", err)
	}
	if code := rawInitialize(t, "Bearer "+access).StatusCode; code != http.StatusUnauthorized {
		t.Errorf("the disconnected OAuth token initializes with %d", code)
	}
	apps, _, err := person.GetAuthorizedOAuthAppsForUser(context.Background(), u.ID, 0, 100)
	if err != nil || len(apps) != 0 {
		t.Errorf("the app is still authorized: %v %+v", err, apps)
	}
}

func TestTheConnectDialogReadsWellOnAPhoneAndALaptopAndDisconnectsAClient(t *testing.T) {
	u := tokenMaker(t, "webb")
	// A client of today's stateless protocol, signed in with a session
	// token of the person's: Disconnect ends that session.
	c := connect(t, mm.URL, u.Token)
	getMe(t, c, u)

	tab := webappAs(t, u)
	// Mattermost's own page sets the viewport to the device's width.
	evalJS[any](t, tab, `document.head.insertAdjacentHTML("beforeend", '<meta name="viewport" content="width=device-width, initial-scale=1">'); true`)
	for _, width := range []int64{phoneWidth, laptopWidth} {
		atWidth(t, tab, width, 900)
		// The channel header button, as a click on it runs its action.
		if !evalJS[bool](t, tab, `(function() { var b = window.__host.buttons.find(function(b) { return b.text === 'Connect an AI client'; });
			if (!b) { return false; } b.action(); return true; })()`) {
			t.Fatal("no Connect an AI client button in the channel header")
		}
		url := pollJS[string](t, tab, "the dialog shows the MCP URL", `(function() { var p = document.querySelector('[data-dialog=connect] pre[aria-label="MCP URL"]'); return p ? p.textContent : ''; })()`)
		if url != mcpURL(mm.URL) {
			t.Fatalf("the dialog shows the URL %q", url)
		}
		vscode := evalJS[string](t, tab, `document.querySelector('[data-dialog=connect] pre[aria-label="VS Code mcp.json"]').textContent`)
		var cfg vscodeConfig
		if err := json.Unmarshal([]byte(vscode), &cfg); err != nil || cfg.Servers["mattermost"].URL != url {
			t.Fatalf("the dialog's VS Code config: %v %s", err, vscode)
		}
		pollJS[bool](t, tab, "the dialog lists the client", `document.querySelector('[data-dialog=connect] [aria-label="Connected clients"]').textContent.indexOf('e2e') >= 0`)
		dialogShowsTheChatApps(t, tab)
		fitsWidth(t, tab, width, "the Connect dialog")
		// The dialog is fixed, so it can overflow without the page scrolling.
		if edges := evalJS[string](t, tab, `(() => { const d = document.querySelector("[data-dialog=connect]"); const r = d.getBoundingClientRect();
			return r.left >= 8 && r.right <= innerWidth - 8 && d.scrollWidth <= d.clientWidth ? "" : r.left + ".." + r.right + " scroll " + d.scrollWidth; })()`); edges != "" {
			t.Errorf("the Connect dialog runs past the screen at %dpx: %s", width, edges)
		}
		shoot(t, tab, width, "connect")
		evalJS[any](t, tab, `document.querySelector('[data-blocked]').scrollIntoView(); true`)
		shoot(t, tab, width, "connect-chat-apps")
		if width == phoneWidth {
			clickButton(t, tab, "[data-dialog=connect]", "Close")
			pollJS[bool](t, tab, "the dialog closes", `!document.querySelector('[data-dialog=connect]')`)
		}
	}

	clickButton(t, tab, "[data-dialog=connect] [aria-label=\"Connected clients\"] li", "Disconnect")
	clickButton(t, tab, "[data-dialog=connect] [aria-label=\"Connected clients\"] li", "Yes, disconnect")
	notice := pollJS[string](t, tab, "the dialog says the client is disconnected", `(function() { var s = document.querySelector('[data-dialog=connect] [role=status]'); return s ? s.textContent : ''; })()`)
	if !strings.Contains(notice, "is disconnected") {
		t.Fatalf("the notice: %s", notice)
	}
	pollJS[bool](t, tab, "the client is gone from the list", `document.querySelectorAll('[data-dialog=connect] [aria-label="Connected clients"] li').length === 0`)
	shoot(t, tab, phoneWidth, "connect-disconnected")

	// Read back: the client's next call is refused.
	if _, err := callErr(c, "get_me", nil); err == nil {
		t.Error("the disconnected client's next call succeeded")
	}
}

// openConnectDialog opens the dialog from its channel header button and
// waits for its content.
func openConnectDialog(t *testing.T, tab context.Context) {
	t.Helper()
	if !evalJS[bool](t, tab, `(function() { var b = window.__host.buttons.find(function(b) { return b.text === 'Connect an AI client'; });
		if (!b) { return false; } b.action(); return true; })()`) {
		t.Fatal("no Connect an AI client button in the channel header")
	}
	pollJS[bool](t, tab, "the dialog shows the MCP URL", `!!document.querySelector('[data-dialog=connect] pre[aria-label="MCP URL"]')`)
}

func TestWithoutOAuthTheDialogMakesATokenShownOnceWhoseSetupConnectsTheOfficialSDK(t *testing.T) {
	t.Cleanup(func() { setOAuth(t, true, true) })
	setOAuth(t, true, false)
	waitForChallenge(t, false)
	u := tokenMaker(t, "nora")

	tab := webappAs(t, u)
	evalJS[any](t, tab, `document.head.insertAdjacentHTML("beforeend", '<meta name="viewport" content="width=device-width, initial-scale=1">'); true`)
	atWidth(t, tab, phoneWidth, 900)
	openConnectDialog(t, tab)
	clickButton(t, tab, "[data-dialog=connect]", "Create a token for MCP")
	token := pollJS[string](t, tab, "the dialog shows the token made", `(function() { var p = document.querySelector('[data-token=made] pre'); return p ? p.textContent : ''; })()`)
	if said := evalJS[string](t, tab, `document.querySelector('[data-token=made]').textContent`); !strings.Contains(said, "shown only now") || !strings.Contains(said, "MCP") {
		t.Errorf("the token is shown without what it is for: %s", said)
	}
	vscode := evalJS[string](t, tab, `document.querySelector('[data-dialog=connect] pre[aria-label="VS Code mcp.json"]').textContent`)
	if !strings.Contains(vscode, "Bearer "+token) {
		t.Fatalf("the VS Code setup does not carry the token: %s", vscode)
	}
	fitsWidth(t, tab, phoneWidth, "the Connect dialog with a token")
	shoot(t, tab, phoneWidth, "connect-token")

	if me := sdkGetMe(t, sdkFromVSCode(t, vscode, "sdk-from-the-page")); me.UserID != u.ID {
		t.Fatalf("get_me answered %s, want %s", me.UserID, u.ID)
	}

	// Shown once: closed and opened again, the dialog has no token.
	clickButton(t, tab, "[data-dialog=connect]", "Close")
	openConnectDialog(t, tab)
	pollJS[bool](t, tab, "the dialog lists the client", `document.querySelector('[data-dialog=connect] [aria-label="Connected clients"]').textContent.indexOf('sdk-from-the-page') >= 0`)
	if evalJS[bool](t, tab, `!!document.querySelector('[data-token=made]') || document.querySelector('[data-dialog=connect]').textContent.indexOf(`+"`"+token+"`"+`) >= 0`) {
		t.Error("the token is shown again")
	}
}

// TestTheConnectDialogOffersEachPresetWithItsURLInEveryClientsSetupAndTheSizeItLoads
// reads the dialog in the browser: each preset, once chosen, puts its URL in
// every client's setup and install link, and shows the size the server
// measures; everything's is what tools/list sends.
func TestTheConnectDialogOffersEachPresetWithItsURLInEveryClientsSetupAndTheSizeItLoads(t *testing.T) {
	u := tokenMaker(t, "pia")
	tab := webappAs(t, u)
	openConnectDialog(t, tab)
	overview := pollJS[string](t, tab, "the overview as the dialog fetched it", `(function() { if (!window.__presets) { window.__presets = '';
		fetch('/plugins/mcp-server`+mcpconnect.APIPath+`', {headers: {'X-Requested-With': 'XMLHttpRequest'}}).then(function(r) { return r.text(); }).then(function(b) { window.__presets = b; }); }
		return window.__presets; })()`)
	var o mcpconnect.Overview
	if err := json.Unmarshal([]byte(overview), &o); err != nil || len(o.Presets) != 3 {
		t.Fatalf("the overview: %v %.300s", err, overview)
	}
	want := map[string]string{mcpconnect.PresetEverything: mcpURL(mm.URL), mcpconnect.PresetReadOnly: mcpURL(mm.URL) + "?read_only=true", mcpconnect.PresetLight: mcpURL(mm.URL) + "?toolsets=light"}
	for _, p := range o.Presets {
		if p.URL != want[p.ID] {
			t.Errorf("preset %s has the URL %s, want %s", p.ID, p.URL, want[p.ID])
		}
		evalJS[any](t, tab, `document.querySelector('[data-dialog=connect] [data-preset=`+p.ID+`] input').click(); true`)
		var shown struct {
			Size                   string
			Claude, Cursor, VSCode string
			CursorLink, VSCodeLink string
		}
		raw := pollJS[string](t, tab, "the setups of "+p.ID, `(function() { var d = document.querySelector('[data-dialog=connect]');
			if (!d.querySelector('[data-preset=`+p.ID+`] input').checked) { return ''; }
			function pre(l) { return d.querySelector('pre[aria-label="' + l + '"]').textContent; }
			function link(l) { var a = Array.from(d.querySelectorAll('a')).find(function(a) { return a.textContent === l; }); return a ? a.getAttribute('href') : ''; }
			return JSON.stringify({Size: d.querySelector('[data-preset=`+p.ID+`] [data-preset-size]').textContent,
				Claude: pre('Claude Code command'), Cursor: pre('Cursor mcp.json'), VSCode: pre('VS Code mcp.json'),
				CursorLink: link('Install in Cursor'), VSCodeLink: link('Install in VS Code')}); })()`)
		if err := json.Unmarshal([]byte(raw), &shown); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(shown.Size, humanBytes(p.Bytes)) {
			t.Errorf("preset %s: the dialog shows %q, the server measures %d bytes", p.ID, shown.Size, p.Bytes)
		}
		var cfg vscodeConfig
		if err := json.Unmarshal([]byte(shown.VSCode), &cfg); err != nil || cfg.Servers["mattermost"].URL != p.URL || !strings.Contains(shown.Claude, p.URL) || !strings.Contains(shown.Cursor, `"`+p.URL+`"`) {
			t.Errorf("preset %s: a setup without its URL %s: %+v", p.ID, p.URL, shown)
		}
		if vs, err := url.PathUnescape(strings.TrimPrefix(shown.VSCodeLink, "vscode:mcp/install?")); err != nil || !strings.Contains(vs, `"url":"`+p.URL+`"`) {
			t.Errorf("preset %s: the VS Code link %s (%v)", p.ID, shown.VSCodeLink, err)
		}
		if o.OAuth && !strings.HasPrefix(shown.CursorLink, "cursor://") {
			t.Errorf("preset %s: no Cursor link with OAuth: %q", p.ID, shown.CursorLink)
		}
	}
	if !(o.Presets[2].Bytes < o.Presets[1].Bytes && o.Presets[1].Bytes <= o.Presets[0].Bytes) {
		t.Errorf("the presets do not load less and less: %+v", o.Presets)
	}

	// Read back: each preset's size is what tools/list sends a client that
	// connects with its URL.
	for _, p := range o.Presets {
		code, header, body := namingHost(t, http.MethodPost, p.URL, "", u.Token, fmt.Sprintf(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"e2e-presets","version":"1"}}}`, legacyVersion), nil)
		session := header.Get("Mcp-Session-Id")
		if code != http.StatusOK || session == "" {
			t.Fatalf("initialize at %s: %d %.300s", p.URL, code, body)
		}
		code, _, body = mcpPost(t, mm.URL, u.Token, session, listTools)
		var answer struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(sseData(body)), &answer); code != http.StatusOK || err != nil {
			t.Fatalf("tools/list: %d %v %.300s", code, err, body)
		}
		if len(answer.Result) != p.Bytes {
			t.Errorf("the dialog says preset %s loads %d bytes; tools/list sends %d", p.ID, p.Bytes, len(answer.Result))
		}
	}
}

// humanBytes is a size as the dialog writes it: 52,944 bytes.
func humanBytes(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " bytes"
}
