package e2e

import (
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/tools"
)

func TestAClientKeepsWorkingAcrossADisableAndEnableOfThePlugin(t *testing.T) {
	alice := mm.Users[0]
	c := connect(t, mm.URL, alice.Token)
	getMe(t, c, alice)
	if err := mm.DisablePlugin(); err != nil {
		t.Fatal(err)
	}
	if err := mm.EnablePlugin(); err != nil {
		t.Fatal(err)
	}
	// Same client, same session id, a brand-new plugin process.
	getMe(t, c, alice)
}

func TestAClientKeepsWorkingThroughARoundRobinProxyOverTwoServers(t *testing.T) {
	proxyURL, err := mm.StartSecondNode(t.Context())
	if err != nil {
		t.Fatalf("second node: %v (log %s)", err, mm.ServerLog())
	}
	bob := mm.Users[1]
	before1, before2 := mm.ProxyHits()
	c := connect(t, proxyURL, bob.Token)
	for range 4 {
		var me tools.Me
		structuredAs(t, call(t, c, "get_me", nil), &me)
		if me.UserID != bob.ID {
			t.Fatalf("through the proxy get_me answered %s, want %s", me.UserID, bob.ID)
		}
	}
	if names := toolNames(t, c); len(names) == 0 {
		t.Fatal("no tools listed through the proxy")
	}
	after1, after2 := mm.ProxyHits()
	if after1-before1 < 2 || after2-before2 < 2 {
		t.Fatalf("both servers must have served this client: node 1 %d, node 2 %d requests", after1-before1, after2-before2)
	}
}
