package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/viewcache"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

func TestBobWritingTheSameBytesAsAliceNeverReadsHerFileNameFromAKeptText(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %d of the plan\n", i)
	}
	data := []byte(b.String())
	sum := sha256.Sum256(data)
	alices := workspace.File{Name: "alice-secret-plan.png", SHA256: hex.EncodeToString(sum[:])}
	bobs := workspace.File{Name: "notes.png", SHA256: alices.SHA256}

	view, err := fileview.Convert(context.Background(), data, fileview.Request{Name: alices.Name})
	if err != nil || view.Whole == nil || !strings.Contains(view.Header, alices.Name) {
		t.Fatalf("alice's first window should note her name against the bytes: %v %+v", err, view)
	}
	cache := &viewcache.Cache{KV: kvtest.New()}
	if err := cache.Put("alice", workspaceViewKey("alice", alices), view.Whole); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.Open(workspaceViewKey("alice", alices)); !ok {
		t.Fatal("alice's next window does not find her kept text")
	}
	for _, f := range []workspace.File{bobs, alices} {
		if kept, ok := cache.Open(workspaceViewKey("bob", f)); ok {
			text, _ := kept.Text()
			t.Errorf("bob's %s found a kept text: %q", f.Name, text.Mismatch)
		}
	}
}
