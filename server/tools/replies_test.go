package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

func TestTheFirstReplyIsTheEarliestNewPostOfTheThreadBySomeoneElse(t *testing.T) {
	const me, bob, carol = "meid", "bobid", "carolid"
	const since, until = int64(1_000_000), int64(2_000_000)
	root := &model.Post{Id: "root", ChannelId: "ch"}
	reply := &model.Post{Id: "mine", ChannelId: "ch", RootId: "root"}
	post := func(id, user, rootID string, at int64) *model.Post {
		return &model.Post{Id: id, ChannelId: "ch", UserId: user, RootId: rootID, CreateAt: at}
	}
	deleted := post("gone", bob, "root", since+1)
	deleted.DeleteAt = since + 2
	joined := post("join", bob, "", since+1)
	joined.Type = model.PostTypeJoinChannel
	elsewhere := post("away", bob, "root", since+1)
	elsewhere.ChannelId = "other"
	cases := []struct {
		name   string
		waited *model.Post
		direct bool
		posts  []*model.Post
		want   string
	}{
		{"nothing new", root, false, nil, ""},
		{"only the caller's own replies", root, false, []*model.Post{post("a", me, "root", since+1)}, ""},
		{"a reply by bob", root, false, []*model.Post{post("a", me, "root", since+1), post("b", bob, "root", since+2)}, "b"},
		{"the earliest of two, whatever the order given", root, false, []*model.Post{post("c", carol, "root", since+9), post("b", bob, "root", since+3)}, "b"},
		{"two at once: the smaller id", root, false, []*model.Post{post("z", carol, "root", since+3), post("y", bob, "root", since+3)}, "y"},
		{"a post made before the wait", root, false, []*model.Post{post("old", bob, "root", since-1)}, ""},
		{"a post made exactly at since", root, false, []*model.Post{post("now", bob, "root", since)}, "now"},
		{"a post made after the wait ended", root, false, []*model.Post{post("late", bob, "root", until+1)}, ""},
		{"a post made as the wait ends", root, false, []*model.Post{post("end", bob, "root", until)}, "end"},
		{"a post of another thread", root, false, []*model.Post{post("x", bob, "other", since+1), post("y", bob, "", since+1)}, ""},
		{"waiting on a reply: its thread's root counts", reply, false, []*model.Post{post("b", bob, "root", since+1)}, "b"},
		{"a deleted reply", root, false, []*model.Post{deleted}, ""},
		{"a system message", root, true, []*model.Post{joined}, ""},
		{"a post of another channel", root, false, []*model.Post{elsewhere}, ""},
		{"the waited post itself", root, true, []*model.Post{post("root", bob, "", since+1)}, ""},
		{"in a DM, a new post outside the thread", root, true, []*model.Post{post("dm", bob, "", since+1)}, "dm"},
		{"in a DM, a reply in another thread", root, true, []*model.Post{post("t", bob, "other", since+1)}, "t"},
		{"in a DM, the caller's own post", root, true, []*model.Post{post("m", me, "", since+1)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := firstReply(tc.posts, tc.waited, tc.direct, me, since, until)
			id := ""
			if got != nil {
				id = got.Id
			}
			if id != tc.want {
				t.Fatalf("first reply %q, want %q", id, tc.want)
			}
		})
	}
}

