package transport

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestAUserFoundActiveIsAskedAboutOnceWithinActiveForAndAgainAtOnceWhenDeactivated(t *testing.T) {
	asked, active := 0, true
	kv := newMemKV()
	tr := New(Options{
		PluginID: "plugin-under-test", Version: "test", Instructions: "test",
		SiteURL:    func() string { return "https://chat.example.com/" },
		UserActive: func(string) (bool, error) { asked++; return active, nil },
		KV:         kv, Answers: rawKV{kv}, Log: &memLog{},
	})
	authenticate := func() (bool, int) {
		req := httptest.NewRequest(http.MethodPost, MCPPath, nil)
		req.Header.Set("Mattermost-User-Id", "alice")
		rec := httptest.NewRecorder()
		_, ok := tr.Authenticate(rec, req)
		return ok, rec.Code
	}
	for range 3 {
		if ok, code := authenticate(); !ok {
			t.Fatalf("an active user was refused: %d", code)
		}
	}
	if asked != 1 {
		t.Fatalf("Mattermost was asked %d times within %s, want once", asked, activeFor)
	}
	active = false
	tr.UserDeactivated("alice")
	if ok, code := authenticate(); ok || code != http.StatusUnauthorized {
		t.Fatalf("a deactivated user got %d (served %v), want 401", code, ok)
	}
	if asked != 2 {
		t.Fatalf("after the deactivation Mattermost was asked %d times in all, want 2", asked)
	}
}

func TestTrustInAnActiveUserLapsesAfterActiveForAndTheListStaysBounded(t *testing.T) {
	var a activeUsers
	now := time.Now()
	a.found("alice", now)
	if !a.trusted("alice", now.Add(activeFor-time.Second)) || a.trusted("alice", now.Add(activeFor)) {
		t.Fatalf("trust should last %s and no longer", activeFor)
	}
	for i := range maxActiveUsers + 10 {
		a.found(string(rune(i)), now)
	}
	if n := len(a.until); n > maxActiveUsers {
		t.Fatalf("%d users remembered, bound %d", n, maxActiveUsers)
	}
}
