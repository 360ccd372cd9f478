package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
)

// What one person or one client can put in the KV store through the
// transport is bounded: session records, sessions per person, answers and
// mailboxes (see the constants in sessions.go and answers.go).

func openSession(t *testing.T, url, user, init string) string {
	t.Helper()
	resp := post(t, url, user, "", init)
	id := resp.Header.Get(server.HeaderKeySessionID)
	if got := body(t, resp); resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, got)
	}
	return id
}

// sessionsOf is the ids of the user's session records in the store.
func (m *memKV) sessionsOf(user string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for k, raw := range m.data {
		if !strings.HasPrefix(k, sessionKeyPrefix) {
			continue
		}
		var rec SessionRecord
		if json.Unmarshal(raw, &rec) == nil && rec.UserID == user {
			ids = append(ids, rec.ID)
		}
	}
	return ids
}

func (m *memKV) raw(key string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data[key]
}

func TestAClientInfoOfAMegabyteLeavesASessionRecordOfAFewHundredBytes(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	a, b := node(t, kv, &memLog{}, active), node(t, kv, &memLog{}, active)
	mib := strings.Repeat("é", 1<<19) // 1 MiB of two-byte characters
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{"elicitation":{"form":{"pad":%q}},"experimental":{"pad":%q},"roots":{}},`+
		`"clientInfo":{"name":%q,"version":%q,"title":%q}}}`, mib, mib, mib, mib, mib)
	session := openSession(t, a.URL, "alice", init)

	raw := kv.raw(sessionKey(session))
	if len(raw) > maxSessionRecordBytes {
		t.Fatalf("the session record takes %d bytes, above %d", len(raw), maxSessionRecordBytes)
	}
	var rec SessionRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.ClientName) != maxClientNameBytes || len(rec.ClientVersion) != maxClientVersionBytes || !strings.HasPrefix(mib, rec.ClientName) {
		t.Fatalf("client name %d bytes, version %d bytes", len(rec.ClientName), len(rec.ClientVersion))
	}
	if rec.Capabilities.Elicitation == nil || rec.Capabilities.Elicitation.Form == nil || rec.Capabilities.Experimental != nil || rec.Capabilities.Roots != nil {
		t.Fatalf("capabilities kept: %+v", rec.Capabilities)
	}
	// What the plugin uses of it still reaches every node.
	if got := body(t, post(t, b.URL, "alice", session, callWhoami)); !strings.Contains(got, "alice elicitation=true") {
		t.Fatalf("node b answered %s", got)
	}
}

func TestAClientNameIsCutWithoutSplittingACharacter(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abcdef", 3, "abc"}, {"aé", 2, "a"}, {"日本", 4, "日"}, {"日本", 2, ""}} {
		if got := truncate(c.in, c.n); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestAnEndedSessionLeavesThePersonsIndex(t *testing.T) {
	kv := newMemKV()
	srv := node(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", initialize)
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+MCPPath, nil)
	req.Header.Set("Mattermost-User-Id", "alice")
	req.Header.Set(server.HeaderKeySessionID, session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %v %v", err, resp)
	}
	resp.Body.Close()
	if raw := kv.raw(sessionIndexKey("alice")); strings.Contains(string(raw), session) {
		t.Fatalf("the index still names the ended session: %s", raw)
	}
}

func TestANodeKeepsNoCopyOfASessionAfterItsInitialize(t *testing.T) {
	kv := newMemKV()
	tr, srv := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	for range 5 {
		session := openSession(t, srv.URL, "alice", initialize)
		if got := body(t, post(t, srv.URL, "alice", session, callWhoami)); !strings.Contains(got, "alice elicitation=true") {
			t.Fatalf("the session after its copy was dropped: %s", got)
		}
	}
	// mcp-go keeps its copies in unexported maps; if an upgrade moves them
	// this test fails rather than pass without looking.
	count := func(v reflect.Value, field string) int {
		f := v.Elem().FieldByName(field)
		if !f.IsValid() || f.Type() != reflect.TypeFor[sync.Map]() {
			t.Fatalf("mcp-go's %s moved", field)
		}
		n := 0
		(*sync.Map)(unsafe.Pointer(f.UnsafeAddr())).Range(func(any, any) bool { n++; return true })
		return n
	}
	if n := count(reflect.ValueOf(tr.http), "activeSessions") + count(reflect.ValueOf(tr.MCP), "sessions"); n != 0 {
		t.Fatalf("the node keeps %d sessions in memory", n)
	}
}

func answerBody(id string, pad int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"ok":true,"pad":%q}}}`, id, strings.Repeat("x", pad))
}

func rpcError(t *testing.T, text string) (int, string) {
	t.Helper()
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &msg); err != nil || msg.JSONRPC != "2.0" || string(msg.ID) != "null" {
		t.Fatalf("not a JSON-RPC error: %s (%v)", text, err)
	}
	return msg.Error.Code, msg.Error.Message
}

