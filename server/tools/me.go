package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
)

type getMeArgs struct{}

// MeTeam is one of the caller's teams in get_me's structured answer.
type MeTeam struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	DisplayName string   `json:"display_name"`
	Roles       []string `json:"roles"`
}

// Me is get_me's structured answer.
type Me struct {
	UserID            string   `json:"user_id"`
	Username          string   `json:"username"`
	DisplayName       string   `json:"display_name"`
	Email             string   `json:"email"`
	SystemRoles       []string `json:"system_roles"`
	Teams             []MeTeam `json:"teams"`
	SiteURL           string   `json:"site_url"`
	WritesAllowed     bool     `json:"writes_allowed"`
	WriteConfirmation string   `json:"write_confirmation"`
	MaxFileSizeMiB    int      `json:"max_file_size_mib"`
	// ToolsetsOff and ToolsLeftOut are what the admin does not offer, by
	// short name: the model can tell the person why a tool is missing.
	ToolsetsOff  []string `json:"toolsets_off,omitempty"`
	ToolsLeftOut []string `json:"tools_left_out,omitempty"`
}

func getMe(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "get_me",
		Title:       "Who am I in Mattermost",
		Description: "Tells who you are signed in as, your roles and teams, whether changes to Mattermost are allowed and who confirms them. Call it first.",
		Hints:       catalogue.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
		Effect:      catalogue.ReadsOnly,
	}, d.getMe)
}

func (d Deps) getMe(ctx context.Context, _ getMeArgs) (res catalogue.Result[Me], err error) {
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	u, err := c.Me()
	if err != nil {
		return res, err
	}
	memberships, err := c.Teams()
	if err != nil {
		return res, err
	}
	return answer(meAnswer(meFetched{user: u, memberships: memberships, siteURL: c.SiteURL(), config: d.Config(), choice: transport.ChoiceOf(ctx)}))
}

// meFetched is what get_me read: the caller, their teams, the server's
// address and the plugin's settings.
type meFetched struct {
	user        *model.User
	memberships []mattermost.Membership
	siteURL     string
	config      config.Configuration
	// choice is what this connection loads, inside what the admin allows.
	choice config.Choice
}

// meAnswer writes get_me's answer from what was read.
func meAnswer(f meFetched) (string, Me) {
	me := Me{
		UserID:            f.user.Id,
		Username:          f.user.Username,
		DisplayName:       present.Name(strings.TrimSpace(f.user.GetFullName())),
		Email:             f.user.Email,
		SystemRoles:       strings.Fields(f.user.Roles),
		Teams:             make([]MeTeam, 0, len(f.memberships)),
		SiteURL:           f.siteURL,
		WritesAllowed:     f.config.AllowWrites,
		WriteConfirmation: f.config.WriteConfirmation,
		MaxFileSizeMiB:    f.config.MaxFileSizeMiB,
		ToolsLeftOut:      strings.Fields(f.config.ExcludedTools),
	}
	for _, set := range config.Toolsets() {
		if !f.config.HasToolset(set) {
			me.ToolsetsOff = append(me.ToolsetsOff, set.Name())
		}
	}
	for _, m := range f.memberships {
		me.Teams = append(me.Teams, MeTeam{ID: m.Team.Id, Name: m.Team.Name, DisplayName: present.Name(m.Team.DisplayName), Roles: strings.Fields(m.Roles)})
	}
	return describeMe(me) + loadsSentence(f.choice), me
}

// loadsSentence says what this connection chose to load, and how to get
// the rest; "" for a connection that loads all the admin allows.
func loadsSentence(ch config.Choice) string {
	var loads []string
	for _, set := range config.Toolsets() {
		if ch.Chosen && ch.Toolsets&set != 0 {
			loads = append(loads, set.Name())
		}
	}
	if ch.Light {
		loads = append(loads, "the light start")
	}
	loads = append(loads, ch.Tools...)
	var b strings.Builder
	if ch.Chosen {
		fmt.Fprintf(&b, "\nThis connection loads only %s, as its MCP URL chose: other tools the admin allows are not loaded; find_tools finds them, load_tools adds them.", strings.Join(loads, ", "))
	}
	if ch.ReadOnly {
		b.WriteString("\nThis connection is read-only (read_only in its MCP URL): no tool that writes is offered to it.")
	}
	return b.String()
}

func describeMe(me Me) string {
	var b strings.Builder
	name := "@" + me.Username
	if me.DisplayName != "" {
		name += " (" + me.DisplayName + ")"
	}
	fmt.Fprintf(&b, "You are signed in to Mattermost at %s as %s, user id %s, email %s.\n", me.SiteURL, name, me.UserID, me.Email)
	fmt.Fprintf(&b, "System roles: %s.\n", strings.Join(me.SystemRoles, ", "))
	if len(me.Teams) == 0 {
		b.WriteString("You belong to no team yet.\n")
	} else {
		fmt.Fprintf(&b, "Teams (%d):\n", len(me.Teams))
		for _, t := range me.Teams {
			fmt.Fprintf(&b, "- %s (name %q, id %s), your roles: %s\n", t.DisplayName, t.Name, t.ID, strings.Join(t.Roles, ", "))
		}
	}
	if me.WritesAllowed && slices.Contains(me.ToolsetsOff, config.ToolsetPosting.Name()) {
		fmt.Fprintf(&b, "Writes: allowed, but no tool that posts is offered (see the toolsets below); %s\n", confirmationSentence(me.WriteConfirmation))
	} else if me.WritesAllowed {
		fmt.Fprintf(&b, "Writes: allowed. Tools that post or react are offered; %s\n", confirmationSentence(me.WriteConfirmation))
	} else {
		b.WriteString("Writes: not allowed on this server. Only tools that read are offered; a system admin can allow writes in System Console > Plugins > MCP Server.\n")
	}
	if len(me.ToolsetsOff) > 0 {
		var off []string
		for _, set := range config.Toolsets() {
			if slices.Contains(me.ToolsetsOff, set.Name()) {
				off = append(off, fmt.Sprintf("%q", set.DisplayName()))
			}
		}
		fmt.Fprintf(&b, "Toolsets the admin turned off (their tools are not offered): %s.\n", strings.Join(off, ", "))
	}
	if len(me.ToolsLeftOut) > 0 {
		fmt.Fprintf(&b, "Tools the admin left out: %s.\n", strings.Join(me.ToolsLeftOut, ", "))
	}
	fmt.Fprintf(&b, "Files larger than %d MiB are described, not read.", me.MaxFileSizeMiB)
	return b.String()
}

func confirmationSentence(mode string) string {
	switch mode {
	case config.ConfirmMattermost:
		return "the person confirms every write in Mattermost before anything is sent."
	case config.ConfirmClientApproval:
		return "the person's own MCP client approval is the only check; Mattermost asks nothing more."
	default:
		return "the person confirms every write, in this MCP client when it can ask, otherwise in Mattermost."
	}
}
