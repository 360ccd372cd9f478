package viewcache

import (
	"context"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/fileview"
)

// BenchmarkWindowTwoOfAKeptText is the work of a second window on a hit,
// on the node that kept the text and on another node, which reads it back
// from the store.
func BenchmarkWindowTwoOfAKeptText(b *testing.B) {
	b.Run("same node", func(b *testing.B) { benchWindowTwo(b, false) })
	b.Run("another node", func(b *testing.B) { benchWindowTwo(b, true) })
}

func benchWindowTwo(b *testing.B, anotherNode bool) {
	var s strings.Builder
	for i := 0; s.Len() < 6<<20; i++ {
		s.WriteString("Paragraph of the harbour report: cranes, tides and the ships expected at dawn, number ")
		s.WriteString(strings.Repeat("x", i%17))
		s.WriteString("\n")
	}
	text := &fileview.Text{Kind: fileview.KindDocument, Detected: "Word document", Size: 2 << 20, Body: s.String()}
	kv := &memKV{m: map[string][]byte{}}
	c := &Cache{KV: kv}
	k := Key{Source: "attachment", ID: "f"}
	if err := c.Put("alice", k, text); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if anotherNode {
			c = &Cache{KV: kv}
		}
		t, ok := c.Get(k)
		if !ok {
			b.Fatal("miss")
		}
		if _, err := t.Window(context.Background(), fileview.Request{Name: "r.docx", Offset: 501, Limit: 500}); err != nil {
			b.Fatal(err)
		}
	}
}