func TestAnAnswerLargerThanTheCapIsRefusedWith413AndAJSONRPCError(t *testing.T) {
	kv := newMemKV()
	tr, srv := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", initialize)
	resp := post(t, srv.URL, "alice", session, answerBody(fmt.Sprint(tr.idStart+1), MaxAnswerBytes))
	text := body(t, resp)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), text)
	}
	if code, msg := rpcError(t, text); code != -32600 || !strings.Contains(msg, "at most 64 KiB") {
		t.Fatalf("error %d %q", code, msg)
	}
	if raw := kv.raw(mailboxKey(session)); raw != nil {
		t.Fatalf("the refused answer was stored: %d bytes", len(raw))
	}
	// An answer within the cap is taken.
	if resp := post(t, srv.URL, "alice", session, answerBody(fmt.Sprint(tr.idStart+1), 1000)); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("an answer within the cap: %d %s", resp.StatusCode, body(t, resp))
	}
}

func TestAnAnswerToAQuestionNoNodeAskedIsRefusedAndNothingIsStored(t *testing.T) {
	kv := newMemKV()
	tr, srv := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	session := openSession(t, srv.URL, "alice", initialize)
	for _, id := range []string{"1", `"abc"`, fmt.Sprint(tr.idStart), fmt.Sprint(tr.idStart + requestIDSpan + 1), "1.5", `{"a":1}`} {
		resp := post(t, srv.URL, "alice", session, answerBody(id, 10))
		text := body(t, resp)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("answer to %s: %d %s", id, resp.StatusCode, text)
		}
		if code, msg := rpcError(t, text); code != -32600 || !strings.Contains(msg, "no question") {
			t.Fatalf("answer to %s: %d %q", id, code, msg)
		}
	}
	if raw := kv.raw(mailboxKey(session)); raw != nil {
		t.Fatalf("an answer to no question was stored: %s", raw)
	}
}

func TestAnAnswerToAnotherNodesQuestionWaitsInTheMailbox(t *testing.T) {
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	a, _ := newNode(t, kv, &memLog{}, active)
	_, b := newNode(t, kv, &memLog{}, active)
	session := openSession(t, b.URL, "alice", initialize)
	id := fmt.Sprint(a.idStart + 7)
	if resp := post(t, b.URL, "alice", session, answerBody(id, 10)); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("an answer to node a's question on node b: %d %s", resp.StatusCode, body(t, resp))
	}
	if raw := kv.raw(mailboxKey(session)); !strings.Contains(string(raw), `"id":`+id) {
		t.Fatalf("the mailbox holds %s", raw)
	}
}

func TestTheMailboxKeepsOnlyTheNewestAnswersWithinItsBytesAndCount(t *testing.T) {
	kv := newMemKV()
	tr, _ := newNode(t, kv, &memLog{}, nil)
	for _, c := range []struct {
		pad, sent, want int
	}{{10, 3 * mailboxMaxEntries, mailboxMaxEntries}, {MaxAnswerBytes - 100, 10, mailboxMaxBytes / MaxAnswerBytes}} {
		session := fmt.Sprintf("s%d", c.pad)
		for i := range c.sent {
			if err := tr.postToMailbox(session, []byte(answerBody(fmt.Sprint(i), c.pad))); err != nil {
				t.Fatal(err)
			}
		}
		var entries []mailEntry
		raw := kv.raw(mailboxKey(session))
		if err := json.Unmarshal(raw, &entries); err != nil {
			t.Fatal(err)
		}
		if len(entries) != c.want || !strings.Contains(string(entries[len(entries)-1].Body), fmt.Sprintf(`"id":%d`, c.sent-1)) {
			t.Fatalf("%d answers of %d bytes: the mailbox keeps %d, want the newest %d", c.sent, c.pad, len(entries), c.want)
		}
		if len(raw) > mailboxMaxBytes+1024 {
			t.Fatalf("the mailbox takes %d bytes", len(raw))
		}
	}
}

func TestTheListOfNodesKeepsTheMostRecentlyAsking(t *testing.T) {
	kv := newMemKV()
	var first *Transport
	for i := range maxNodes + 5 {
		tr, _ := newNode(t, kv, &memLog{}, nil)
		if i == 0 {
			first = tr
		}
	}
	var nodes []nodeRange
	if err := json.Unmarshal(kv.raw(nodesKey), &nodes); err != nil || len(nodes) != maxNodes {
		t.Fatalf("%d nodes listed, want %d (%v)", len(nodes), maxNodes, err)
	}
	if ok, _ := first.issued(first.idStart + 1); !ok {
		t.Fatal("a node refuses answers to its own questions")
	}
	first.markedAt.Store(0) // as if an hour had passed
	first.markAsking()
	if err := json.Unmarshal(kv.raw(nodesKey), &nodes); err != nil || nodes[0].Start != first.idStart || len(nodes) != maxNodes {
		t.Fatalf("the node asking again is not listed first: %+v", nodes[0])
	}
}

func TestASessionRemembersTheMattermostSessionItWasOpenedWith(t *testing.T) {
	kv := newMemKV()
	tr, _ := newNode(t, kv, &memLog{}, map[string]bool{"alice": true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.ServeMCP(w, r.WithContext(WithMattermostSession(r.Context(), "mm-session-of-the-client")))
	}))
	t.Cleanup(srv.Close)
	session := openSession(t, srv.URL, "alice", initialize)
	var rec SessionRecord
	if err := json.Unmarshal(kv.raw(sessionKey(session)), &rec); err != nil || rec.MattermostSessionID != "mm-session-of-the-client" || rec.UserID != "alice" {
		t.Fatalf("record %+v %v", rec, err)
	}
}
