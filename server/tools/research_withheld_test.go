package tools

import (
	"context"
	"database/sql/driver"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
	"github.com/stretchr/testify/mock"

	"github.com/mcp-server/mattermost-plugin-mcp/server/budget"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paths"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// leftOutWhy is why a tool the admin left out is not offered, as
// catalogue.Why says it.
const leftOutWhy = `is not offered here, since the admin left this tool out (the setting "Tools to leave out")`

// researchServer is a double of Mattermost for search and fetch: alice is
// in one team and its open channel ~harbour-plans, where her post
// mentions the harbour. Every call not set up here fails the test, so a
// test that sets up nothing proves nothing was read.
type researchServer struct {
	api                    *plugintest.API
	alice, channel, postID string
	// fileSearches counts the database queries: a file search is one.
	fileSearches atomic.Int32
	db           *plugintest.Driver
}

func newResearchServer(t *testing.T) *researchServer {
	t.Helper()
	s := &researchServer{api: &plugintest.API{}, alice: model.NewId(), channel: model.NewId(), postID: model.NewId()}
	s.api.Test(t)
	return s
}

// readable sets up what a search reads.
func (s *researchServer) readable() {
	teamID := model.NewId()
	cfg := &model.Config{}
	cfg.SetDefaults()
	cfg.ServiceSettings.SiteURL = model.NewPointer(researchSite)
	// MySQL: the file search is one query, without PostgreSQL's plan
	// settings around it.
	cfg.SqlSettings.DriverName = model.NewPointer("mysql")
	team := &model.Team{Id: teamID, Name: "engineering", DisplayName: "Engineering", Type: model.TeamOpen}
	ch := &model.Channel{Id: s.channel, TeamId: teamID, Name: "harbour-plans", DisplayName: "Harbour plans", Type: model.ChannelTypeOpen, LastPostAt: readingNow}
	member := &model.ChannelMember{ChannelId: s.channel, UserId: s.alice, Roles: "channel_user", NotifyProps: model.GetDefaultChannelNotifyProps()}
	post := &model.Post{Id: s.postID, ChannelId: s.channel, UserId: s.alice, Message: "The harbour opens on the 14th.", CreateAt: readingNow}
	found := model.NewPostList()
	found.AddPost(post)
	found.AddOrder(post.Id)

	a := s.api
	a.On("GetConfig").Return(cfg).Maybe()
	a.On("GetUnsanitizedConfig").Return(cfg).Maybe()
	a.On("GetUser", s.alice).Return(&model.User{Id: s.alice, Username: "alice", Roles: model.SystemUserRoleId}, nil).Maybe()
	a.On("GetTeamsForUser", s.alice).Return([]*model.Team{team}, nil).Maybe()
	a.On("GetTeamMember", teamID, s.alice).Return(&model.TeamMember{TeamId: teamID, UserId: s.alice, Roles: "team_user"}, nil).Maybe()
	a.On("GetChannelsForTeamForUser", "", s.alice, false).Return([]*model.Channel{ch}, nil).Maybe()
	a.On("GetChannelMembersForUser", "", s.alice, mock.Anything, mock.Anything).Return([]*model.ChannelMember{member}, nil).Maybe()
	a.On("GetChannel", s.channel).Return(ch, nil).Maybe()
	a.On("GetChannelMember", s.channel, s.alice).Return(member, nil).Maybe()
	a.On("HasPermissionToChannel", s.alice, s.channel, mock.Anything).Return(true).Maybe()
	a.On("HasPermissionTo", s.alice, mock.Anything).Return(false).Maybe()
	a.On("HasPermissionToTeam", s.alice, teamID, mock.Anything).Return(true).Maybe()
	a.On("SearchPostsInTeamForUser", teamID, s.alice, mock.Anything).Return(model.MakePostSearchResults(found, nil), nil).Maybe()
	a.On("SearchChannels", teamID, mock.Anything).Return([]*model.Channel{}, nil).Maybe()

	// The file search finds nothing; what is counted is that it ran.
	s.db = &plugintest.Driver{}
	s.db.On("Conn", mock.Anything).Return("conn-1", nil).Maybe()
	s.db.On("ConnPing", "conn-1").Return(nil).Maybe()
	s.db.On("ConnClose", "conn-1").Return(nil).Maybe()
	s.db.On("ConnQuery", "conn-1", mock.Anything, mock.Anything).Return(func(string, string, []driver.NamedValue) (string, error) {
		s.fileSearches.Add(1)
		return "rows-1", nil
	}).Maybe()
	s.db.On("RowsNext", "rows-1", mock.Anything).Return(io.EOF).Maybe()
	s.db.On("RowsClose", "rows-1").Return(nil).Maybe()
}

// deps is alice's tools on s, with the tools in excluded left out by the
// admin, as the plugin asks its catalogue (catalogue.Why).
func (s *researchServer) deps(t *testing.T, excluded ...string) Deps {
	t.Helper()
	var db plugin.Driver
	if s.db != nil {
		db = s.db
	}
	d := Deps{MM: mattermost.NewGateway(s.api, db), Config: config.Defaults,
		Conversions: budget.New(config.Defaults().ConversionMemoryBytes()),
		callerOf:    func(context.Context) string { return s.alice }}
	cfg := config.Defaults()
	cfg.ExcludedTools = strings.Join(excluded, " ") // as the settings keep it
	var cat *catalogue.Catalogue
	d.Withheld = func(_ context.Context, tool string) string { return cat.Why(tool, cfg, config.Choice{}) }
	cat, err := catalogue.New(All(d))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestEveryKindOfResearchIDStandsForOneToolOfTheCatalogue(t *testing.T) {
	var kinds []string
	for _, k := range researchKinds {
		kinds = append(kinds, string(k))
		if k.tool() == "" {
			t.Errorf("kind %q stands for no tool in paths.Fetch", k)
		}
	}
	var keys []string
	for k := range paths.Fetch {
		keys = append(keys, k)
	}
	sort.Strings(kinds)
	sort.Strings(keys)
	if !slices.Equal(kinds, keys) {
		t.Errorf("paths.Fetch names kinds %v, fetch reads %v", keys, kinds)
	}
}

func TestFetchOfAKindWhoseToolIsLeftOutIsRefusedNamingTheToolAndNothingIsRead(t *testing.T) {
	id := model.NewId()
	for _, k := range researchKinds {
		t.Run(string(k), func(t *testing.T) {
			s := newResearchServer(t)
			_, err := s.deps(t, k.tool()).fetch(context.Background(), fetchArgs{ID: string(k) + ":" + id})
			r, ok := refusal.As(err)
			if !ok {
				t.Fatalf("fetch of a %s with %s left out: %v, want a refusal", k, k.tool(), err)
			}
			for _, want := range []string{string(k) + ":" + id + " was not fetched: fetching a " + string(k) + " reads what " + k.tool() + " reads, and " + k.tool() + " " + leftOutWhy + ".",
				"Fetch another of search's ids"} {
				if !strings.Contains(r.Error(), want) {
					t.Errorf("the refusal %q does not say %q", r.Error(), want)
				}
			}
			if len(s.api.Calls) != 0 {
				t.Errorf("fetch read Mattermost before refusing: %v", s.api.Calls)
			}
		})
	}
}

func TestFetchOfABareIDWhoseEveryKindIsLeftOutSaysNoneCanBeFetchedAndReadsNothing(t *testing.T) {
	s := newResearchServer(t)
	id := model.NewId()
	_, err := s.deps(t, "read_thread", "read_file", "read_channel").fetch(context.Background(), fetchArgs{ID: id})
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("fetch of a bare id with every kind left out: %v, want a refusal", err)
	}
	for _, want := range []string{id + " was not fetched: an id given bare may be a post, file or channel, and none of these can be fetched here: read_thread " + leftOutWhy,
		"; read_file " + leftOutWhy, "; read_channel " + leftOutWhy, "Tell the person"} {
		if !strings.Contains(r.Error(), want) {
			t.Errorf("the refusal %q does not say %q", r.Error(), want)
		}
	}
	if len(s.api.Calls) != 0 {
		t.Errorf("fetch read Mattermost before refusing: %v", s.api.Calls)
	}
}

func TestFetchOfABareIDLooksOnlyForTheKindsOfferedAndSaysWhichItDidNotLookFor(t *testing.T) {
	s := newResearchServer(t)
	id := model.NewId()
	// Only the channel is looked for: no thread or file of the id is read
	// (an unexpected call fails the test).
	s.api.On("GetTeamsForUser", s.alice).Return([]*model.Team{}, nil)
	s.api.On("GetChannel", id).Return(nil, model.NewAppError("GetChannel", "not_found", nil, "", http.StatusNotFound))
	_, err := s.deps(t, "read_thread", "read_file").fetch(context.Background(), fetchArgs{ID: id})
	r, ok := refusal.As(err)
	if !ok {
		t.Fatalf("fetch of a bare id of nothing: %v, want a refusal", err)
	}
	for _, want := range []string{`No channel "` + id + `" that you can read was found`,
		"It was not looked for as a post: read_thread " + leftOutWhy + ".", "It was not looked for as a file: read_file " + leftOutWhy + "."} {
		if !strings.Contains(r.Error(), want) {
			t.Errorf("the refusal %q does not say %q", r.Error(), want)
		}
	}
	s.api.AssertExpectations(t)
}

func TestSearchLeavesOutEachKindWhoseToolIsLeftOutAndSaysSoOnce(t *testing.T) {
	for _, c := range []struct {
		excluded []string
		ids      []string
		files    bool
		notes    []string
	}{
		{nil, []string{"post:", "channel:"}, true, nil},
		{[]string{"read_thread"}, []string{"channel:"}, true, []string{"Posts were not searched: read_thread " + leftOutWhy + "."}},
		{[]string{"read_file"}, []string{"post:", "channel:"}, false, []string{"Files were not searched: read_file " + leftOutWhy + "."}},
		{[]string{"read_channel"}, []string{"post:"}, true, []string{"Channels were not searched: read_channel " + leftOutWhy + "."}},
		{[]string{"read_thread", "read_file", "read_channel"}, nil, false, []string{"Posts were not searched", "Files were not searched", "Channels were not searched"}},
	} {
		t.Run(strings.Join(append([]string{"left out"}, c.excluded...), " "), func(t *testing.T) {
			s := newResearchServer(t)
			s.readable()
			res, err := s.deps(t, c.excluded...).search(context.Background(), searchArgs{Query: "harbour"})
			if err != nil {
				t.Fatal(err)
			}
			researchTextIsTheStructuredResult(t, res)
			var kinds []string
			for _, r := range res.Data.Results {
				kinds = append(kinds, r.ID[:strings.Index(r.ID, ":")+1])
			}
			if !slices.Equal(kinds, c.ids) {
				t.Errorf("found %v, want one of each of %v", res.Data.Results, c.ids)
			}
			if ran := s.fileSearches.Load() > 0; ran != c.files {
				t.Errorf("the file search ran: %v, want %v", ran, c.files)
			}
			// The note is the one place it is said: the text is the
			// structured result's JSON.
			for _, want := range c.notes {
				if n := strings.Count(res.Data.Note, want); n != 1 {
					t.Errorf("the note says %q %d times, want once: %s", want, n, res.Text)
				}
			}
			if len(c.notes) == 0 && (res.Data.Note != "" || strings.Contains(res.Text, "note")) {
				t.Errorf("with nothing left out the answer has a note: %s", res.Text)
			}
		})
	}
}
