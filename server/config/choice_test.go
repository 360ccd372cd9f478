package config

import (
	"slices"
	"strings"
	"testing"
)

func knownTool(name string) bool { return name == "read_file" || name == "create_post" }

func nearTool(string) []string { return []string{"read_file"} }

func TestAChoiceNamesToolsetsTheLightStartToolsAndReadOnlyAndRefusesUnknownNamesNamingTheValidOnes(t *testing.T) {
	for _, c := range []struct {
		toolsets, tools, readOnly string
		want                      Choice
		err                       string
	}{
		{want: Choice{}},
		{readOnly: "true", want: Choice{ReadOnly: true}},
		{toolsets: "channels,files", want: Choice{Chosen: true, Toolsets: ToolsetChannels | ToolsetFiles}},
		{toolsets: " Channels  files ", readOnly: "1", want: Choice{Chosen: true, Toolsets: ToolsetChannels | ToolsetFiles, ReadOnly: true}},
		{toolsets: "light", want: Choice{Chosen: true, Light: true}},
		{toolsets: "light,posting", tools: "read_file,read_file", want: Choice{Chosen: true, Light: true, Toolsets: ToolsetPosting, Tools: []string{"read_file"}}},
		{tools: "create_post", readOnly: "false", want: Choice{Chosen: true, Tools: []string{"create_post"}}},
		{toolsets: "chanels", err: "unknown toolset \"chanels\": the toolsets are channels, files, people, workspace, posting, channel_changes, status, own_view, light"},
		{tools: "read_fil", err: "unknown tool \"read_fil\": the nearest are read_file"},
		{readOnly: "yes", err: "read_only is \"yes\": send true or false"},
		{toolsets: strings.Repeat("files,", 200), err: "at most 1024"},
	} {
		got, err := ParseChoice(c.toolsets, c.tools, c.readOnly, knownTool, nearTool)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q %q %q: error %v, want one saying %q", c.toolsets, c.tools, c.readOnly, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q %q %q: %v", c.toolsets, c.tools, c.readOnly, err)
		case c.err == "" && (got.Chosen != c.want.Chosen || got.Toolsets != c.want.Toolsets || got.Light != c.want.Light ||
			got.ReadOnly != c.want.ReadOnly || !slices.Equal(got.Tools, c.want.Tools)):
			t.Errorf("%q %q %q: %+v, want %+v", c.toolsets, c.tools, c.readOnly, got, c.want)
		}
	}
}

func TestAChoicesQueryReadsBackAsTheSameChoice(t *testing.T) {
	ch := Choice{Chosen: true, Toolsets: ToolsetFiles | ToolsetStatus, Light: true, Tools: []string{"create_post"}, ReadOnly: true}
	if got := ch.Query(); got != "toolsets=files,status,light&tools=create_post&read_only=true" {
		t.Fatalf("query %q", got)
	}
}

// FuzzParseChoice: whatever a client sends, a choice is either refused or
// bounded: only known tools, at most MaxChosenTools of them.
func FuzzParseChoice(f *testing.F) {
	f.Add("channels,light", "read_file", "true")
	f.Add("", "create_post,read_file", "")
	f.Fuzz(func(t *testing.T, toolsets, tools, readOnly string) {
		ch, err := ParseChoice(toolsets, tools, readOnly, knownTool, nearTool)
		if err != nil {
			return
		}
		if len(ch.Tools) > MaxChosenTools || ch.Toolsets&^AllToolsets != 0 {
			t.Fatalf("unbounded choice %+v", ch)
		}
		for _, n := range ch.Tools {
			if !knownTool(n) {
				t.Fatalf("unknown tool %q chosen", n)
			}
		}
	})
}
