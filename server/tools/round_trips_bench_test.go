package tools

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

const (
	// roundTripsDoc holds the table of round trips per tool that the e2e
	// test writes from a real Mattermost, between the two marks.
	roundTripsDoc   = "../../docs/performance.md"
	roundTripsBegin = "<!-- round trips per tool"
	roundTripsEnd   = "<!-- end of round trips per tool -->"
	// warmCalls is how many calls after the first are each held to the
	// table: the double has no background work, so every one must match.
	warmCalls = 3
	// postsInChannel is the double's channel: a root, bob's reply to it
	// and a post of bob's own.
	postsInChannel = 3
)

// warmNode is one node of the plugin over a double of Mattermost 11.4,
// every plugin API and driver call counted: alice is in one team and one
// open channel of it with bob, who replied to her post there.
type warmNode struct {
	d       Deps
	counts  *mattermost.Counts
	channel string
	// rows is each open result of the driver, by id, and whether its one
	// row was read.
	mu   sync.Mutex
	rows map[string]bool
}

func newWarmNode(tb testing.TB) *warmNode {
	tb.Helper()
	alice, bob, teamID, chID := model.NewId(), model.NewId(), model.NewId(), model.NewId()
	root, reply, other := model.NewId(), model.NewId(), model.NewId()
	n := &warmNode{channel: chID, rows: map[string]bool{}}

	cfg := &model.Config{}
	cfg.SetDefaults()
	cfg.ServiceSettings.SiteURL = model.NewPointer("https://chat.example.com")
	cfg.ServiceSettings.PostPriority = model.NewPointer(true)
	cfg.SqlSettings.DriverName = model.NewPointer(model.DatabaseDriverPostgres)

	team := &model.Team{Id: teamID, Name: "town", DisplayName: "Town", Type: model.TeamOpen}
	ch := &model.Channel{Id: chID, TeamId: teamID, Name: "plans", DisplayName: "Plans", Type: model.ChannelTypeOpen, LastPostAt: 3000, TotalMsgCount: postsInChannel}
	// Alice has not read bob's last post, as in the e2e test's channel.
	member := &model.ChannelMember{ChannelId: chID, UserId: alice, Roles: "channel_user", MsgCount: postsInChannel - 1, LastViewedAt: 2500, NotifyProps: model.GetDefaultChannelNotifyProps()}
	// Newest first, as Mattermost lists a channel's posts.
	posts := model.NewPostList()
	for _, p := range []*model.Post{
		{Id: other, ChannelId: chID, UserId: bob, Message: "and a word of my own", CreateAt: 3000, UpdateAt: 3000},
		{Id: reply, ChannelId: chID, UserId: bob, RootId: root, Message: "a reply to the itinerary", CreateAt: 2000, UpdateAt: 2000},
		{Id: root, ChannelId: chID, UserId: alice, Message: "the itinerary plan", CreateAt: 1000, UpdateAt: 1000},
	} {
		posts.AddPost(p)
		posts.AddOrder(p.Id)
	}

	api := &plugintest.API{}
	api.On("GetConfig").Return(cfg).Maybe()
	api.On("GetUnsanitizedConfig").Return(cfg).Maybe()
	api.On("GetUser", alice).Return(&model.User{Id: alice, Username: "alice", FirstName: "Alice", Email: "alice@example.com", Roles: model.SystemUserRoleId}, nil).Maybe()
	api.On("GetUsersByIds", mock.Anything).Return([]*model.User{{Id: alice, Username: "alice", FirstName: "Alice"}, {Id: bob, Username: "bob", FirstName: "Bob"}}, nil).Maybe()
	api.On("GetTeamsForUser", alice).Return([]*model.Team{team}, nil).Maybe()
	api.On("GetTeamMember", teamID, alice).Return(&model.TeamMember{TeamId: teamID, UserId: alice, Roles: "team_user"}, nil).Maybe()
	api.On("GetChannelsForTeamForUser", "", alice, false).Return([]*model.Channel{ch}, nil).Maybe()
	api.On("GetChannelMembersForUser", "", alice, mock.Anything, mock.Anything).Return([]*model.ChannelMember{member}, nil).Maybe()
	api.On("GetChannel", chID).Return(ch, nil).Maybe()
	api.On("GetChannelMember", chID, alice).Return(member, nil).Maybe()
	api.On("HasPermissionToChannel", alice, chID, mock.Anything).Return(true).Maybe()
	// A member, as Mattermost's default roles make one: who may view
	// members, and nothing of the system's.
	api.On("HasPermissionTo", alice, model.PermissionViewMembers).Return(true).Maybe()
	api.On("HasPermissionTo", alice, mock.Anything).Return(false).Maybe()
	api.On("GetPostsForChannel", chID, mock.Anything, mock.Anything).Return(posts, nil).Maybe()

	// The one query read_channel makes reads the roots' priorities,
	// acknowledgements and threads: none but the thread of alice's post,
	// aggregated into one row of one JSON array, as PostgreSQL answers it.
	db := &plugintest.Driver{}
	db.On("Conn", mock.Anything).Return("conn-1", nil).Maybe()
	db.On("ConnPing", "conn-1").Return(nil).Maybe()
	db.On("ConnQuery", "conn-1", mock.Anything, mock.Anything).Return(func(string, string, []driver.NamedValue) (string, error) {
		id := model.NewId()
		n.mu.Lock()
		n.rows[id] = false
		n.mu.Unlock()
		return id, nil
	}).Maybe()
	db.On("RowsNext", mock.Anything, mock.Anything).Return(func(id string, dest []driver.Value) error {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.rows[id] {
			return io.EOF
		}
		n.rows[id] = true
		row := []driver.Value{[]byte(`[[2, "` + root + `", null, null, null, "", 2000, 1]]`)}
		if len(dest) != len(row) {
			return fmt.Errorf("the double answers rows of %d columns, read into %d", len(row), len(dest))
		}
		copy(dest, row)
		return nil
	}).Maybe()
	db.On("RowsClose", mock.Anything).Return(func(id string) error {
		n.mu.Lock()
		delete(n.rows, id)
		n.mu.Unlock()
		return nil
	}).Maybe()

	counted, countedDB, counts := mattermost.Counted(api, db)
	n.counts = counts
	n.d = Deps{
		MM:          mattermost.NewGateway(counted, countedDB),
		Config:      config.Defaults,
		Conversions: budget.New(config.Defaults().ConversionMemoryBytes()),
		callerOf:    func(context.Context) string { return alice },
	}
	return n
}

