package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

// getMe calls get_me and checks it answers as want, reading the user back
// through the REST API with a separate request.
func getMe(t *testing.T, c *client.Client, want harness.User) tools.Me {
	t.Helper()
	res := call(t, c, "get_me", nil)
	if res.IsError {
		t.Fatalf("get_me refused: %s", text(res))
	}
	var me tools.Me
	structuredAs(t, res, &me)
	rest, _, err := mm.Client(mm.Admin).GetUser(context.Background(), want.ID, "")
	if err != nil {
		t.Fatalf("read the user back: %v", err)
	}
	if me.UserID != rest.Id || me.Username != rest.Username || me.Email != rest.Email {
		t.Fatalf("get_me says %+v, Mattermost says %s/%s/%s", me, rest.Id, rest.Username, rest.Email)
	}
	if len(me.Teams) == 0 || me.Teams[0].ID != mm.Team.Id {
		t.Fatalf("get_me teams %+v, want team %s", me.Teams, mm.Team.Id)
	}
	if !strings.Contains(text(res), "@"+want.Username) {
		t.Fatalf("get_me text does not name the user: %s", text(res))
	}
	return me
}

func TestGetMeAnswersAsTheUserOfAPersonalAccessToken(t *testing.T) {
	alice := mm.Users[0]
	token, err := mm.PersonalAccessToken(alice)
	if err != nil {
		t.Fatal(err)
	}
	me := getMe(t, connect(t, mm.URL, token), alice)
	if me.WritesAllowed {
		t.Fatal("a fresh install must not allow writes")
	}
	if strings.Join(me.SystemRoles, " ") != "system_user" {
		t.Fatalf("alice's roles %v", me.SystemRoles)
	}
}

func TestGetMeAnswersAsTheUserOfASessionToken(t *testing.T) {
	bob := mm.Users[1]
	getMe(t, connect(t, mm.URL, bob.Token), bob)
}

func TestGetMeAnswersAfterSigningInWithMattermostsOwnOAuth(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	signInWithOAuthFromABare401(t, mm.Users[0])
}

// signInWithOAuthFromABare401 is what an MCP client that knows only the URL
// does: it is refused with the challenge, follows it to Mattermost's OAuth
// server, registers, has u approve, and calls get_me with the token.
func signInWithOAuthFromABare401(t *testing.T, u harness.User) {
	t.Helper()
	ctx := context.Background()
	initReq := mcp.InitializeRequest{}
	initReq.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	initReq.Params.ClientInfo = mcp.Implementation{Name: "e2e-oauth", Version: "1"}

	// A client that knows only the URL is told where sign-in starts.
	bare, err := client.NewStreamableHttpClient(mcpURL(mm.URL))
	if err != nil {
		t.Fatal(err)
	}
	if err := bare.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	_, err = bare.Initialize(ctx, initReq)
	if !client.IsAuthorizationRequiredError(err) {
		t.Fatalf("an unsigned client must be asked to sign in, got %v", err)
	}
	metadataURL := client.GetResourceMetadataURL(err)
	if want := mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource"; metadataURL != want {
		t.Fatalf("the client found resource metadata at %q, want %q", metadataURL, want)
	}

	// It follows that document to Mattermost's OAuth server.
	redirect := "http://127.0.0.1:1/callback" // never visited: the code is read from Mattermost's answer
	c, err := client.NewOAuthStreamableHttpClient(mcpURL(mm.URL), client.OAuthConfig{
		RedirectURI:                  redirect,
		Scopes:                       []string{"user"},
		TokenStore:                   client.NewMemoryTokenStore(),
		PKCEEnabled:                  true,
		ProtectedResourceMetadataURL: metadataURL,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Initialize(ctx, initReq)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("the OAuth client must be asked to authorize, got %v", err)
	}
	handler := client.GetOAuthHandler(err)
	asMeta, err := handler.GetServerMetadata(ctx)
	if err != nil {
		t.Fatalf("discover the authorization server from the resource metadata: %v", err)
	}
	if asMeta.Issuer != mm.URL {
		t.Fatalf("the authorization server is %q, want the Mattermost site %q", asMeta.Issuer, mm.URL)
	}
	authorize(t, handler, "e2e MCP client", u)
	if _, err := c.Initialize(ctx, initReq); err != nil {
		t.Fatalf("initialize with the OAuth token: %v", err)
	}
	getMe(t, c, u)
}

// authorize runs the OAuth flow an MCP client runs once it is told to
// authorize: dynamic registration, authorization code with PKCE approved by
// u as in the browser, and the code's exchange for a token.
func authorize(t *testing.T, handler *transport.OAuthHandler, clientName string, u harness.User) {
	t.Helper()
	ctx := context.Background()
	// Mattermost takes about two registrations a second from one address
	// (and answers 429 beyond): tests that register one after the other
	// retry as a client would.
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := handler.RegisterClient(ctx, clientName)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "status 429") || time.Now().After(deadline) {
			t.Fatalf("dynamic client registration: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	state, err := client.GenerateState()
	if err != nil {
		t.Fatal(err)
	}
	authURL, err := handler.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		t.Fatalf("authorization URL: %v", err)
	}
	if err := handler.ProcessAuthorizationResponse(ctx, approveAsPerson(t, authURL, u), state, verifier); err != nil {
		t.Fatalf("exchange the code: %v", err)
	}
}

