package transport

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// statelessWhoami is a tools/call of the newest protocol as a client sends
// it: the version and client in _meta, the method and name in headers.
const statelessWhoami = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// BenchmarkAToolCallOnAWarmNode is what the MCP layer costs one call of a
// tool that does nothing, on a node that knows the caller (and, on
// 2025-11-25, their session): everything between the plugin's handler and
// a tool's own work, without Mattermost's plugin RPC. It reports the KV
// reads and writes a call makes (none on a warm node).
func BenchmarkAToolCallOnAWarmNode(b *testing.B) {
	for _, bc := range []struct {
		name string
		req  func(session string) *http.Request
	}{
		{"Newest", func(string) *http.Request {
			r := httptest.NewRequest(http.MethodPost, MCPPath, strings.NewReader(statelessWhoami))
			r.Header.Set("MCP-Protocol-Version", "2026-07-28")
			r.Header.Set(mcp.HeaderMethod, "tools/call")
			r.Header.Set(mcp.HeaderName, "whoami")
			return r
		}},
		{"Session20251125", func(session string) *http.Request {
			r := httptest.NewRequest(http.MethodPost, MCPPath, strings.NewReader(callWhoami))
			r.Header.Set("MCP-Protocol-Version", "2025-11-25")
			r.Header.Set(server.HeaderKeySessionID, session)
			return r
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// A node of its own for each run: the rate counts every call.
			kv := newMemKV()
			tr, srv := newNode(b, kv, &memLog{}, map[string]bool{"alice": true})
			tr.opts.MaxCallsPerMinute = func() int { return 1 << 30 }
			resp := post(b, srv.URL, "alice", "", initialize)
			session := resp.Header.Get(server.HeaderKeySessionID)
			resp.Body.Close()
			call := func() *httptest.ResponseRecorder {
				r := bc.req(session)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mattermost-User-Id", "alice")
				w := httptest.NewRecorder()
				tr.ServeMCP(w, r)
				return w
			}
			if w := call(); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "alice elicitation") {
				b.Fatalf("the call answered %d: %s", w.Code, w.Body)
			}
			reads, writes := kv.counts()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				call()
			}
			b.StopTimer()
			r2, w2 := kv.counts()
			b.ReportMetric(float64(r2-reads)/float64(b.N), "kv-reads/op")
			b.ReportMetric(float64(w2-writes)/float64(b.N), "kv-writes/op")
		})
	}
}
