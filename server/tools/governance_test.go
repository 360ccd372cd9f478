package tools

import (
	"slices"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue/cataloguetest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

// toolsetOf is every tool's toolset as the admin's documentation names it,
// written out here rather than read from the tools, so the governance test
// checks the catalogue against it.
var toolsetOf = func() map[string]config.Toolset {
	m := map[string]config.Toolset{}
	for set, names := range map[config.Toolset][]string{
		config.ToolsetChannels: {"list_teams", "list_channels", "get_channel", "search_channels", "read_channel", "read_thread",
			"search_posts", "list_unreads", "read_unread", "list_mentions", "list_threads", "list_pinned_posts", "list_team_channels", "list_emoji",
			"wait_for_reply", "search", "fetch"},
		config.ToolsetFiles:     {"read_file", "get_file_info", "search_files"},
		config.ToolsetPeople:    {"get_user", "search_users", "get_channel_members"},
		config.ToolsetWorkspace: {"files_list", "files_read", "files_write", "files_delete", "files_presign", "request_upload", "request_file", "save_attachment"},
		config.ToolsetPosting: {"create_post", "update_post", "delete_post", "add_reaction", "remove_reaction", "dm", "group_message",
			"schedule_post", "pin_post", "unpin_post", "get_pending"},
		config.ToolsetChannelChanges: {"create_channel", "join_channel", "leave_channel", "add_channel_members"},
		config.ToolsetStatus:         {"get_status", "set_status"},
		config.ToolsetOwnView: {"list_drafts", "save_draft", "delete_draft", "list_saved", "save_post", "unsave_post",
			"follow_thread", "unfollow_thread", "mark_channel_read", "set_post_reminder"},
	} {
		for _, n := range names {
			m[n] = set
		}
	}
	return m
}()

func TestEveryToolIsInTheToolsetItsFamilyNamesAndOnlyGetMeIsInNone(t *testing.T) {
	for _, tool := range realCatalogue(t).All() {
		want, known := toolsetOf[tool.Name]
		if tool.Name == catalogue.AlwaysOffered {
			want, known = 0, true
		}
		if !known || tool.Toolset != want {
			t.Errorf("%s is in toolset %q, want %q (a new tool goes into its family's toolset here; the README's table follows with go test ./server/tools -run ReadmesToolTable -update)", tool.Name, tool.Toolset.Name(), want.Name())
		}
	}
}

// TestEveryCombinationOfSettingsListsAndLetsCallExactlyTheToolsItOffers
// walks all 256 sets of toolsets, writes on and off, no tool or one tool
// left out (a different one for each set of toolsets), and a server with
// and without what scheduled posts need. What is listed, what a call
// reaches and what the transport is told to refuse must all be the set
// computed here from the tools' effects and needs.
func TestEveryCombinationOfSettingsListsAndLetsCallExactlyTheToolsItOffers(t *testing.T) {
	cat := realCatalogue(t)
	all := cat.All()
	exposer := cataloguetest.NewExposer(cat)
	checked := 0
	for mask := range config.Toolset(config.AllToolsets + 1) {
		for _, writes := range []bool{false, true} {
			for _, excluded := range []string{"", all[int(mask)%len(all)].Name} {
				for _, server := range []config.Feature{0, config.ScheduledPosts} {
					cfg := config.Defaults()
					cfg.Toolsets, cfg.AllowWrites, cfg.ExcludedTools, cfg.Server = mask, writes, excluded, server
					var want []string
					for _, tool := range all {
						writesSomething := tool.Effect == catalogue.ChangesMattermost || tool.Effect == catalogue.ChangesOwnView
						offered := tool.Name == "get_me" ||
							(mask&toolsetOf[tool.Name] != 0 && tool.Name != excluded && (writes || !writesSomething) && server&tool.Needs == tool.Needs)
						if offered {
							want = append(want, tool.Name)
						}
						if refused := cat.NotOffered(tool.Name, cfg) != ""; refused == offered {
							t.Fatalf("toolsets %08b, writes %v, left out %q, server %d: the transport would refuse %s: %v, want %v",
								mask, writes, excluded, server, tool.Name, refused, !offered)
						}
						if !writes && writesSomething && offered {
							t.Fatalf("%s writes and is offered with writes off", tool.Name)
						}
					}
					listed, callable := exposer.Exposure(t, cfg)
					if !slices.Equal(listed, want) || !slices.Equal(callable, want) {
						t.Fatalf("toolsets %08b, writes %v, left out %q, server %d:\nlisted   %v\ncallable %v\nwant     %v",
							mask, writes, excluded, server, listed, callable, want)
					}
					checked++
				}
			}
		}
	}
	if checked != 256*2*2*2 {
		t.Fatalf("%d combinations checked", checked)
	}
}

// TestEveryConnectionsChoiceListsAndLetsCallOnlyWhatItLoadedWithinTheAdmins
// walks a connection's own choice inside every admin setting: all 256 sets
// of toolsets the admin leaves on, writes on and off, and for each a
// connection that chose a different set of toolsets, the light start or
// not, one tool by name or not, read-only or not. A tool is offered only
// when the admin offers it and the connection loaded it (its toolset, the
// light start, or by name), never a tool that writes to a read-only
// connection; find_tools and load_tools only to a connection that chose.
func TestEveryConnectionsChoiceListsAndLetsCallOnlyWhatItLoadedWithinTheAdmins(t *testing.T) {
	cat := realCatalogue(t)
	all := cat.All()
	exposer := cataloguetest.NewExposer(cat)
	light := 0
	for _, tool := range all {
		if tool.Light {
			light++
		}
	}
	if light == 0 {
		t.Fatal("no tool is in the light start: this test checks less than it says")
	}
	checked := 0
	for mask := range config.Toolset(config.AllToolsets + 1) {
		for _, writes := range []bool{false, true} {
			for _, readOnly := range []bool{false, true} {
				cfg := config.Defaults()
				cfg.Toolsets, cfg.AllowWrites, cfg.Server = mask, writes, config.ScheduledPosts
				// A choice that differs from the admin's: the mask turned
				// around, so a connection asks for toolsets the admin
				// turned off and leaves out ones it allows.
				chosen := config.Toolset((uint16(mask)*167 + 89) % uint16(config.AllToolsets+1))
				named := all[int(mask)%len(all)].Name
				ch := config.Choice{Chosen: mask%5 != 0, Toolsets: chosen, Light: mask%2 == 0, ReadOnly: readOnly}
				if mask%3 == 0 {
					ch.Tools = []string{named}
				}
				if !ch.Chosen { // a connection that named nothing but read_only
					ch = config.Choice{ReadOnly: readOnly}
				}
				var want []string
				for _, tool := range append(all, cat.Loaders()...) {
					writesSomething := tool.Effect == catalogue.ChangesMattermost || tool.Effect == catalogue.ChangesOwnView
					admin := mask&toolsetOf[tool.Name] != 0 && (writes || !writesSomething)
					loaded := !ch.Chosen || chosen&toolsetOf[tool.Name] != 0 || (ch.Light && tool.Light) || slices.Contains(ch.Tools, tool.Name)
					offered := tool.Name == "get_me" ||
						(tool.Name == catalogue.FindTools || tool.Name == catalogue.LoadTools) && ch.Chosen ||
						admin && loaded && !(readOnly && writesSomething)
					if offered {
						want = append(want, tool.Name)
					}
					if refused := cat.NotOfferedTo(tool.Name, cfg, ch) != ""; refused == offered {
						t.Fatalf("admin toolsets %08b, writes %v, connection %+v: the transport would refuse %s: %v, want %v",
							mask, writes, ch, tool.Name, refused, !offered)
					}
				}
				listed, callable := exposer.ExposureTo(t, cfg, ch)
				slices.Sort(want)
				slices.Sort(callable)
				if !slices.Equal(listed, want) || !slices.Equal(callable, want) {
					t.Fatalf("admin toolsets %08b, writes %v, connection %+v:\nlisted   %v\ncallable %v\nwant     %v",
						mask, writes, ch, listed, callable, want)
				}
				checked++
			}
		}
	}
	if checked != 256*2*2 {
		t.Fatalf("%d combinations checked", checked)
	}
}
