package viewcache

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

// BenchmarkWindowTwoOfAKeptText is the work of a second window on a hit:
// read the kept text back from the store and cut the window.
func BenchmarkWindowTwoOfAKeptText(b *testing.B) {
	var s strings.Builder
	for i := 0; s.Len() < 6<<20; i++ {
		s.WriteString("Paragraph of the harbour report: cranes, tides and the ships expected at dawn, number ")
		s.WriteString(strings.Repeat("x", i%17))
		s.WriteString("\n")
	}
	text := &fileview.Text{Kind: fileview.KindDocument, Detected: "Word document", Size: 2 << 20, Body: s.String()}
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	k := Key{"attachment", "f"}
	if err := c.Put("alice", k, text); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, ok := c.Get(k)
		if !ok {
			b.Fatal("miss")
		}
		if _, err := t.Window(context.Background(), fileview.Request{Name: "r.docx", Offset: 501, Limit: 500}); err != nil {
			b.Fatal(err)
		}
	}
}
