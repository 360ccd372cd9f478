package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/approval"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/posting"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// maxStatusPeople bounds one get_status call, as Mattermost's own batch
// status calls are bounded.
const maxStatusPeople = 50

type getStatusArgs struct {
	Users []string `json:"users" jsonschema:"1 to 50 people: user ids, @usernames or emails."`
}

// StatusInfo is a person's presence in structured answers.
type StatusInfo struct {
	User UserInfo `json:"user"`
	// Status is online, away, dnd or offline.
	Status       string `json:"status"`
	Manual       bool   `json:"manual"`
	LastActivity string `json:"last_activity,omitempty"`
	DNDEnd       string `json:"dnd_end,omitempty"`
	CustomText   string `json:"custom_text,omitempty"`
	CustomEmoji  string `json:"custom_emoji,omitempty"`
	CustomUntil  string `json:"custom_until,omitempty"`
}

// StatusList is get_status' structured answer.
type StatusList struct {
	Statuses []StatusInfo `json:"statuses"`
	// NotFound are the arguments that named nobody you can see.
	NotFound []string `json:"not_found"`
}

func getStatus(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "get_status",
		Title:       "Get people's status",
		Description: "Tells whether people you can see are online, away, do not disturb (until when) or offline, with their custom status; up to 50 at once.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetStatus,
	}, d.getStatus)
}

