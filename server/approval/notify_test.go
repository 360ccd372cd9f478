package approval

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
)

// fakeBot keeps the bot's direct messages by post id.
type fakeBot struct {
	mu    sync.Mutex
	posts map[string]*model.Post
	to    map[string]string
}

func newFakeBot() *fakeBot { return &fakeBot{posts: map[string]*model.Post{}, to: map[string]string{}} }

func (b *fakeBot) Tell(userID string, p *model.Post) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := fmt.Sprintf("dm%d", len(b.posts)+1)
	b.posts[id], b.to[id] = p, userID
	return id, nil
}

func (b *fakeBot) Edit(postID string, change func(*model.Post)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.posts[postID]
	if !ok {
		return mattermost.ErrNotFound
	}
	change(p)
	return nil
}

func (b *fakeBot) only(t *testing.T) (string, string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.posts) != 1 {
		t.Fatalf("%d direct messages, want 1", len(b.posts))
	}
	for id, p := range b.posts {
		return b.to[id], p.Message
	}
	return "", ""
}

func approvalsWithBot(t *testing.T, notify bool) (*routesFixture, *Approvals, *fakeBot) {
	f := newRoutes(t)
	a := testApprovals(f)
	bot := newFakeBot()
	a.opts.Bot = bot
	a.opts.Config = func() config.Configuration {
		c := allowWrites(config.ConfirmMattermost)
		c.NotifyByDM = notify
		return c
	}
	a.zone = func(*mattermost.Caller) *time.Location { return time.UTC }
	return f, a, bot
}

func dmPlan() posting.Plan {
	return posting.Plan{CallerID: "alice", Dest: posting.Destination{ChannelID: "c", Label: `~harbour "Harbour ops" (id 7ge5)`, Place: "Harbour ops, CEO Team"},
		Message: "**Harbour report** for @bob\n- opens at dawn\n```\ncode\n```\nline 5\nline 6",
		Notes:   []string{"@bob is notified."},
		Files:   []posting.Staged{{Kind: posting.KindWritten, Name: "report.csv", Content: "a,b"}}}
}

func TestAWriteWaitingInMattermostIsToldByDirectMessageAndItsAnswerEditsIt(t *testing.T) {
	f, a, bot := approvalsWithBot(t, true)
	rec, _ := f.store.Create("alice", "t", dmPlan(), nil)
	alice := (*mattermost.Gateway)(nil).As("alice")
	a.waitInMattermost(alice, rec)
	to, msg := bot.only(t)
	for _, want := range []string{"**An AI assistant asks to post a message as you.**", "\nPost in Harbour ops, CEO Team\n", "│ **Harbour report** for @bob", "- report.csv", "- @bob is notified.",
		"http://mm/plugins/mcp-server/confirm/" + rec.ID, rec.ExpiresAt().UTC().Format("15:04")} {
		if !strings.Contains(msg, want) {
			t.Errorf("the direct message lacks %q:\n%s", want, msg)
		}
	}
	if to != "alice" || strings.Contains(msg, "7ge5") || strings.Contains(msg, "line 6") {
		t.Errorf("to %s, message:\n%s", to, msg)
	}
	// The values are one code block the message's own fences cannot close.
	if !strings.Contains(msg, "\n````\nPost in") || !strings.Contains(msg, "- @bob is notified.\n````\n") {
		t.Errorf("the message is not fenced apart:\n%s", msg)
	}
	who := Answerer{mattermost.Session{ID: "web", UserID: "alice", CSRF: testCSRF}, testCSRF}
	if _, err := a.Answer(context.Background(), who, rec.ID, "accept"); err != nil {
		t.Fatal(err)
	}
	if _, msg := bot.only(t); !strings.Contains(msg, "Posted") || !strings.Contains(msg, "http://mm/team/pl/p1") || strings.Contains(msg, "confirm/") {
		t.Fatalf("after the accept the direct message reads:\n%s", msg)
	}
	if raw, _ := f.store.KV.Get(dmIndexKey); strings.Contains(string(raw), rec.ID) {
		t.Fatalf("the answered write is still listed for expiry: %s", raw)
	}
}

func TestADeclineEditsTheDirectMessageAndNothingIsSentWhenTheSettingIsOff(t *testing.T) {
	f, a, bot := approvalsWithBot(t, true)
	rec, _ := f.store.Create("alice", "t", dmPlan(), nil)
	a.waitInMattermost((*mattermost.Gateway)(nil).As("alice"), rec)
	who := Answerer{mattermost.Session{ID: "web", UserID: "alice", CSRF: testCSRF}, testCSRF}
	if _, err := a.Answer(context.Background(), who, rec.ID, "decline"); err != nil {
		t.Fatal(err)
	}
	if _, msg := bot.only(t); !strings.Contains(msg, "Declined") {
		t.Fatalf("after the decline the direct message reads:\n%s", msg)
	}

	f, a, bot = approvalsWithBot(t, false)
	rec, _ = f.store.Create("alice", "t", dmPlan(), nil)
	a.waitInMattermost((*mattermost.Gateway)(nil).As("alice"), rec)
	if len(bot.posts) != 0 || len(f.told) != 1 {
		t.Fatalf("with the setting off: %d direct messages, told %v", len(bot.posts), f.told)
	}
}

func TestAWriteThatExpiresUnansweredHasItsDirectMessageSaySo(t *testing.T) {
	f, a, bot := approvalsWithBot(t, true)
	rec, _ := f.store.Create("alice", "t", dmPlan(), nil)
	a.waitInMattermost((*mattermost.Gateway)(nil).As("alice"), rec)
	if n, err := a.ExpireDMs(rec.ExpiresAt().Add(time.Second)); err != nil || n != 0 {
		t.Fatalf("while the write is still kept: %d marked, %v", n, err)
	}
	// The KV store drops the record when it expires.
	if err := f.store.KV.Delete(key("alice", rec.ID)); err != nil {
		t.Fatal(err)
	}
	if n, err := a.ExpireDMs(rec.ExpiresAt().Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("after the expiry: %d marked, %v", n, err)
	}
	if _, msg := bot.only(t); !strings.Contains(msg, "Expired") || !strings.Contains(msg, "nothing was sent") {
		t.Fatalf("the expired write's direct message reads:\n%s", msg)
	}
	if n, _ := a.ExpireDMs(rec.ExpiresAt().Add(time.Minute)); n != 0 {
		t.Fatalf("an expired write was marked again")
	}
}
