package mattermost

import (
	"strings"
	"testing"
)

func TestTheCleanupQueriesUseEachDatabasesOwnPlaceholders(t *testing.T) {
	cases := []struct {
		driver, discard, abandon string
	}{
		{"postgres",
			"UPDATE FileInfo SET DeleteAt = $1, UpdateAt = $2 WHERE CreatorId IN ($3, 'nouser') AND PostId = '' AND DeleteAt = 0 AND Id IN ($4, $5)",
			"DELETE FROM UploadSessions WHERE Id = $1 AND UserId = $2 AND Type = 'attachment'"},
		{"mysql",
			"UPDATE FileInfo SET DeleteAt = ?, UpdateAt = ? WHERE CreatorId IN (?, 'nouser') AND PostId = '' AND DeleteAt = 0 AND Id IN (?, ?)",
			"DELETE FROM UploadSessions WHERE Id = ? AND UserId = ? AND Type = 'attachment'"},
	}
	for _, c := range cases {
		discard, err := discardQuery(c.driver, 2)
		if err != nil || discard != c.discard {
			t.Errorf("%s discard:\n got %s (%v)\nwant %s", c.driver, discard, err, c.discard)
		}
		abandon, err := abandonQuery(c.driver)
		if err != nil || abandon != c.abandon {
			t.Errorf("%s abandon:\n got %s (%v)\nwant %s", c.driver, abandon, err, c.abandon)
		}
	}
}

func TestAnUnknownDatabaseDriverIsRefusedRatherThanGuessed(t *testing.T) {
	if q, err := discardQuery("sqlite3", 1); err == nil || !strings.Contains(err.Error(), "sqlite3") {
		t.Fatalf("got %q, %v", q, err)
	}
	if q, err := abandonQuery(""); err == nil {
		t.Fatalf("got %q", q)
	}
}
