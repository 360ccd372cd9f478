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
		a := pagedArgs{Channel: "town-square", Cursor: cur}
		_, offset, err := openOffset("list_drafts", a, pagedArgs{Channel: "town-square"}, cur)
		if err == nil || !strings.Contains(err.Error(), "again without cursor") {
			t.Errorf("position %s: offset %d, %v; want a refusal naming the call that starts over", at, offset, err)
		}
	}
	cur, err := paging.Encode("list_drafts", key, strconv.Itoa(paging.MaxOffset))
	if err != nil {
		t.Fatal(err)
	}
	if _, offset, err := openOffset("list_drafts", pagedArgs{}, pagedArgs{Channel: "town-square"}, cur); err != nil || offset != paging.MaxOffset {
		t.Errorf("the largest position: %d, %v", offset, err)
	}
}
