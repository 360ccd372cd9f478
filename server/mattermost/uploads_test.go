package mattermost

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
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

func TestAnUploadsChannelIsItsRecordsOrWhere9_11LeavesItEmptyTheOneItsPathNames(t *testing.T) {
	ch, user, id := model.NewId(), model.NewId(), model.NewId()
	cases := []struct {
		name string
		info model.FileInfo
		want string
	}{
		{"11.4: on the record", model.FileInfo{ChannelId: ch, Path: "20261207/teams/noteam/channels/" + model.NewId() + "/users/" + user + "/" + id + "/plan.pdf"}, ch},
		{"9.11: in the path", model.FileInfo{Path: "20261207/teams/noteam/channels/" + ch + "/users/" + user + "/" + id + "/plan.pdf"}, ch},
		{"a path naming no channel", model.FileInfo{Path: "20261207/teams/noteam/users/" + user + "/plan.pdf"}, ""},
		{"a name that is not an id", model.FileInfo{Path: "x/channels/town-square/plan.pdf"}, ""},
	}
	for _, c := range cases {
		if got := uploadChannel(&c.info); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
