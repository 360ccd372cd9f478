package transport

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// endOn ends alice's session with a DELETE on one node.
func endOn(t *testing.T, url, session string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url+MCPPath, nil)
	req.Header.Set("Mattermost-User-Id", "alice")
	req.Header.Set(server.HeaderKeySessionID, session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	del, err := http.DefaultClient.Do(req)
	if err != nil || del.StatusCode != http.StatusOK {
		t.Fatalf("delete: %v %v", err, del)
	}
	del.Body.Close()
}

// twoNodesWithASession opens alice's session on a and has both nodes serve
// it, so that both hold its record.
func twoNodesWithASession(t *testing.T) (ta, tb *Transport, a, b, session string) {
	t.Helper()
	kv := newMemKV()
	active := map[string]bool{"alice": true}
	ta, sa := newNode(t, kv, &memLog{}, active)
	tb, sb := newNode(t, kv, &memLog{}, active)
	resp := post(t, sa.URL, "alice", "", initialize)
	session = resp.Header.Get(server.HeaderKeySessionID)
	body(t, resp)
	for _, url := range []string{sa.URL, sb.URL} {
		if resp := post(t, url, "alice", session, callWhoami); resp.StatusCode != http.StatusOK {
			t.Fatalf("the session on %s: %d", url, resp.StatusCode)
		} else {
			body(t, resp)
		}
	}
	return ta, tb, sa.URL, sb.URL, session
}

func TestASessionEndedOnOneNodeIsForgottenAtOnceByTheNodesThatHeardTheClusterEvent(t *testing.T) {
	ta, tb, a, b, session := twoNodesWithASession(t)
	var told []string
	var mu sync.Mutex
	ta.sessions.ended = func(ids []string) { // what OnPluginClusterEvent does on the other node
		mu.Lock()
		told = append(told, ids...)
		mu.Unlock()
		tb.ForgetSessions(ids)
	}
	endOn(t, a, session)
	if len(told) != 1 || told[0] != session {
		t.Fatalf("the other nodes were told %v, want the ended session", told)
	}
	if resp := post(t, b, "alice", session, callWhoami); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the ended session on the other node: %d, want 404", resp.StatusCode)
	}
}

func TestANodeThatMissedTheClusterEventServesAnEndedSessionOnlyUntilItsCopyExpires(t *testing.T) {
	_, tb, a, b, session := twoNodesWithASession(t)
	now := time.Now()
	var mu sync.Mutex
	tb.sessions.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	endOn(t, a, session)
	if resp := post(t, b, "alice", session, callWhoami); resp.StatusCode != http.StatusOK {
		t.Fatalf("within its copy's time the other node answered %d (it kept no copy?)", resp.StatusCode)
	} else {
		body(t, resp)
	}
	mu.Lock()
	now = now.Add(sessionCacheFor)
	mu.Unlock()
	if resp := post(t, b, "alice", session, callWhoami); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after %s the other node still answers %d, want 404", sessionCacheFor, resp.StatusCode)
	}
}
