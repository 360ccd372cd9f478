package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// Toolset is a family of tools an admin turns on or off as one. Every tool
// belongs to exactly one; a set of them is a bit mask, so a Configuration
// stays a comparable value.
type Toolset uint16

const (
	// ToolsetChannels reads teams, channels, posts, threads, unreads,
	// mentions, pinned posts and emoji.
	ToolsetChannels Toolset = 1 << iota
	// ToolsetFiles reads attachments: their text, images, media, archives.
	ToolsetFiles
	// ToolsetPeople reads who the person is and other people's profiles.
	ToolsetPeople
	// ToolsetWorkspace is the person's file workspace and the side channel
	// (presigned URLs, upload handles), which move bytes past the model.
	ToolsetWorkspace
	// ToolsetPosting posts, edits, deletes, reacts, pins and messages
	// people, each confirmed by the person.
	ToolsetPosting
	// ToolsetChannelChanges creates, joins and leaves channels and adds
	// members, each confirmed by the person.
	ToolsetChannelChanges
	// ToolsetStatus reads and sets statuses.
	ToolsetStatus
	// ToolsetOwnView changes what only the person sees: drafts, saved
	// posts, followed threads, read marks, reminders.
	ToolsetOwnView

	// AllToolsets is every toolset: the default.
	AllToolsets = ToolsetChannels | ToolsetFiles | ToolsetPeople | ToolsetWorkspace |
		ToolsetPosting | ToolsetChannelChanges | ToolsetStatus | ToolsetOwnView
)

// toolsetSettings names each toolset's System Console key (matched
// case-insensitively) and its display name, in the order the System
// Console shows them.
var toolsetSettings = []struct {
	set     Toolset
	key     string
	name    string
	display string
}{
	{ToolsetChannels, "toolsetchannels", "channels", "Reading channels and posts"},
	{ToolsetFiles, "toolsetfiles", "files", "Reading files"},
	{ToolsetPeople, "toolsetpeople", "people", "People"},
	{ToolsetWorkspace, "toolsetworkspace", "workspace", "The file workspace and side channel"},
	{ToolsetPosting, "toolsetposting", "posting", "Posting"},
	{ToolsetChannelChanges, "toolsetchannelchanges", "channel_changes", "Channel changes"},
	{ToolsetStatus, "toolsetstatus", "status", "Status"},
	{ToolsetOwnView, "toolsetownview", "own_view", "The person's own view"},
}

// Toolsets lists every single toolset, in the System Console's order.
func Toolsets() []Toolset {
	out := make([]Toolset, len(toolsetSettings))
	for i, s := range toolsetSettings {
		out[i] = s.set
	}
	return out
}

// Name is the toolset's short name, as the audit trail and the admin page
// show it.
func (t Toolset) Name() string {
	for _, s := range toolsetSettings {
		if s.set == t {
			return s.name
		}
	}
	return fmt.Sprintf("toolset(%d)", uint16(t))
}

// DisplayName is the toolset's name as the System Console shows it.
func (t Toolset) DisplayName() string {
	for _, s := range toolsetSettings {
		if s.set == t {
			return s.display
		}
	}
	return t.Name()
}

// Who may connect an MCP client.
const (
	// ConnectEveryone lets every active user connect (guests as
	// AllowGuests says).
	ConnectEveryone = "everyone"
	// ConnectTeams lets only members of the listed teams connect.
	ConnectTeams = "teams"
	// ConnectGroups lets only members of the listed Mattermost groups
	// connect.
	ConnectGroups = "groups"
)

const (
	// DefaultMaxCallsPerMinute is far above what a person reading in their
	// client causes (a few calls a minute) and above an agent working
	// through a channel, yet stops a runaway loop within a minute.
	DefaultMaxCallsPerMinute = 600
	// MinMaxCallsPerMinute: fewer and an ordinary agent's burst of reads
	// (list, read, read the next window) would be refused.
	MinMaxCallsPerMinute = 10
	// LimitMaxCallsPerMinute: beyond 100 a second per person the limit no
	// longer protects anything.
	LimitMaxCallsPerMinute = 6000

	// DefaultAuditRetentionDays is how long the plugin's own audit trail
	// keeps an entry: a quarter, what reviews of access usually look back on.
	DefaultAuditRetentionDays = 90
	// LimitAuditRetentionDays bounds the trail at ten years; Mattermost's
	// own audit log is the place for longer keeping.
	LimitAuditRetentionDays = 3650

	// MaxConnectListed bounds the teams or groups an admin lists: each
	// request of a person checks their memberships against the list.
	MaxConnectListed = 100
	// MaxExcludedTools bounds the single tools left out; the catalogue has
	// fewer than a hundred.
	MaxExcludedTools = 100
)

// HasToolset reports whether the admin left toolset t on.
func (c Configuration) HasToolset(t Toolset) bool { return c.Toolsets&t == t }

