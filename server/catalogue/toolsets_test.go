package catalogue_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue/cataloguetest"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
)

func inToolset(name string, effect catalogue.Effect, set config.Toolset) catalogue.Tool {
	t := tool(name, effect)
	t.Toolset = set
	return t
}

func getMe() catalogue.Tool { return inToolset(catalogue.AlwaysOffered, catalogue.ReadsOnly, 0) }

func TestEveryToolButGetMeBelongsToExactlyOneToolset(t *testing.T) {
	writingMe := getMe()
	writingMe.Effect, writingMe.Hints.ReadOnly = catalogue.ChangesOwnView, false
	for name, tools := range map[string][]catalogue.Tool{
		"a tool of no toolset":          {inToolset("read_thing", catalogue.ReadsOnly, 0)},
		"a tool of two toolsets":        {inToolset("read_thing", catalogue.ReadsOnly, config.ToolsetChannels|config.ToolsetFiles)},
		"a tool of a toolset not known": {inToolset("read_thing", catalogue.ReadsOnly, 1<<12)},
		"get_me in a toolset":           {inToolset(catalogue.AlwaysOffered, catalogue.ReadsOnly, config.ToolsetPeople)},
		"a get_me that writes":          {writingMe},
	} {
		if _, err := catalogue.New(tools); err == nil {
			t.Errorf("%s: the catalogue was accepted", name)
		}
	}
	if _, err := catalogue.New([]catalogue.Tool{getMe(), inToolset("read_thing", catalogue.ReadsOnly, config.ToolsetOwnView)}); err != nil {
		t.Fatalf("get_me without a toolset and a tool of one toolset: %v", err)
	}
}

