package tools

import (
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
)

// writerKnowing is a post writer whose page context is already read, for
// the formatting alone.
func writerKnowing(people map[string]*model.User, ctx pageContext) *postWriter {
	return &postWriter{authors: people, teams: map[string]string{}, chans: map[string]string{}, ctx: ctx}
}

func TestReactionsNameTheFirstPeoplePerEmojiAndCountTheOthersAndTheEmojiPastTheCap(t *testing.T) {
	ann, bob, hidden := model.NewId(), model.NewId(), model.NewId()
	people := map[string]*model.User{ann: {Id: ann, Username: "ann", FirstName: "Ann", LastName: "Lee"}, bob: {Id: bob, Username: "bob"}}
	groups := []mattermost.ReactionGroup{{Emoji: "+1", Count: 17, UserIDs: []string{ann, hidden, bob}}}
	for i := range maxEmojiShown + 2 {
		groups = append(groups, mattermost.ReactionGroup{Emoji: "e" + string(rune('a'+i)), Count: 2, UserIDs: []string{bob, ann}})
	}
	p := &model.Post{Id: model.NewId()}
	w := writerKnowing(people, pageContext{reactions: map[string][]mattermost.ReactionGroup{p.Id: groups}})
	v := w.contextOf(p)
	if len(v.Reactions) != maxEmojiShown || v.MoreEmoji != 3 || v.MoreReactions != 6 {
		t.Fatalf("%d emoji listed, %d more with %d reactions; want %d, 3, 6", len(v.Reactions), v.MoreEmoji, v.MoreReactions, maxEmojiShown)
	}
	first := v.Reactions[0]
	// Someone the caller may not see is counted, never named.
	if first.Count != 17 || strings.Join(first.Users, ",") != "@ann (Ann Lee),@bob" || first.Others != 15 {
		t.Errorf("first reaction %+v", first)
	}
	var b strings.Builder
	contextLines(&b, v)
	if !strings.Contains(b.String(), "  reactions: :+1: 17 (@ann (Ann Lee), @bob and 15 others); :ea: 2 (@bob, @ann (Ann Lee));") ||
		!strings.Contains(b.String(), "; and 3 more emoji (6 reactions)\n") {
		t.Errorf("reactions line:\n%s", b.String())
	}
}

func TestAReactionOfOnlyPeopleTheCallerCannotSeeIsCountedWithoutNames(t *testing.T) {
	var b strings.Builder
	contextLines(&b, PostContext{Reactions: []ReactionView{{Emoji: "tada", Count: 2, Users: []string{}, Others: 2}, {Emoji: "eyes", Count: 2, Users: []string{"@bob"}, Others: 1}}})
	if b.String() != "  reactions: :tada: 2 (2 people); :eyes: 2 (@bob and 1 other)\n" {
		t.Errorf("got %q", b.String())
	}
}

func TestTheHeaderSaysTheRepliesWithTheLatestTheEditAndThePin(t *testing.T) {
	v := PostView{ID: "r1", ReplyCount: 3, PostContext: PostContext{LastReplyAt: "2026-01-02T10:00:00Z", EditedAt: "2026-01-01T09:00:00Z", Pinned: true}}
	want := `, 3 replies (latest 2026-01-02T10:00:00Z): read_thread(post="r1"), edited 2026-01-01T09:00:00Z, pinned`
	if got := contextHeader(v); got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	// A reply carries its thread's count, which is said of the root only.
	if got := contextHeader(PostView{ID: "x", RootID: "r1", ReplyCount: 3}); got != "" {
		t.Errorf("a reply's header %q", got)
	}
}

func TestAThreadsCountAndLatestReplyComeFromMattermostsThreadWhereItKeepsOne(t *testing.T) {
	root := &model.Post{Id: model.NewId()}
	w := writerKnowing(nil, pageContext{threads: map[string]mattermost.Thread{root.Id: {ReplyCount: 4, LastReplyAt: 1767261600000}}})
	if n := w.replyCount(root); n != 4 {
		t.Errorf("reply count %d, want the thread's 4", n)
	}
	if v := w.contextOf(root); v.LastReplyAt != "2026-01-01T10:00:00Z" {
		t.Errorf("latest reply %q", v.LastReplyAt)
	}
	other := &model.Post{Id: model.NewId(), ReplyCount: 2}
	if n := w.replyCount(other); n != 2 {
		t.Errorf("a post without a thread keeps its own count: %d", n)
	}
}

