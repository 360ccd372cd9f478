package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// snapshotPath is the schema snapshot server/tools keeps in the tree.
var snapshotPath = filepath.Join("..", "server", "tools", "testdata", "tools.json")

// asListed is a tool as a client decodes it from tools/list, marshalled
// again: the snapshot and the server's answer go through the same decoding,
// so they compare equal exactly when the server lists what the tree holds.
func asListed(t *testing.T, raw []byte) string {
	t.Helper()
	var tool mcp.Tool
	if err := json.Unmarshal(raw, &tool); err != nil {
		t.Fatalf("decode a tool: %v\n%s", err, raw)
	}
	out, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestEveryToolTheServerListsIsAsTheSchemaSnapshotInTheTreeHoldsIt(t *testing.T) {
	if err := mm.PatchPluginSettings(map[string]any{"AllowWrites": true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mm.PatchPluginSettings(map[string]any{"AllowWrites": false}) })
	raw, err := os.ReadFile(snapshotPath)
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	snapshot := map[string]string{}
	for _, e := range entries {
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(e, &named)
		snapshot[named.Name] = asListed(t, e)
	}

	token, err := mm.PersonalAccessToken(mm.Users[0])
	if err != nil {
		t.Fatal(err)
	}
	listed, err := connect(t, mm.URL, token).ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(listed.Tools) < len(snapshot)/2 {
		t.Fatalf("the server lists %d tools with writes on, of %d in the snapshot", len(listed.Tools), len(snapshot))
	}
	for _, tool := range listed.Tools {
		sent, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := snapshot[tool.Name]
		if !ok {
			t.Errorf("the server lists %s, which the snapshot does not hold: go test ./server/tools -run Snapshot -update", tool.Name)
			continue
		}
		if got := asListed(t, sent); got != want {
			t.Errorf("%s as the server lists it differs from the snapshot:\n server:   %s\n snapshot: %s", tool.Name, got, want)
		}
	}
}