// approveAsPerson does what the person does in the browser: Mattermost's
// authorize page posts their approval with their session and answers the
// redirect carrying the code.
func approveAsPerson(t *testing.T, authURL string, u harness.User) string {
	t.Helper()
	parsed, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Scheme+"://"+parsed.Host != mm.URL {
		t.Fatalf("the authorization server is %s, want the Mattermost site %s", parsed.Host, mm.URL)
	}
	q := parsed.Query()
	body := map[string]string{}
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method", "resource"} {
		body[k] = q.Get(k)
	}
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, mm.URL+"/oauth/authorize", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+u.Token)
	req.Header.Set("X-Requested-With", "XMLHttpRequest")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	var out struct {
		Redirect string `json:"redirect"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(answer, &out) != nil {
		t.Fatalf("approval: %d %s", resp.StatusCode, answer)
	}
	back, err := url.Parse(out.Redirect)
	if err != nil || back.Query().Get("code") == "" {
		t.Fatalf("approval redirect without a code: %s", out.Redirect)
	}
	return back.Query().Get("code")
}

// rawInitialize posts an initialize request with the given Authorization
// header ("" for none) and returns the response.
func rawInitialize(t *testing.T, authorization string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL(mm.URL), strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// challengeParams parses `Bearer k="v", k2="v2"`.
func challengeParams(t *testing.T, header string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		t.Fatalf("challenge is not a Bearer challenge: %q", header)
	}
	out := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			t.Fatalf("malformed challenge parameter %q in %q", part, header)
		}
		out[k] = strings.Trim(v, `"`)
	}
	return out
}

func TestAnUnsignedRequestGetsTheChallengeAndTheMetadataItPointsTo(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	resp := rawInitialize(t, "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	params := challengeParams(t, resp.Header.Get("WWW-Authenticate"))
	wantMetadata := mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource"
	if params["resource_metadata"] != wantMetadata {
		t.Fatalf("resource_metadata %q, want %q", params["resource_metadata"], wantMetadata)
	}
	if params["scope"] != "user" {
		t.Fatalf("scope %q, want user", params["scope"])
	}
	if _, ok := params["error"]; ok {
		t.Fatalf("no token was sent, so the challenge must not say invalid_token: %v", params)
	}

	metaResp, err := http.Get(params["resource_metadata"])
	if err != nil {
		t.Fatal(err)
	}
	defer metaResp.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(metaResp.Body).Decode(&doc); err != nil {
		t.Fatalf("metadata is not JSON: %v", err)
	}
	checks := map[string]any{
		"resource":                 mcpURL(mm.URL),
		"authorization_servers":    []any{mm.URL},
		"scopes_supported":         []any{"user"},
		"bearer_methods_supported": []any{"header"},
	}
	for field, want := range checks {
		got, _ := json.Marshal(doc[field])
		w, _ := json.Marshal(want)
		if string(got) != string(w) {
			t.Errorf("metadata %s = %s, want %s", field, got, w)
		}
	}

	// The authorization server it names really is Mattermost's, with
	// dynamic registration and PKCE.
	asResp, err := http.Get(mm.URL + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer asResp.Body.Close()
	var as struct {
		Issuer        string   `json:"issuer"`
		Registration  string   `json:"registration_endpoint"`
		PKCEMethods   []string `json:"code_challenge_methods_supported"`
		Authorization string   `json:"authorization_endpoint"`
	}
	if err := json.NewDecoder(asResp.Body).Decode(&as); err != nil {
		t.Fatal(err)
	}
	if as.Registration == "" || !strings.Contains(strings.Join(as.PKCEMethods, " "), "S256") {
		t.Fatalf("authorization server metadata lacks registration or PKCE: %+v", as)
	}
}

func TestARejectedCredentialGetsTheSameChallenge(t *testing.T) {
	// Whatever this Mattermost offers for sign-in, a rejected credential is
	// told the same, marked invalid_token.
	want := challengeParams(t, rawInitialize(t, "").Header.Get("WWW-Authenticate"))
	want["error"] = "invalid_token"
	expectChallenge := func(t *testing.T, authorization string) {
		t.Helper()
		resp := rawInitialize(t, authorization)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", resp.StatusCode)
		}
		params := challengeParams(t, resp.Header.Get("WWW-Authenticate"))
		if fmt.Sprint(params) != fmt.Sprint(want) {
			t.Fatalf("challenge %v, want %v", params, want)
		}
	}

	t.Run("a token Mattermost never issued", func(t *testing.T) {
		expectChallenge(t, "Bearer abcdefghijklmnopqrstuvwxyz")
	})

	t.Run("a revoked personal access token", func(t *testing.T) {
		carol, err := mm.CreateUser("carol")
		if err != nil {
			t.Fatal(err)
		}
		token, err := mm.PersonalAccessToken(carol)
		if err != nil {
			t.Fatal(err)
		}
		if resp := rawInitialize(t, "Bearer "+token); resp.StatusCode != http.StatusOK {
			t.Fatalf("the token should work before it is revoked: %d", resp.StatusCode)
		}
		admin := mm.Client(mm.Admin)
		tokens, _, err := admin.GetUserAccessTokensForUser(context.Background(), carol.ID, 0, 10)
		if err != nil || len(tokens) != 1 {
			t.Fatalf("list tokens: %v %d", err, len(tokens))
		}
		if _, err := admin.RevokeUserAccessToken(context.Background(), tokens[0].Id); err != nil {
			t.Fatal(err)
		}
		expectChallenge(t, "Bearer "+token)
	})

	t.Run("a deactivated user", func(t *testing.T) {
		dave, err := mm.CreateUser("dave")
		if err != nil {
			t.Fatal(err)
		}
		token, err := mm.PersonalAccessToken(dave)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mm.Client(mm.Admin).UpdateUserActive(context.Background(), dave.ID, false); err != nil {
			t.Fatal(err)
		}
		expectChallenge(t, "Bearer "+token)
		expectChallenge(t, "Bearer "+dave.Token)
	})
}