// warmRead is a read tool called as a client calls it, with the arguments
// of its row in the e2e test of round trips.
type warmRead struct {
	tool string
	call func(ctx context.Context, n *warmNode) error
}

func warmReads() []warmRead {
	return []warmRead{
		{"get_me", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.getMe(ctx, getMeArgs{})
			return err
		}},
		{"list_teams", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.listTeams(ctx, listTeamsArgs{})
			return err
		}},
		{"list_channels", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.listChannels(ctx, listChannelsArgs{})
			return err
		}},
		{"get_channel", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.getChannel(ctx, getChannelArgs{Channel: n.channel})
			return err
		}},
		{"read_channel", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.readChannel(ctx, readChannelArgs{Channel: n.channel})
			return err
		}},
		{"read_unread", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.readUnread(ctx, readUnreadArgs{Channel: n.channel})
			return err
		}},
		{"list_unreads", func(ctx context.Context, n *warmNode) error {
			_, err := n.d.listUnreads(ctx, listUnreadsArgs{})
			return err
		}},
	}
}

// tableRows is the rows of the round trip table in docs/performance.md,
// by tool, as written.
func tableRows(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(roundTripsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), roundTripsBegin)
	kept, _, ok2 := strings.Cut(rest, roundTripsEnd)
	if !ok || !ok2 {
		t.Fatalf("%s lacks the marks of the round trip table (%q ... %q)", roundTripsDoc, roundTripsBegin, roundTripsEnd)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(kept, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(line)
	}
	return rows
}

// The double of Mattermost answers as the real one does, so a warm read
// costs it what the e2e test measured on Mattermost 11.4: the whole row,
// driver round trips included. A tool that comes to make one call more
// (or fewer) fails here, before the e2e run; a row rewritten from the real
// server that this double no longer matches fails here too.
func TestAWarmReadMakesTheRoundTripsOfItsRowInPerformanceMd(t *testing.T) {
	rows := tableRows(t)
	for _, r := range warmReads() {
		t.Run(r.tool, func(t *testing.T) {
			want, listed := rows[r.tool]
			if !listed {
				t.Fatalf("%s has no row in %s: run the e2e test with -update-round-trips", r.tool, roundTripsDoc)
			}
			n := newWarmNode(t)
			ctx := context.Background()
			if err := r.call(ctx, n); err != nil {
				t.Fatalf("the first call of %s: %v", r.tool, err)
			}
			for i := range warmCalls {
				before := n.counts.Snapshot()
				if err := r.call(ctx, n); err != nil {
					t.Fatalf("warm call %d of %s: %v", i+1, r.tool, err)
				}
				if got := mattermost.TripsBetween(before, n.counts.Snapshot()).Row(r.tool); got != want {
					t.Errorf("warm call %d of %s costs\n%s\nwhere %s says\n%s\n(a call more is a cost to cut; fewer, rewrite the table: go test ./e2e -run TestNoToolMakesMoreRoundTripsThanItsRowInPerformanceMd -update-round-trips)",
						i+1, r.tool, got, roundTripsDoc, want)
				}
			}
		})
	}
}

// BenchmarkTheRoundTripsOfAReadOnAWarmNode is what one call of a read tool
// costs on a node that already served it once, over the counted double of
// Mattermost: the plugin API round trips (driver ones included), KV reads
// and writes and database queries it makes, and its allocations. Its time
// is mostly the double's (testify matches every call's arguments): read
// the counts, not ns/op.
func BenchmarkTheRoundTripsOfAReadOnAWarmNode(b *testing.B) {
	for _, r := range warmReads() {
		b.Run(r.tool, func(b *testing.B) {
			n := newWarmNode(b)
			ctx := context.Background()
			if err := r.call(ctx, n); err != nil {
				b.Fatalf("the first call of %s: %v", r.tool, err)
			}
			before := n.counts.Snapshot()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := r.call(ctx, n); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			got := mattermost.TripsBetween(before, n.counts.Snapshot())
			per := func(v int64) float64 { return float64(v) / float64(b.N) }
			b.ReportMetric(per(got.All), "round-trips/op")
			b.ReportMetric(per(got.KVReads), "kv-reads/op")
			b.ReportMetric(per(got.KVWrites), "kv-writes/op")
			b.ReportMetric(per(got.Queries), "queries/op")
		})
	}
}