// Excludes reports whether the admin left the tool named name out.
func (c Configuration) Excludes(name string) bool {
	return slices.Contains(strings.Fields(c.ExcludedTools), name)
}

// ConnectTeamList is the teams (names or ids, lower case) whose members may
// connect when ConnectAccess is ConnectTeams.
func (c Configuration) ConnectTeamList() []string { return strings.Fields(c.ConnectTeams) }

// ConnectGroupList is the groups (names or ids, lower case) whose members
// may connect when ConnectAccess is ConnectGroups.
func (c Configuration) ConnectGroupList() []string { return strings.Fields(c.ConnectGroups) }

// parseToolset reads one toolset's switch; it reports false for a key that
// is no toolset's.
func (c *Configuration) parseToolset(key string, raw any) (bool, error) {
	for _, s := range toolsetSettings {
		if s.key != key {
			continue
		}
		if raw == nil { // not saved yet since an upgrade: on, as before
			return true, nil
		}
		on, err := asBool(raw)
		if err != nil {
			return true, err
		}
		if on {
			c.Toolsets |= s.set
		} else {
			c.Toolsets &^= s.set
		}
		return true, nil
	}
	return false, nil
}

// parseNames reads a list of names separated by commas, spaces or new
// lines, lower-cased and without repeats, at most limit of them, for the
// setting called setting in the System Console.
func parseNames(raw any, limit int, setting, what string) (string, error) {
	text, err := asString(raw)
	if err != nil {
		return "", err
	}
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';'
	})
	if len(fields) > limit {
		return "", fmt.Errorf("MCP Server: %q lists %d %s; at most %d", setting, len(fields), what, limit)
	}
	var out []string
	for _, f := range fields {
		f = strings.TrimPrefix(f, "@") // "@group" as people write a group mention
		if len(f) > 64 {
			return "", fmt.Errorf("MCP Server: %q: %.70q is longer than any %s name or id; list names or ids separated by commas", setting, f, what)
		}
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return strings.Join(out, " "), nil
}

// validateGovernance reports the first governance setting an admin must fix.
func (c Configuration) validateGovernance() error {
	switch c.ConnectAccess {
	case ConnectEveryone:
	case ConnectTeams:
		if len(c.ConnectTeamList()) == 0 {
			return fmt.Errorf("MCP Server: \"Who may connect\" is \"Members of chosen teams\" but \"Teams whose members may connect\" lists none: list team names (as in the team's URL) or ids, or let everyone connect")
		}
	case ConnectGroups:
		if len(c.ConnectGroupList()) == 0 {
			return fmt.Errorf("MCP Server: \"Who may connect\" is \"Members of chosen groups\" but \"Groups whose members may connect\" lists none: list group names (as mentioned, without @) or ids, or let everyone connect")
		}
	default:
		return fmt.Errorf("MCP Server: \"Who may connect\" must be one of %q, %q or %q, not %q",
			ConnectEveryone, ConnectTeams, ConnectGroups, c.ConnectAccess)
	}
	if c.MaxCallsPerMinute < MinMaxCallsPerMinute || c.MaxCallsPerMinute > LimitMaxCallsPerMinute {
		return fmt.Errorf("MCP Server: \"Tool calls a minute per person\" must be a whole number from %d to %d, not %d",
			MinMaxCallsPerMinute, LimitMaxCallsPerMinute, c.MaxCallsPerMinute)
	}
	if c.AuditRetentionDays < 1 || c.AuditRetentionDays > LimitAuditRetentionDays {
		return fmt.Errorf("MCP Server: \"Keep the audit trail (days)\" must be a whole number from 1 to %d, not %d",
			LimitAuditRetentionDays, c.AuditRetentionDays)
	}
	return nil
}

// CheckExcludedTools refuses a tool left out that is none of known, the
// names of the tools an admin may leave out, naming the nearest known ones.
// config does not know the catalogue: the plugin passes its names in, and
// the one tool offered whatever the settings as always.
func (c Configuration) CheckExcludedTools(known []string, always string) error {
	cands := make([]names.Candidate, len(known))
	for i, k := range known {
		cands[i] = names.Candidate{Key: k, Names: []string{k}}
	}
	for _, name := range strings.Fields(c.ExcludedTools) {
		if slices.Contains(known, name) {
			continue
		}
		if name == always {
			return fmt.Errorf("MCP Server: \"Tools to leave out\" names %s, which is always offered: it tells the AI who the person is and what you allow. Remove it from the list", always)
		}
		hint := "write the names as the tool list shows them (such as delete_post), separated by commas"
		if near := names.Closest(name, cands, 3); len(near) > 0 {
			hint = "the nearest tools are " + strings.Join(near, ", ")
		}
		return fmt.Errorf("MCP Server: \"Tools to leave out\" names %q, which is no tool of this plugin: %s", name, hint)
	}
	return nil
}
