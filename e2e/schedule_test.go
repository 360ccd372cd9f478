package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// The e2e server has no licence, and no licence can be made for it here:
// scheduling a post end to end cannot run. What runs is the gate: the
// plugin offers schedule_post exactly where Mattermost would take it.
func TestScheduledPostsAreNeitherListedNorCallableWhereMattermostRefusesThemForWantOfALicence(t *testing.T) {
	allowWrites(t, config.ConfirmClientApproval)
	alice := mm.Users[0]
	ctx := context.Background()
	at := model.GetMillis() + 3600_000
	_, resp, err := mm.Client(alice).CreateScheduledPost(ctx, &model.ScheduledPost{Draft: model.Draft{ChannelId: townSquare(t).Id, Message: "later"}, ScheduledAt: at})
	// 11.4 refuses for want of a licence; 9.11 has no scheduled posts at all.
	var appErr *model.AppError
	if !errors.As(err, &appErr) || appErr.Id != "api.scheduled_posts.license_error" && resp.StatusCode != 404 {
		t.Fatalf("Mattermost's own answer to a scheduled post without a licence: %v", err)
	}
	c := connect(t, mm.URL, alice.Token)
	names := toolNames(t, c)
	if slices.Contains(names, "schedule_post") || !slices.Contains(names, "create_post") {
		t.Fatalf("with writes on and no licence, tools/list: %v", names)
	}
	res, err := callErr(c, "schedule_post", map[string]any{"channel": townSquare(t).Id, "message": "later", "in_minutes": 60})
	if err == nil && !res.IsError {
		t.Fatalf("schedule_post was called: %s", text(res))
	}
	if err != nil && !strings.Contains(err.Error(), "not found") {
		t.Fatalf("schedule_post's call was refused for another reason: %v", err)
	}
}