func TestPermalinksOfThisSiteAreFoundOnceEachInOrderAndOthersAreNot(t *testing.T) {
	a, b, c, d := model.NewId(), model.NewId(), model.NewId(), model.NewId()
	site := "https://chat.example.com"
	msg := "see " + site + "/eng/pl/" + a + " and [this](" + site + "/_redirect/pl/" + b + ") again " + site + "/eng/pl/" + a +
		" not https://evil.example/eng/pl/" + c + " nor " + site + "/eng/pl/" + d + "x and self " + site + "/eng/pl/" + "self0000000000000000000000"
	got := permalinkIDs(msg, site, "self0000000000000000000000", 10)
	if strings.Join(got, ",") != a+","+b {
		t.Errorf("permalinks %v, want %s and %s", got, a, b)
	}
	if got := permalinkIDs(msg, site, "", 1); len(got) != 1 || got[0] != a {
		t.Errorf("with a cap of one: %v", got)
	}
	if got := permalinkIDs(msg, "", "", 10); got != nil {
		t.Errorf("without a site URL: %v", got)
	}
}

func TestAQuotedPostIsCutToItsFirstLinesAndCharacters(t *testing.T) {
	if got, cut := present.FirstLines("a\nb\nc\nd", 3, 100); got != "a\nb\nc" || !cut {
		t.Errorf("lines: %q %v", got, cut)
	}
	if got, cut := present.FirstLines(strings.Repeat("é", 10), 3, 4); got != "éééé" || !cut {
		t.Errorf("characters: %q %v", got, cut)
	}
	if got, cut := present.FirstLines("short", 3, 100); got != "short" || cut {
		t.Errorf("short: %q %v", got, cut)
	}
}

func TestAQuoteShowsWhatItHidesAndSaysWhatWasLeftOut(t *testing.T) {
	var b strings.Builder
	contextLines(&b, PostContext{Quoted: []QuotedPost{{ID: "q1", Author: "@bob", ChannelName: "~town", Time: "T",
		Message: "line⟨U+200B⟩", MessageCut: true, Hidden: "The quoted post carries 1 character", Files: []string{"a.pdf", "b.png"}, MoreFiles: 2}}})
	for _, want := range []string{"  quotes post q1 by @bob in ~town at T:\n", "    > line⟨U+200B⟩\n", "    > [The quoted post carries 1 character]\n",
		`    > [first lines only: read_thread(post="q1") reads it whole]`, `    > files: "a.pdf", "b.png" and 2 more`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRepliesTakesCollapsedOrInlineAndRefusesAnythingElseWithTheAllowedValues(t *testing.T) {
	for arg, want := range map[string]bool{"collapsed": true, "inline": false} {
		got, chosen, err := repliesMode(nil, arg)
		if err != nil || got != want || !chosen {
			t.Errorf("replies=%q: collapsed %v chosen %v %v", arg, got, chosen, err)
		}
	}
	if _, _, err := repliesMode(nil, "flat"); err == nil || !strings.Contains(err.Error(), `replies="inline"`) {
		t.Errorf("replies=flat: %v", err)
	}
}

func TestACollapsedPageIsCompleteOnlyWhenNoRootFollowsBeforeTheEnd(t *testing.T) {
	reply := &model.Post{Id: "r", RootId: "x", CreateAt: 50}
	root := &model.Post{Id: "p", CreateAt: 40}
	old := &model.Post{Id: "o", CreateAt: 5}
	cases := []struct {
		name      string
		rest      []*model.Post
		since     int64
		collapsed bool
		last      bool
		want      bool
	}{
		{"only replies, then the end of the channel", []*model.Post{reply, reply}, 0, true, true, true},
		{"only replies, more batches to read", []*model.Post{reply}, 0, true, false, false},
		{"a root after replies", []*model.Post{reply, root}, 0, true, true, false},
		{"replies, then past since", []*model.Post{reply, old}, 10, true, false, true},
		{"inline, a reply follows", []*model.Post{reply}, 0, false, true, false},
		{"nothing follows, the end", nil, 0, false, true, true},
	}
	for _, c := range cases {
		if got := nothingFollows(c.rest, c.since, c.collapsed, c.last); got != c.want {
			t.Errorf("%s: complete %v, want %v", c.name, got, c.want)
		}
	}
}

func TestANoteSaysWhatACollapsedListingLeftOutAndHowToReadIt(t *testing.T) {
	var b strings.Builder
	collapsedNote(&b, true, false, 4)
	if !strings.Contains(b.String(), "collapsed reply threads") || !strings.Contains(b.String(), "4 replies among them are left out") ||
		!strings.Contains(b.String(), `replies="inline"`) {
		t.Errorf("note %q", b.String())
	}
	b.Reset()
	collapsedNote(&b, false, true, 0)
	if b.String() != "" {
		t.Errorf("an inline listing has a note: %q", b.String())
	}
}