func TestAToolWhoseToolsetIsOffIsNeitherListedNorCallableWhileGetMeAlwaysIs(t *testing.T) {
	cat, err := catalogue.New([]catalogue.Tool{getMe(),
		inToolset("read_thing", catalogue.ReadsOnly, config.ToolsetChannels),
		inToolset("file_thing", catalogue.ReadsOnly, config.ToolsetFiles)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Toolsets = config.ToolsetFiles
	cfg.ExcludedTools = "get_me file_thing"
	listed, callable := cataloguetest.Exposure(t, cat, cfg)
	if want := []string{"get_me"}; !slices.Equal(listed, want) || !slices.Equal(callable, want) {
		t.Fatalf("channels off, file_thing left out: listed %v callable %v, want only %v", listed, callable, want)
	}
	cfg.ExcludedTools = ""
	listed, callable = cataloguetest.Exposure(t, cat, cfg)
	if want := []string{"file_thing", "get_me"}; !slices.Equal(listed, want) || !slices.Equal(callable, want) {
		t.Fatalf("channels off: listed %v callable %v, want %v", listed, callable, want)
	}
}

func TestACallOfAToolNotOfferedIsAnsweredWithEveryReasonAndTheNextStep(t *testing.T) {
	post := inToolset("post_thing", catalogue.ChangesMattermost, config.ToolsetPosting)
	post.Needs = config.ScheduledPosts
	cat, err := catalogue.New([]catalogue.Tool{getMe(), post})
	if err != nil {
		t.Fatal(err)
	}
	on := config.Defaults()
	on.AllowWrites, on.Server = true, config.ScheduledPosts
	if why := cat.NotOffered("post_thing", on); why != "" {
		t.Fatalf("an offered tool is refused: %q", why)
	}
	if why := cat.NotOffered("no_such_tool", on); why != "" {
		t.Fatalf("an unknown tool is answered as if it were one: %q", why)
	}
	next := "a system admin can change this in System Console > Plugins > MCP Server. get_me tells what is offered."
	for _, c := range []struct {
		name   string
		change func(*config.Configuration)
		want   []string
	}{
		{"toolset off", func(c *config.Configuration) { c.Toolsets &^= config.ToolsetPosting },
			[]string{`post_thing is not offered on this Mattermost and was not run: the admin has turned off the toolset "Posting".`}},
		{"left out", func(c *config.Configuration) { c.ExcludedTools = "post_thing" },
			[]string{`the admin left this tool out (the setting "Tools to leave out").`}},
		{"writes off", func(c *config.Configuration) { c.AllowWrites = false },
			[]string{`the admin has turned writing off ("Allow tools that change Mattermost").`}},
		{"server lacks", func(c *config.Configuration) { c.Server = 0 },
			[]string{"this Mattermost server lacks what it needs (scheduled posts, which need a Mattermost licence and ServiceSettings.ScheduledPosts on)."}},
		{"all at once", func(c *config.Configuration) { *c = config.Defaults(); c.Toolsets = 0; c.ExcludedTools = "post_thing" },
			[]string{"lacks what it needs", "left this tool out", `turned off the toolset "Posting"`, "turned writing off"}},
	} {
		cfg := on
		c.change(&cfg)
		why := cat.NotOffered("post_thing", cfg)
		for _, w := range append(c.want, next) {
			if !strings.Contains(why, w) {
				t.Errorf("%s: %q does not say %q", c.name, why, w)
			}
		}
		if cat.NotOffered("get_me", cfg) != "" {
			t.Errorf("%s: get_me is refused", c.name)
		}
	}
}

func TestWhyAToolIsNotOfferedIsAClauseForAnotherToolsSentenceAndEmptyExactlyWhenItIsOffered(t *testing.T) {
	read := inToolset("read_thing", catalogue.ReadsOnly, config.ToolsetFiles)
	cat, err := catalogue.New([]catalogue.Tool{getMe(), read})
	if err != nil {
		t.Fatal(err)
	}
	on := config.Defaults()
	leftOut := on
	leftOut.ExcludedTools = "read_thing"
	filesOff := on
	filesOff.Toolsets &^= config.ToolsetFiles
	for _, c := range []struct {
		name string
		cfg  config.Configuration
		ch   config.Choice
		want string
	}{
		{"offered", on, config.Choice{}, ""},
		{"left out", leftOut, config.Choice{}, `the admin left this tool out (the setting "Tools to leave out")`},
		{"toolset off", filesOff, config.Choice{}, `the admin has turned off the toolset "Reading files"`},
		{"not loaded", on, config.Choice{Chosen: true, Toolsets: config.ToolsetChannels},
			`this connection has not loaded it (load_tools {"tools":["read_thing"]} loads it)`},
		{"loaded", on, config.Choice{Chosen: true, Toolsets: config.ToolsetFiles}, ""},
		{"both", leftOut, config.Choice{Chosen: true, Toolsets: config.ToolsetChannels},
			`the admin left this tool out (the setting "Tools to leave out"); this connection has not loaded it (load_tools {"tools":["read_thing"]} loads it)`},
	} {
		got := cat.Why("read_thing", c.cfg, c.ch)
		if got != c.want {
			t.Errorf("%s: Why = %q, want %q", c.name, got, c.want)
		}
		if (got == "") != catalogue.OfferedTo(read, c.cfg, c.ch) {
			t.Errorf("%s: Why %q disagrees with OfferedTo", c.name, got)
		}
	}
	if got := cat.Why("no_such_tool", leftOut, config.Choice{}); got != "" {
		t.Errorf("an unknown tool has a reason: %q", got)
	}
}

func TestOnlyGetMeCannotBeLeftOut(t *testing.T) {
	cat, err := catalogue.New([]catalogue.Tool{getMe(), inToolset("read_thing", catalogue.ReadsOnly, config.ToolsetChannels)})
	if err != nil {
		t.Fatal(err)
	}
	if got := cat.Excludable(); !slices.Equal(got, []string{"read_thing"}) {
		t.Fatalf("excludable %v, want [read_thing]", got)
	}
}
