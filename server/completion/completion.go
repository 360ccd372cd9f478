// Package completion answers completion/complete for the prompts' arguments
// and the resource templates' variables: the person's channels, teams,
// followed threads, files and workspace files, and the people they can see,
// each matched by prefix, any case, at most MaxValues at a time. Everything
// is read through a Caller bound to the person, so a value the person could
// not read is never offered.
package completion

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/transport"
	"github.com/mcp-server/mattermost-plugin-mcp/server/workspace"
)

// Kind is what an argument or a template variable names, which decides what
// completes it.
type Kind int

const (
	// Free is free text: nothing completes it.
	Free Kind = iota
	// Channel is a channel of the person's: its name (team channels) or a
	// direct message's @username (the people they can see).
	Channel
	// TeamChannel is a channel of one of the person's teams, by its name:
	// a resource template's channel, whose team is its own variable.
	TeamChannel
	// Team is one of the person's teams, by name.
	Team
	// Thread is a thread the person follows, by its root post's id.
	Thread
	// File is an attachment, by file id, matched by its name: in the
	// channel the other arguments name, else the person's recent files.
	File
	// FileName is an attachment's name among the person's recent files.
	FileName
	// Since is a day: today and the days before it.
	Since
	// WorkspaceFile is a file of the person's workspace, by name.
	WorkspaceFile
)

// MaxValues is the protocol's cap on the values of one completion answer.
const MaxValues = 100

// maxTyped bounds the value a client sends to complete: no name in
// Mattermost is longer, and matching a longer one finds nothing anyway.
const maxTyped = 256

// Variables are the resource templates' variables and what each names; a
// template's URI is not needed to tell them apart.
var Variables = map[string]Kind{
	"file_id": File,
	"team":    Team,
	"channel": TeamChannel,
	"post_id": Thread,
	"name":    WorkspaceFile,
}

// Provider answers completions for mcp-go (server.WithPromptCompletionProvider
// and server.WithResourceCompletionProvider).
type Provider struct {
	MM        *mattermost.Gateway
	Workspace *workspace.Store
	// Prompts is, prompt by prompt, what each argument names.
	Prompts map[string]map[string]Kind
	// PromptOffered and TemplateOffered are whether the prompt, or the
	// resource template, whose argument is completed is offered to the
	// connection of ctx: a completion reads what they would (package
	// paths), so a withheld one completes to nothing. nil: offered.
	PromptOffered   func(ctx context.Context, prompt string) bool
	TemplateOffered func(ctx context.Context, uriTemplate string) bool
	cache           cache
	now             func() time.Time
	// callerOf is who a request comes from; nil is transport.CallerID
	// (tests name the person directly).
	callerOf func(context.Context) string
}

// CompletePromptArgument completes an argument of a prompt; an argument the
// prompt does not have completes to nothing.
func (p *Provider) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if p.PromptOffered != nil && !p.PromptOffered(ctx, prompt) {
		return values(nil), nil
	}
	return p.complete(ctx, p.Prompts[prompt][arg.Name], arg.Value, cc.Arguments)
}

// CompleteResourceArgument completes a variable of a resource template.
func (p *Provider) CompleteResourceArgument(ctx context.Context, uriTemplate string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if p.TemplateOffered != nil && !p.TemplateOffered(ctx, uriTemplate) {
		return values(nil), nil
	}
	return p.complete(ctx, Variables[arg.Name], arg.Value, cc.Arguments)
}

func (p *Provider) complete(ctx context.Context, kind Kind, typed string, context map[string]string) (*mcp.Completion, error) {
	callerOf := p.callerOf
	if callerOf == nil {
		callerOf = transport.CallerID
	}
	id := callerOf(ctx)
	if id == "" || kind == Free || len(typed) > maxTyped {
		return values(nil), nil
	}
	c := p.MM.AsSession(id, transport.MattermostSession(ctx))
	typed = strings.ToLower(strings.TrimSpace(typed))
	var found []string
	var err error
	switch kind {
	case Channel, TeamChannel:
		if strings.HasPrefix(typed, "@") && kind == Channel {
			found, err = people(c, typed)
		} else {
			found, err = p.channels(c, strings.TrimPrefix(typed, "~"), context["team"], kind == Channel)
		}
	case Team:
		found, err = teams(c, typed)
	case Thread:
		found, err = p.threads(c, typed)
	case File:
		found, err = p.files(c, typed, context)
	case FileName:
		found, err = p.fileNames(c, typed)
	case Since:
		found = days(p.clock(), typed)
	case WorkspaceFile:
		found, err = p.workspaceFiles(id, typed)
	}
	if err != nil {
		return nil, err
	}
	return values(found), nil
}

// values is the answer: the first MaxValues, with the total and whether
// more match.
func values(found []string) *mcp.Completion {
	out := &mcp.Completion{Values: found, Total: len(found)}
	if out.Values == nil {
		out.Values = []string{}
	}
	if len(found) > MaxValues {
		out.Values, out.HasMore = found[:MaxValues], true
	}
	return out
}

func (p *Provider) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// starts reports whether any of the fields starts with typed, any case
// (typed is already lower case).
func starts(typed string, fields ...string) bool {
	for _, f := range fields {
		if f != "" && strings.HasPrefix(strings.ToLower(f), typed) {
			return true
		}
	}
	return false
}

// distinct keeps the first of each value, in order.
func distinct(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func teams(c *mattermost.Caller, typed string) ([]string, error) {
	mine, err := c.Teams()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mine {
		if starts(typed, m.Team.Name, m.Team.DisplayName) {
			out = append(out, m.Team.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// maxPeople is how many people one completion searches for: one answer's
// worth.
const maxPeople = MaxValues

// people are "@username" of the people the caller can see whose username,
// nickname or (where the privacy settings show it) name starts with what
// was typed: Mattermost's own user search, so a hidden name never matches.
func people(c *mattermost.Caller, typed string) ([]string, error) {
	term := strings.TrimPrefix(typed, "@")
	if term == "" {
		return nil, nil
	}
	found, err := c.SearchUsers(term, maxPeople)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(found))
	for _, u := range found {
		out = append(out, "@"+u.Username)
	}
	return distinct(out), nil
}

func (p *Provider) threads(c *mattermost.Caller, typed string) ([]string, error) {
	followed, _, err := c.FollowedThreads(MaxValues)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range followed {
		if starts(typed, t.RootID) {
			out = append(out, t.RootID)
		}
	}
	return out, nil
}

// pastDays are the days Since offers, counted back from today.
var pastDays = []int{0, 1, 2, 3, 4, 5, 6, 7, 14, 30, 90}

// days are the dates (UTC, the form since takes) of today and the days
// before it that start with what was typed.
func days(now time.Time, typed string) []string {
	var out []string
	for _, d := range pastDays {
		day := now.UTC().AddDate(0, 0, -d).Format(time.DateOnly)
		if strings.HasPrefix(day, typed) {
			out = append(out, day)
		}
	}
	return out
}

func (p *Provider) workspaceFiles(userID, typed string) ([]string, error) {
	if p.Workspace == nil {
		return nil, nil
	}
	files, err := p.Workspace.List(userID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		if starts(typed, f.Name) {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}
