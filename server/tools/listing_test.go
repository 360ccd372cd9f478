package tools

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/paging"
)

type pagedArgs struct {
	Channel string `json:"channel"`
	Cursor  string `json:"cursor,omitempty"`
}

func TestACursorOffsetNearTheIntegerMaximumIsRefusedWithTheCallThatStartsOver(t *testing.T) {
	key, err := paging.Key(pagedArgs{Channel: "town-square"})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{strconv.Itoa(paging.MaxOffset + 1), "9223372036854775807", "9223372036854775757", "-1", "x"} {
		cur, err := paging.Encode("list_drafts", key, at)
		if err != nil {
			t.Fatal(err)
		}
		_, offset, err := openPageOffset("list_drafts", listingArgs{Channel: "town-square", paged: paged{Cursor: cur}})
		if err == nil || !strings.Contains(err.Error(), "again without cursor") {
			t.Errorf("position %s: offset %d, %v; want a refusal naming the call that starts over", at, offset, err)
		}
	}
	cur, err := paging.Encode("list_drafts", key, strconv.Itoa(paging.MaxOffset))
	if err != nil {
		t.Fatal(err)
	}
	if _, offset, err := openPageOffset("list_drafts", listingArgs{Channel: "town-square", paged: paged{Cursor: cur}}); err != nil || offset != paging.MaxOffset {
		t.Errorf("the largest position: %d, %v", offset, err)
	}
}

type listingArgs struct {
	Channel string `json:"channel"`
	paged
}

func TestACursorContinuesOnlyTheListingWithTheArgumentsItCameWith(t *testing.T) {
	first, _, err := openPage("read_channel", listingArgs{Channel: "town-square"})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := first.next("42")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		tool    string
		channel string
		want    int // the offset read; -1 is a refusal
	}{
		{"the same tool and arguments", "read_channel", "town-square", 42},
		{"other arguments", "read_channel", "off-topic", -1},
		{"another tool", "list_threads", "town-square", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := listingArgs{Channel: tc.channel, paged: paged{Cursor: cur}}
			_, offset, err := openPageOffset(tc.tool, args)
			switch {
			case tc.want < 0 && (err == nil || !strings.Contains(err.Error(), "without cursor")):
				t.Errorf("offset %d, %v; want a refusal naming the call that starts over", offset, err)
			case tc.want >= 0 && (err != nil || offset != tc.want):
				t.Errorf("offset %d, %v; want %d", offset, err, tc.want)
			}
		})
	}
	// The fingerprint is of the arguments without their cursor, as it was
	// before the cursor was one embedded field: cursors already handed out
	// still continue.
	key, err := paging.Key(pagedArgs{Channel: "town-square"})
	if err != nil {
		t.Fatal(err)
	}
	if first.key != key {
		t.Errorf("key %s, want %s", first.key, key)
	}
}
