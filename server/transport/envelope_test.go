package transport

import (
	"bytes"
	"encoding/json"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-server/mattermost-plugin-mcp/server/filetransfer"
	"net/http"
	"testing"
)

func TestTheEnvelopeReadsEveryKindOfMessageOnce(t *testing.T) {
	cases := []struct {
		name, body   string
		method, tool string
		id           string
		answer       bool
		params       bool
	}{
		{"a tools/call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"file_id":"x"},"_meta":{"progressToken":1}}}`, "tools/call", "read_file", "7", false, true},
		{"initialize", `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, "initialize", "", `"a"`, false, true},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`, "notifications/cancelled", "", "null", false, true},
		{"an answer", `{"jsonrpc":"2.0","id":4,"result":{"action":"accept"}}`, "", "", "4", true, false},
		{"an error answer", `{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}`, "", "", "4", true, false},
		{"a null params is none", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, "ping", "", "1", false, false},
		{"a null id is no id", `{"jsonrpc":"2.0","id":null,"result":{}}`, "", "", "null", false, false},
		{"params that are an array", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1,2]}`, "tools/list", "", "1", false, false},
		{"a tool name that is no string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, "tools/call", "", "1", false, false},
		{"keys as encoding/json matches them", `{"jsonrpc":"2.0","ID":2,"Method":"ping"}`, "ping", "", "2", false, false},
		{"a batch is no message", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "", "", "null", false, false},
		{"malformed", `{"jsonrpc":"2.0","id":1,"method":"ping"`, "", "", "null", false, false},
		{"empty", ``, "", "", "null", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := parseEnvelope([]byte(tc.body))
			if e.method != tc.method || e.tool != tc.tool || string(e.requestID()) != tc.id || e.answer != tc.answer || e.hasParams != tc.params {
				t.Fatalf("envelope %+v (id %s), want method %q tool %q id %s answer %v params %v", e, e.requestID(), tc.method, tc.tool, tc.id, tc.answer, tc.params)
			}
		})
	}
}

func TestTheEnvelopeFindsTheClientAModernRequestNames(t *testing.T) {
	e := parseEnvelope([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"claude-ai","version":"1.0"}}}}`))
	if info, ok := e.clientInfo(); !ok || info.Name != "claude-ai" || info.Version != "1.0" {
		t.Fatalf("clientInfo = %+v, %v", info, ok)
	}
	if _, ok := parseEnvelope([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)).clientInfo(); ok {
		t.Fatal("a request without _meta named a client")
	}
}

// FuzzTheEnvelopeAgreesWithWhatMcpGoReads parses any body without panic,
// and reads the method and whether there is an id as mcp-go's request
// handler reads them (server/request_handler.go: encoding/json into
// method and id), and the tool as the method's params name it.
func FuzzTheEnvelopeAgreesWithWhatMcpGoReads(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"id":[1],"method":{},"params":"x"}`,
		`[]`, `null`, `{"params":{"name":null,"_meta":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := parseEnvelope(body)
		var base struct {
			Method string `json:"method"`
			ID     any    `json:"id,omitempty"`
		}
		if json.Unmarshal(body, &base) != nil {
			if e.answer || e.tool != "" {
				t.Fatalf("a body mcp-go cannot read gave %+v", e)
			}
			return
		}
		if e.method != base.Method {
			t.Fatalf("method %q, mcp-go reads %q", e.method, base.Method)
		}
		if (base.ID != nil) != (e.id != nil) {
			t.Fatalf("id %s, mcp-go reads %v", e.id, base.ID)
		}
		var p struct {
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if e.method == "tools/call" && json.Unmarshal(body, &p) == nil && p.Params.Name != e.tool {
			t.Fatalf("tool %q, the params name %q", e.tool, p.Params.Name)
		}
		var whole struct {
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &whole) == nil && !bytes.Equal(bytes.TrimSpace(whole.Params), bytes.TrimSpace(e.rawParams())) {
			t.Fatalf("params %s, the body holds %s", e.rawParams(), whole.Params)
		}
		_, _ = e.clientInfo()
	})
}

// BenchmarkParseEnvelope reads a read_file call of a modern client, its
// arguments and _meta as such clients send them.
func TestTheEnvelopeGivesParamsWholeOfAnyShape(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mattermost://channel/x","_meta":{"a":1}}}`)
	e := parseEnvelope(body)
	if string(e.rawParams()) != `{"uri":"mattermost://channel/x","_meta":{"a":1}}` || e.params.URI != "mattermost://channel/x" {
		t.Fatalf("params %s, uri %q", e.rawParams(), e.params.URI)
	}
	// Params of another shape are kept whole for the concern that says
	// what is wrong with them.
	if e := parseEnvelope([]byte(`{"id":1,"method":"prompts/get","params":["x"]}`)); string(e.rawParams()) != `["x"]` || e.hasParams {
		t.Fatalf("params of another shape: %s, hasParams %v", e.rawParams(), e.hasParams)
	}
}

