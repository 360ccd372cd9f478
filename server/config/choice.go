package config

import (
	"fmt"
	"slices"
	"strings"
)

// Choice is what one MCP connection loads, always inside what the admin
// allows: named at initialize in the MCP URL's query or headers, kept in the
// session's record, widened by load_tools; a client without a session sends
// it with every request. The zero Choice named nothing: it loads everything
// the admin allows, as every client did before there was a choice.
type Choice struct {
	// Chosen is whether the connection named what it loads (toolsets, the
	// light start or tools); then it loads only those, and the tools that
	// find and load the rest.
	Chosen   bool    `json:"chosen,omitempty"`
	Toolsets Toolset `json:"toolsets,omitempty"`
	// Light loads the everyday reading core (the tools marked Light).
	Light bool `json:"light,omitempty"`
	// Tools are single tools loaded by name, at most MaxChosenTools.
	Tools []string `json:"tools,omitempty"`
	// ReadOnly offers no tool that writes, whatever is loaded.
	ReadOnly bool `json:"read_only,omitempty"`
}

const (
	// PresetLight is the toolset name that starts light: the reading core
	// plus find_tools and load_tools.
	PresetLight = "light"
	// MaxChosenTools bounds the single tools a connection loads by name,
	// and with them its session record (a name is under 24 bytes): past it,
	// load their toolset instead.
	MaxChosenTools = 32
	// maxChoiceBytes bounds each raw value of a choice (a query parameter or
	// a header): every toolset and MaxChosenTools names fit in it.
	maxChoiceBytes = 1 << 10
)

// Loads reports whether the choice loads toolset t (not whether the admin
// allows it).
func (ch Choice) Loads(t Toolset) bool { return !ch.Chosen || ch.Toolsets&t == t }

// ToolsetNames is every toolset's short name and the light preset, as the
// MCP URL's toolsets parameter takes them.
func ToolsetNames() []string {
	out := make([]string, 0, len(toolsetSettings)+1)
	for _, s := range toolsetSettings {
		out = append(out, s.name)
	}
	return append(out, PresetLight)
}

// ToolsetNamed is the toolset whose short name is name.
func ToolsetNamed(name string) (Toolset, bool) {
	for _, s := range toolsetSettings {
		if s.name == name {
			return s.set, true
		}
	}
	return 0, false
}

// ParseChoice reads a connection's choice from the raw values a client sent
// (the query parameters toolsets, tools and read_only, or their headers).
// known says whether a tool of that name exists and near names the nearest
// ones for a name that does not; config does not know the catalogue. An
// unknown name is an error naming the valid ones, so the client fixes its
// URL rather than silently loading less.
func ParseChoice(toolsets, tools, readOnly string, known func(string) bool, near func(string) []string) (Choice, error) {
	var ch Choice
	for _, raw := range []string{toolsets, tools, readOnly} {
		if len(raw) > maxChoiceBytes {
			return ch, fmt.Errorf("a toolsets, tools or read_only value of %d bytes; at most %d", len(raw), maxChoiceBytes)
		}
	}
	for _, name := range splitNames(toolsets) {
		if name == PresetLight {
			ch.Light, ch.Chosen = true, true
			continue
		}
		set, ok := ToolsetNamed(name)
		if !ok {
			return ch, fmt.Errorf("unknown toolset %.40q: the toolsets are %s (in the MCP URL as ?toolsets=channels,files or the header X-MCP-Toolsets)",
				name, strings.Join(ToolsetNames(), ", "))
		}
		ch.Toolsets |= set
		ch.Chosen = true
	}
	for _, name := range splitNames(tools) {
		if !known(name) {
			hint := "find_tools finds a tool by what it does"
			if n := near(name); len(n) > 0 {
				hint = "the nearest are " + strings.Join(n, ", ")
			}
			return ch, fmt.Errorf("unknown tool %.40q: %s", name, hint)
		}
		if !slices.Contains(ch.Tools, name) {
			ch.Tools = append(ch.Tools, name)
		}
		ch.Chosen = true
	}
	if len(ch.Tools) > MaxChosenTools {
		return ch, fmt.Errorf("%d tools named; at most %d: name their toolsets instead", len(ch.Tools), MaxChosenTools)
	}
	switch strings.ToLower(strings.TrimSpace(readOnly)) {
	case "", "false", "0":
	case "true", "1":
		ch.ReadOnly = true
	default:
		return ch, fmt.Errorf("read_only is %.20q: send true or false", readOnly)
	}
	return ch, nil
}

// splitNames splits a list of names separated by commas or spaces,
// lower-cased.
func splitNames(raw string) []string {
	return strings.FieldsFunc(strings.ToLower(raw), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// Query is the choice as the MCP URL's query says it ("" for the zero
// Choice): what a client without a session sends to load the same again.
func (ch Choice) Query() string {
	var sets []string
	for _, s := range toolsetSettings {
		if ch.Chosen && ch.Toolsets&s.set != 0 {
			sets = append(sets, s.name)
		}
	}
	if ch.Light {
		sets = append(sets, PresetLight)
	}
	var parts []string
	if len(sets) > 0 {
		parts = append(parts, "toolsets="+strings.Join(sets, ","))
	}
	if len(ch.Tools) > 0 {
		parts = append(parts, "tools="+strings.Join(ch.Tools, ","))
	}
	if ch.ReadOnly {
		parts = append(parts, "read_only=true")
	}
	return strings.Join(parts, "&")
}
