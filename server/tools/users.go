package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// Bounds of the people tools.
const (
	defaultUsers = 20
	maxUsers     = 100
	// maxTermRunes bounds a search term: the start of a name or an email
	// address (at most 128 characters in Mattermost) is never longer, and
	// the term reaches the database.
	maxTermRunes = 128
)

// UserInfo is a person in structured answers.
type UserInfo struct {
	ID          string `json:"id"`
	Username    string `json:"username"`
	FirstName   string `json:"first_name,omitempty"`
	LastName    string `json:"last_name,omitempty"`
	Nickname    string `json:"nickname,omitempty"`
	Position    string `json:"position,omitempty"`
	IsBot       bool   `json:"is_bot"`
	Deactivated bool   `json:"deactivated"`
}

func userInfo(u *model.User) UserInfo {
	return UserInfo{ID: u.Id, Username: u.Username, FirstName: present.Name(u.FirstName), LastName: present.Name(u.LastName),
		Nickname: present.Name(u.Nickname), Position: present.Name(u.Position), IsBot: u.IsBot, Deactivated: u.DeleteAt != 0}
}

func userLine(u UserInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%s", u.Username)
	if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
		fmt.Fprintf(&b, " (%s)", present.Name(name))
	}
	if u.Nickname != "" {
		fmt.Fprintf(&b, ", nickname %q", present.Name(u.Nickname))
	}
	if u.Position != "" {
		fmt.Fprintf(&b, ", position %q", present.Name(u.Position))
	}
	if u.IsBot {
		b.WriteString(", a bot")
	}
	if u.Deactivated {
		b.WriteString(", deactivated")
	}
	fmt.Fprintf(&b, ", id %s", u.ID)
	return b.String()
}

// ---- get_user

type getUserArgs struct {
	User string `json:"user" jsonschema:"The person: a user id, an @username or an email address."`
}

func getUser(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "get_user",
		Title:       "Look up a Mattermost user",
		Description: "Looks up one person you share a team or conversation with, by id, @username or email. Use it to turn an author id into a name, or a name into from:username.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetPeople,
	}, d.getUser)
}

func (d Deps) getUser(ctx context.Context, args getUserArgs) (res catalogue.Result[UserInfo], err error) {
	if strings.TrimSpace(args.User) == "" {
		return res, refusal.New("Give user:", "a user id, @username or email. Call search_users with part of a name to find one.")
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	u, err := c.User(args.User)
	if err != nil {
		return res, personRefusal(err, args.User)
	}
	return answer(userAnswer(u))
}

// userAnswer writes get_user's answer from the person read.
func userAnswer(u *model.User) (string, UserInfo) {
	info := userInfo(u)
	return userLine(info) + ".", info
}

// emailHidden refuses a lookup by email on a server that hides email
// addresses, as Mattermost's own API does.
// personRefusal words a person who cannot be looked up (not found, or
// looked up by email while the server hides email addresses) as a refusal;
// other errors pass as they are.
func personRefusal(err error, ref string) error {
	switch {
	case errors.Is(err, mattermost.ErrEmailHidden):
		return refusal.New("This Mattermost server hides email addresses, so nobody can be looked up by email.",
			"Give the person's @username or user id instead, or call search_users with the start of their username.")
	case errors.Is(err, mattermost.ErrNotFound):
		return refusal.New(fmt.Sprintf("No person %q found among the people you can see.", present.Name(ref)),
			"Call search_users with part of their username.")
	}
	return err
}

// ---- search_users

type searchUsersArgs struct {
	Term  string `json:"term" jsonschema:"The start of a username, name, nickname or email."`
	Limit int    `json:"limit,omitempty" jsonschema:"At most this many, 1-100; default 20."`
}

// UserList is search_users' structured answer.
type UserList struct {
	Users []UserInfo `json:"users"`
}

func searchUsers(d Deps) catalogue.Tool {
	return catalogue.Define(catalogue.Tool{
		Name:        "search_users",
		Title:       "Search Mattermost users",
		Description: "Finds people you share a team or conversation with by the start of their username, nickname, or the names and email Mattermost shows you; deactivated accounts are marked.",
		Hints:       readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetPeople,
	}, d.searchUsers)
}

func (d Deps) searchUsers(ctx context.Context, args searchUsersArgs) (res catalogue.Result[UserList], err error) {
	term := strings.TrimPrefix(strings.TrimSpace(args.Term), "@")
	if term == "" {
		return res, refusal.New("Give term: the start of a username, name or email.", "")
	}
	if n := utf8.RuneCountInString(term); n > maxTermRunes {
		return res, refusal.Newf("term is %d characters; give at most %d, the start of a username, name or email.", n, maxTermRunes)
	}
	limit, err := limitOf(args.Limit, defaultUsers, maxUsers)
	if err != nil {
		return res, err
	}
	c, err := d.caller(ctx)
	if err != nil {
		return res, err
	}
	users, err := c.SearchUsers(term, limit)
	if err != nil {
		return res, err
	}
	return answer(searchUsersAnswer(term, limit, users))
}

// searchUsersAnswer writes search_users' answer from the people found for
// term, at most limit of them.
func searchUsersAnswer(term string, limit int, users []*model.User) (string, UserList) {
	out := UserList{Users: []UserInfo{}}
	var b strings.Builder
	if len(users) == 0 {
		fmt.Fprintf(&b, "Nobody you share a team or a conversation with matches %q. Try a shorter start of the name.", present.Name(term))
		return b.String(), out
	}
	fmt.Fprintf(&b, "%d people match %q:\n", len(users), present.Name(term))
	for _, u := range users {
		info := userInfo(u)
		out.Users = append(out.Users, info)
		fmt.Fprintf(&b, "- %s\n", userLine(info))
	}
	if len(users) == limit {
		fmt.Fprintf(&b, "The list stops at %d; a longer term narrows it.", limit)
	}
	return strings.TrimRight(b.String(), "\n"), out
}