func (d Deps) getStatus(ctx context.Context, args getStatusArgs) (res catalogue.Result[StatusList], err error) {
	var refs []string
	for _, r := range args.Users {
		if r = strings.TrimSpace(r); r != "" {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 || len(refs) > maxStatusPeople {
		return res, refusal.New(fmt.Sprintf("Give users: 1 to %d user ids or @usernames (%d given).", maxStatusPeople, len(refs)),
			"Call get_status again with that many; split a longer list into several calls.")
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	found, missing, err := c.Presences(refs)
	if err != nil {
		return res, err
	}
	if len(found) == 0 {
		return res, refusal.New(fmt.Sprintf("Nobody you share a team or a conversation with is %s.", quotedList(missing)),
			"Call search_users with part of their name or username.")
	}
	return answer(statusAnswer(found, missing))
}

// statusAnswer writes get_status' answer from the presences found and the
// arguments that named nobody the caller can see.
func statusAnswer(found []mattermost.Presence, missing []string) (string, StatusList) {
	out := StatusList{Statuses: []StatusInfo{}, NotFound: []string{}}
	var b strings.Builder
	fmt.Fprintf(&b, "Status of %s:\n", present.Count(len(found), "person", "people"))
	for _, p := range found {
		s := StatusInfo{User: userInfo(p.User), Status: p.Status, Manual: p.Manual}
		if !p.LastActivity.IsZero() {
			s.LastActivity = p.LastActivity.Format(time.RFC3339)
		}
		if !p.DNDEnd.IsZero() {
			s.DNDEnd = p.DNDEnd.Format(time.RFC3339)
		}
		if cs := p.Custom; cs != nil {
			s.CustomText, s.CustomEmoji = present.Name(cs.Text), present.Name(cs.Emoji)
			if !cs.ExpiresAt.IsZero() {
				s.CustomUntil = cs.ExpiresAt.UTC().Format(time.RFC3339)
			}
		}
		out.Statuses = append(out.Statuses, s)
		fmt.Fprintf(&b, "- @%s (id %s): %s\n", s.User.Username, s.User.ID, statusText(s))
	}
	if len(missing) > 0 {
		out.NotFound = missing
		fmt.Fprintf(&b, "Not found among the people you can see: %s. Find them with search_users.", quotedList(missing))
	}
	return strings.TrimSpace(b.String()), out
}

func statusText(s StatusInfo) string {
	parts := []string{s.Status}
	if s.Status == "dnd" {
		parts[0] = "do not disturb"
		if s.DNDEnd != "" {
			parts[0] += " until " + s.DNDEnd
		}
	}
	if s.Manual {
		parts[0] += " (set by them)"
	}
	if s.LastActivity != "" {
		parts = append(parts, "last active "+s.LastActivity)
	}
	if s.CustomText != "" || s.CustomEmoji != "" {
		custom := "custom status"
		if s.CustomEmoji != "" {
			custom += " :" + present.Name(s.CustomEmoji) + ":"
		}
		if s.CustomText != "" {
			custom += fmt.Sprintf(" %q", present.Name(s.CustomText))
		}
		if s.CustomUntil != "" {
			custom += " until " + s.CustomUntil
		}
		parts = append(parts, custom)
	}
	return strings.Join(parts, ", ")
}

func quotedList(refs []string) string {
	q := make([]string, len(refs))
	for i, r := range refs {
		q[i] = fmt.Sprintf("%q", present.Name(r))
	}
	return strings.Join(q, ", ")
}

// set_status: the person's availability and custom status, which others
// see beside their name.

var statusHints = catalogue.Hints{ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true}

type setStatusArgs struct {
	Status          string `json:"status,omitempty" jsonschema:"online, away, dnd or offline; left out keeps it."`
	DNDUntil        string `json:"dnd_until,omitempty" jsonschema:"With dnd: when it ends (RFC 3339)."`
	CustomText      string `json:"custom_text,omitempty" jsonschema:"Custom status text: one line, at most 100 characters."`
	CustomEmoji     string `json:"custom_emoji,omitempty" jsonschema:"E.g. palm_tree: standard or custom (list_emoji)."`
	CustomExpiresAt string `json:"custom_expires_at,omitempty" jsonschema:"When the custom status clears (RFC 3339)."`
	ClearCustom     bool   `json:"clear_custom,omitempty" jsonschema:"true removes the custom status."`
}

func setStatusTool(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name: "set_status", Title: "Set your status", Hints: statusHints, Effect: catalogue.ChangesMattermost, Toolset: config.ToolsetStatus,
		Description: "Sets the person's status (online, away, dnd until a time, offline) and/or custom status, as others see it." + confirmationNote,
	}, d.setStatus)
}

func (d Deps) setStatus(ctx context.Context, a setStatusArgs) (res catalogue.Result[WriteResult], err error) {
	c, res, err := d.startWrite(ctx)
	if c == nil {
		return res, err
	}
	now := time.Now()
	s := &posting.StatusSpec{Availability: strings.ToLower(strings.TrimSpace(a.Status)), Text: strings.TrimSpace(a.CustomText),
		Emoji: strings.Trim(strings.TrimSpace(a.CustomEmoji), ":"), ClearCustom: a.ClearCustom, Zone: c.Location().String()}
	switch s.Availability {
	case "", model.StatusOnline, model.StatusAway, model.StatusDnd, model.StatusOffline:
	default:
		return res, refusal.New(fmt.Sprintf("status %q is not one Mattermost knows.", a.Status), "Give online, away, dnd or offline.")
	}
	if s.DNDUntil, err = futureTime("dnd_until", a.DNDUntil, now); err != nil {
		return res, err
	}
	if !s.DNDUntil.IsZero() && s.Availability != model.StatusDnd {
		return res, refusal.New("dnd_until goes with status dnd.", "Give status dnd, or leave dnd_until out.")
	}
	if s.ExpiresAt, err = futureTime("custom_expires_at", a.CustomExpiresAt, now); err != nil {
		return res, err
	}
	custom := s.Text != "" || s.Emoji != ""
	if err := oneLine("custom_text", s.Text, model.CustomStatusTextMaxRunes); err != nil {
		return res, err
	}
	if s.Emoji != "" {
		if err := checkEmoji(c, "custom_emoji", s.Emoji); err != nil {
			return res, err
		}
	}
	switch {
	case custom && s.ClearCustom:
		return res, refusal.New("Give a custom status or clear_custom, not both.", "")
	case !s.ExpiresAt.IsZero() && !custom:
		return res, refusal.New("custom_expires_at goes with custom_text or custom_emoji.", "")
	case s.Availability == "" && !custom && !s.ClearCustom:
		return res, refusal.New("Nothing to set: give status, a custom status, or clear_custom.", "")
	}
	if (custom || s.ClearCustom) && !c.CustomStatusesOn() {
		return res, customStatusesOff()
	}
	if custom && s.Emoji == "" {
		s.Emoji = "speech_balloon" // Mattermost shows every custom status with an emoji
	}
	plan := approval.SetStatus.Plan(posting.Plan{CallerID: c.UserID(),
		Dest: posting.Destination{Label: "your status", Place: "your status", Where: "your status, beside your name"}}, approval.NewStatus{Status: s})
	plan.Notes = []string{"Everyone who can see you in Mattermost sees it beside your name; it notifies nobody."}
	if s.Availability == model.StatusDnd {
		plan.Notes = append(plan.Notes, "While you are on Do not disturb, Mattermost sends you no notifications.")
	}
	return d.write(ctx, c, plan)
}

// customStatusesOff refuses a custom status before anyone is asked, as
// Mattermost's API refuses one while custom statuses are off.
func customStatusesOff() error {
	return refusal.New("Custom statuses are turned off on this Mattermost (TeamSettings.EnableCustomUserStatuses), so it sets or clears none: nothing was asked or changed.",
		"Call set_status with status alone (online, away, dnd or offline), or tell the person an admin can turn custom statuses on.")
}

// futureTime reads an optional RFC 3339 time that must be in the future.
func futureTime(arg, v string, now time.Time) (time.Time, error) {
	if strings.TrimSpace(v) == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, refusal.New(fmt.Sprintf("%s %q is not an RFC 3339 time.", arg, v), "Give it like 2026-03-01T17:00:00+01:00.")
	}
	if !t.After(now) {
		return time.Time{}, refusal.New(fmt.Sprintf("%s %s has passed.", arg, v), "Give a time in the future.")
	}
	return t.UTC(), nil
}
