package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
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
		Hints:       readOnly, Effect: catalogue.ReadsOnly,
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
	out := StatusList{Statuses: []StatusInfo{}, NotFound: []string{}}
	var b strings.Builder
	fmt.Fprintf(&b, "Status of %d people:\n", len(found))
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
	return answer(strings.TrimSpace(b.String()), out)
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