func TestAWaitIsReadFromItsArgumentsOrRefusedWithWhatToGive(t *testing.T) {
	started := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	const id = "post1id00000000000000000000"
	cases := []struct {
		name  string
		args  waitForReplyArgs
		want  transport.ReplyWait
		fails string
	}{
		{"a post id: two minutes from now", waitForReplyArgs{Post: " " + id + " "}, transport.ReplyWait{PostID: id, Since: started, Until: started.Add(2 * time.Minute)}, ""},
		{"a permalink", waitForReplyArgs{Post: "https://chat.example.com/eng/pl/" + id, Seconds: 30}, transport.ReplyWait{PostID: id, Since: started, Until: started.Add(30 * time.Second)}, ""},
		{"the longest wait", waitForReplyArgs{Post: id, Seconds: 600}, transport.ReplyWait{PostID: id, Since: started, Until: started.Add(10 * time.Minute)}, ""},
		{"a wait gone on with since", waitForReplyArgs{Post: id, Seconds: 100, Since: "2026-03-02T09:29:40.123Z"},
			transport.ReplyWait{PostID: id, Since: time.Date(2026, 3, 2, 9, 29, 40, 123_000_000, time.UTC), Until: started.Add(100 * time.Second)}, ""},
		{"no post", waitForReplyArgs{Post: "  "}, transport.ReplyWait{}, "Say which post"},
		{"too long a wait", waitForReplyArgs{Post: id, Seconds: 601}, transport.ReplyWait{}, "between 1 and 600"},
		{"a negative wait", waitForReplyArgs{Post: id, Seconds: -1}, transport.ReplyWait{}, "between 1 and 600"},
		{"since not a time", waitForReplyArgs{Post: id, Since: "yesterday"}, transport.ReplyWait{}, "is not a time"},
		{"since later than now", waitForReplyArgs{Post: id, Since: "2026-03-02T09:31:00Z"}, transport.ReplyWait{}, "later than now"},
		{"since too long ago", waitForReplyArgs{Post: id, Since: "2026-03-02T09:19:59Z"}, transport.ReplyWait{}, "read_thread(post=\"" + id + "\")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replyWaitOf(tc.args, started)
			if tc.fails != "" {
				r, ok := refusal.As(err)
				if !ok || !strings.Contains(r.Error(), tc.fails) {
					t.Fatalf("refusal %v, want one saying %q", err, tc.fails)
				}
				return
			}
			if err != nil || got.PostID != tc.want.PostID || !got.Since.Equal(tc.want.Since) || !got.Until.Equal(tc.want.Until) {
				t.Fatalf("wait %+v (%v), want %+v", got, err, tc.want)
			}
		})
	}
}

func FuzzAWaitReadFromAnyArgumentsStaysWithinItsBounds(f *testing.F) {
	f.Add("post1id00000000000000000000", 0, "")
	f.Add("https://x/t/pl/abc?x=1", 600, "2026-03-02T09:29:40.123Z")
	f.Add("/pl/", -5, "2026-03-02T09:30:00+01:00")
	started := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, post string, seconds int, since string) {
		w, err := replyWaitOf(waitForReplyArgs{Post: post, Seconds: seconds, Since: since}, started)
		if err != nil {
			if _, ok := refusal.As(err); !ok {
				t.Fatalf("an argument error that is not a refusal: %v", err)
			}
			return
		}
		if w.PostID == "" || w.Since.After(started) || started.Sub(w.Since) > maxSinceAge ||
			w.Until.Sub(started) < time.Second || w.Until.Sub(started) > maxReplyWait {
			t.Fatalf("a wait out of bounds: %+v", w)
		}
	})
}

func TestSecondsLeftRoundUpAndEndAtZero(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		until time.Time
		want  int
	}{
		{now, 0}, {now.Add(-time.Second), 0}, {now.Add(time.Millisecond), 1}, {now.Add(100 * time.Second), 100}, {now.Add(100*time.Second + 1), 101},
	} {
		if got := secondsLeft(tc.until, now); got != tc.want {
			t.Errorf("secondsLeft(%s) = %d, want %d", tc.until.Sub(now), got, tc.want)
		}
	}
}

func TestWaitForReplyAnswersTheReplyAsReadThreadShowsPostsOrNamesTheCallThatGoesOnWaiting(t *testing.T) {
	now := time.UnixMilli(readingNow).UTC()
	wait := transport.ReplyWait{PostID: "post1id00000000000000000000", Since: now.Add(-15 * time.Second), Until: now.Add(105 * time.Second)}
	reply := readingPost("post3id00000000000000000000", "~town-square", "@bob", "Yes, ship it.", 0)
	reply.RootID = "post1id00000000000000000000"
	reply.Attachments = []present.FileRef{{ID: "file1id00000000000000000000", Name: "plan.txt", Type: "text/plain", Size: 120}}
	res, err := repliedAnswer(wait, reply)
	readingGolden(t, "wait_for_reply_replied", res, err)
	res, err = noReplyAnswer(wait, now, 20*time.Second)
	readingGolden(t, "wait_for_reply_no_reply_yet", res, err)
	res, err = noReplyAnswer(wait, wait.Until, 20*time.Second)
	readingGolden(t, "wait_for_reply_no_reply", res, err)
}
