package e2e

import (
	"net/http"
	"testing"
	"time"
)

// A presigned download URL lives five minutes of real time. It is made by
// the first test of the package and checked by the last one
// (zz_expiry_test.go), so the wait overlaps the rest of the suite.
var expiring struct {
	url     string
	created time.Time
}

func TestAPresignedDownloadIsMadeAtTheStartOfTheSuite(t *testing.T) {
	c := aliceClient(t)
	if res := call(t, c, "files_write", map[string]any{"name": "short-lived.txt", "text": "soon gone"}); res.IsError {
		t.Fatalf("files_write: %s", text(res))
	}
	expiring.created = time.Now()
	res := call(t, c, "files_presign", map[string]any{"name": "short-lived.txt", "direction": "download"})
	var p struct{ URL string }
	structuredAs(t, res, &p)
	if resp, _ := httpDo(t, http.MethodGet, p.URL, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a fresh download URL answers %d", resp.StatusCode)
	}
	expiring.url = p.URL
}