func TestARewrittenMessageKeepsItsIdAndMethodAndTheEnvelopeReadsItsNewParams(t *testing.T) {
	e := parseEnvelope([]byte(`{"jsonrpc":"2.0","id":"q-1","method":"tools/call","params":{"name":"t","task":{"ttl":5},"arguments":{"a":1}}}`))
	out := e.rewriteParams(func(p map[string]json.RawMessage) bool {
		delete(p, "task")
		return true
	})
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      string          `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(out, &msg); err != nil || msg.JSONRPC != "2.0" || msg.ID != "q-1" || msg.Method != "tools/call" {
		t.Fatalf("rewritten: %s (%v)", out, err)
	}
	if string(msg.Params) != `{"arguments":{"a":1},"name":"t"}` || string(e.rawParams()) != string(msg.Params) {
		t.Fatalf("params %s, the envelope reads %s", msg.Params, e.rawParams())
	}
	if again := e.rewriteParams(func(map[string]json.RawMessage) bool { return false }); again != nil {
		t.Fatalf("an unchanged message was rewritten: %s", again)
	}
	note := parseEnvelope([]byte(`{"jsonrpc":"2.0","method":"x","params":{"a":1}}`))
	if out := note.rewriteParams(func(p map[string]json.RawMessage) bool { p["b"] = json.RawMessage("2"); return true }); string(out) != `{"jsonrpc":"2.0","method":"x","params":{"a":1,"b":2}}` {
		t.Fatalf("a notification rewritten: %s", out)
	}
}

// modernCall is a 2026-07-28 tools/call as a host sends it.
var modernCall = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"read_file","arguments":{"file_id":"8xk3h1n5ftbqzc7yjg4w2dme6a","offset":501,"limit":500},` +
	`"_meta":{"progressToken":"p-42","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.0"},` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/ui":{}}}}}}`)

func BenchmarkParseEnvelope(b *testing.B) {
	body := modernCall
	b.ReportAllocs()
	for b.Loop() {
		if e := parseEnvelope(body); e.tool != "read_file" {
			b.Fatal(e.tool)
		}
	}
}

// BenchmarkAModernCallIsReadForItsConcerns is the envelope and what the
// concerns of every modern call read of it: the client (sign-ins), whether
// it is modern and the files it declares.
func BenchmarkAModernCallIsReadForItsConcerns(b *testing.B) {
	r, _ := http.NewRequest(http.MethodPost, "/", nil)
	b.ReportAllocs()
	for b.Loop() {
		e := parseEnvelope(modernCall)
		_, _ = e.clientInfo()
		if isModern(r, e) {
			_ = filetransfer.ParseCapability(e.metaMembers.ClientCapabilities)
		}
	}
}

// TestTheEnvelopeReadsTheMetaKeysMcpGoNames keeps envelopeMeta's tags the
// keys mcp-go defines, and reads each member once.
func TestTheEnvelopeReadsTheMetaKeysMcpGoNames(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me","_meta":{` +
		`"` + mcp.MetaKeyProtocolVersion + `":"2026-07-28",` +
		`"` + mcp.MetaKeyClientInfo + `":{"name":"c","version":"2"},` +
		`"` + mcp.MetaKeyClientCapabilities + `":{"extensions":{"x":{}}}}}}`
	e := parseEnvelope([]byte(body))
	if e.metaProtocolVersion() != "2026-07-28" {
		t.Errorf("protocol version %q", e.metaProtocolVersion())
	}
	if info, ok := e.clientInfo(); !ok || info.Name != "c" || info.Version != "2" {
		t.Errorf("client %+v, %v", info, ok)
	}
	if !requestCapabilities(e).declares("x") {
		t.Errorf("capabilities %s", e.metaMembers.ClientCapabilities)
	}
	if e := parseEnvelope([]byte(`{"id":1,"method":"tools/call","params":{"name":"t","_meta":[1]}}`)); e.metaProtocolVersion() != "" || e.paramsMalformed {
		t.Errorf("a _meta that is no object named %q (malformed %v)", e.metaProtocolVersion(), e.paramsMalformed)
	}
	if e := parseEnvelope([]byte(`{"id":1,"method":"resources/read","params":["x"]}`)); !e.paramsMalformed {
		t.Error("params that are no object were not marked malformed")
	}
}

func TestAMetaThatIsNoObjectIsToldApartAsMcpGoTellsIt(t *testing.T) {
	for meta, object := range map[string]bool{
		``: true, `"_meta":null,`: true, `"_meta":{"a":1},`: true,
		`"_meta":5,`: false, `"_meta":"x",`: false, `"_meta":[],`: false,
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{` + meta + `"uri":"u"}}`
		env := parseEnvelope([]byte(body))
		var req mcp.ReadResourceRequest
		mcpGoReads := json.Unmarshal([]byte(body), &req) == nil
		if env.metaIsObject() != object || mcpGoReads != object {
			t.Errorf("%s: the envelope says object %v, mcp-go reads it %v; want %v", meta, env.metaIsObject(), mcpGoReads, object)
		}
	}
}
