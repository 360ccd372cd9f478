package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

func TestAPresignedDownloadWorksForItsWholeLifeAndNotAfter(t *testing.T) {
	if expiring.url == "" {
		t.Fatal("TestAPresignedDownloadIsMadeAtTheStartOfTheSuite made no URL")
	}
	end := expiring.created.Add(workspace.DownloadLifetime)
	// Still served, GET and HEAD, until shortly before its end.
	for time.Until(end) > 15*time.Second {
		for _, method := range []string{http.MethodHead, http.MethodGet} {
			if resp, _ := httpDo(t, method, expiring.url, "", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s before the end of its life: %d", method, time.Until(end).Round(time.Second), resp.StatusCode)
			}
		}
		time.Sleep(min(20*time.Second, time.Until(end)-15*time.Second))
	}
	// Then refused, polled until a minute past its end.
	deadline := end.Add(time.Minute)
	for {
		get, _ := httpDo(t, http.MethodGet, expiring.url, "", nil)
		head, _ := httpDo(t, http.MethodHead, expiring.url, "", nil)
		if get.StatusCode == http.StatusNotFound && head.StatusCode == http.StatusNotFound {
			if time.Now().Before(end) {
				t.Fatalf("refused %s before the end of its life", time.Until(end).Round(time.Second))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still served a minute after its life: GET %d, HEAD %d", get.StatusCode, head.StatusCode)
		}
		time.Sleep(2 * time.Second)
	}
}
