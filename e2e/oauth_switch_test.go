package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// unsignedChallenge is what a request without credentials gets: the
// WWW-Authenticate header and the body.
func unsignedChallenge(t *testing.T) (string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL(mm.URL), strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401: %s", resp.StatusCode, body)
	}
	return resp.Header.Get("WWW-Authenticate"), string(body)
}

// protectedResourceMetadata is the plugin's RFC 9728 document.
func protectedResourceMetadata(t *testing.T) map[string]any {
	t.Helper()
	resp, err := http.Get(mm.URL + "/plugins/mcp-server/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc := map[string]any{}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&doc) != nil {
		t.Fatalf("metadata: status %d", resp.StatusCode)
	}
	return doc
}

// setOAuth saves Mattermost's two OAuth settings as an admin does in the
// System Console.
func setOAuth(t *testing.T, provider, registration bool) {
	t.Helper()
	patch := &model.Config{}
	patch.ServiceSettings.EnableOAuthServiceProvider = model.NewPointer(provider)
	patch.ServiceSettings.EnableDynamicClientRegistration = model.NewPointer(registration)
	if err := mm.PatchConfig(patch); err != nil {
		t.Fatal(err)
	}
}

// waitForChallenge polls the unsigned 401 until its header says whether
// OAuth is advertised as want, and returns header and body.
func waitForChallenge(t *testing.T, advertised bool) (string, string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		header, body := unsignedChallenge(t)
		if strings.Contains(header, "resource_metadata=") == advertised {
			return header, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 401 still says %q (OAuth advertised: want %v)", header, advertised)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// oauthSwitchedOffThenOn switches OAuth off as off does, checks that
// nothing sends clients to an authorization server that cannot register them
// and that a personal access token works, then switches it back on and signs
// in with OAuth from a bare 401, without restarting the plugin.
func oauthSwitchedOffThenOn(t *testing.T, off func()) {
	t.Cleanup(func() { setOAuth(t, true, true) })
	alice := mm.Users[0]
	token, err := mm.PersonalAccessToken(alice)
	if err != nil {
		t.Fatal(err)
	}

	off()
	header, body := waitForChallenge(t, false)
	if header != `Bearer realm="Mattermost"` {
		t.Fatalf("the 401 names more than a bearer token: %q", header)
	}
	if !strings.Contains(body, "personal access token") || strings.Contains(strings.ToLower(body), "where oauth starts") {
		t.Fatalf("the 401 must say to use a personal access token: %s", body)
	}
	doc := protectedResourceMetadata(t)
	if _, ok := doc["authorization_servers"]; ok {
		t.Fatalf("the metadata names an authorization server that cannot register clients: %v", doc)
	}
	if doc["resource"] != mcpURL(mm.URL) {
		t.Fatalf("metadata resource %v", doc["resource"])
	}
	getMe(t, connect(t, mm.URL, token), alice)

	setOAuth(t, true, true)
	waitForChallenge(t, true)
	if got := protectedResourceMetadata(t)["authorization_servers"]; fmt.Sprint(got) != "["+mm.URL+"]" {
		t.Fatalf("metadata authorization_servers %v, want [%s]", got, mm.URL)
	}
	signInWithOAuthFromABare401(t, alice)
}

func TestOAuthIsNotAdvertisedWhileTheOAuthServiceProviderIsOffAndIsAgainOnceItIsOn(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	oauthSwitchedOffThenOn(t, func() { setOAuth(t, false, true) })
}

func TestOAuthIsNotAdvertisedWhileDynamicClientRegistrationIsOffAndIsAgainOnceItIsOn(t *testing.T) {
	if !oauthForClients(t) {
		return
	}
	oauthSwitchedOffThenOn(t, func() { setOAuth(t, true, false) })
}
