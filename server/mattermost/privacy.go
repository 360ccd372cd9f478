package mattermost

import (
	"errors"
	"fmt"

	"github.com/mattermost/mattermost/server/public/model"
)

// Mattermost's privacy rules, as its own API applies them to the caller:
//
//   - A profile is shown the way api4 shows it (App.SanitizeProfile with
//     GetSanitizeOptions(asAdmin)): first and last names only when
//     PrivacySettings.ShowFullName is on, the email address only when
//     PrivacySettings.ShowEmailAddress is on, both always to a caller with
//     manage_system, and everything to the caller about themselves.
//     Nickname and position are never hidden.
//   - Nobody is looked up by email while email addresses are hidden
//     (api4 getUserByEmail refuses it).
//   - A caller without the view_members permission (a guest, or anyone once
//     an admin takes it from their role) sees only the people of teams where
//     they hold it and the people they share a channel with
//     (App.GetViewUsersRestrictions and UserCanSeeOtherUser).
//   - Archived channels are read only while TeamSettings.
//     ExperimentalViewArchivedChannels is on.
//
// Every *model.User a Caller hands out went through shown, and every person
// it finds went through sees.

// ErrEmailHidden refuses a lookup by email address on a server that hides
// email addresses from the caller.
var ErrEmailHidden = errors.New("email addresses are hidden from the caller, so nobody is looked up by email")

// policy is what the server's settings let the caller see, read once per
// Caller (one tool call).
type policy struct {
	// asAdmin is Mattermost's IsSystemAdmin: the manage_system permission.
	asAdmin bool
	// options are App.GetSanitizeOptions(asAdmin).
	options map[string]bool
	// viewArchived is TeamSettings.ExperimentalViewArchivedChannels.
	viewArchived bool
}

func (c *Caller) policy() policy {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pol != nil {
		return *c.pol
	}
	p := policy{asAdmin: c.may("", "", model.PermissionManageSystem),
		options: map[string]bool{"fullname": true, "email": true}, viewArchived: true}
	if cfg := c.g.config(); cfg != nil {
		p.options["fullname"] = Setting(cfg.PrivacySettings.ShowFullName)
		p.options["email"] = Setting(cfg.PrivacySettings.ShowEmailAddress)
		p.viewArchived = Setting(cfg.TeamSettings.ExperimentalViewArchivedChannels)
	}
	if p.asAdmin {
		for _, k := range []string{"email", "fullname", "authservice", "authdata"} {
			p.options[k] = true
		}
	}
	c.pol = &p
	return p
}

// shown is a copy of a person's account with only what Mattermost's own API
// would show the caller: the caller's own account whole, anyone else's
// sanitized as api4 sanitizes a profile.
func (c *Caller) shown(u *model.User) *model.User {
	if u == nil {
		return nil
	}
	u = u.DeepCopy()
	if u.Id == c.userID {
		u.Sanitize(map[string]bool{})
		return u
	}
	p := c.policy()
	u.SanitizeProfile(p.options, p.asAdmin)
	return u
}

// emailsShown reports whether the caller may see (and look people up by)
// email addresses.
func (c *Caller) emailsShown() bool { return c.policy().options["email"] }

// restrictions are Mattermost's ViewUsersRestrictions for a caller without
// the view_members permission: whom they may still see.
type restrictions struct {
	// teams are the caller's teams where they hold view_members.
	teams []string
	// channels are every channel the caller is a member of: archived ones,
	// direct and group messages included.
	channels map[string]bool
}

// restricted is the caller's restrictions, nil when they may view every
// member (Mattermost's GetViewUsersRestrictions).
func (c *Caller) restricted() (*restrictions, error) {
	c.mu.Lock()
	done, r := c.restrLoaded, c.restr
	c.mu.Unlock()
	if done {
		return r, nil
	}
	if !c.may("", "", model.PermissionViewMembers) {
		var err error
		if r, err = c.loadRestrictions(); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	c.restr, c.restrLoaded = r, true
	c.mu.Unlock()
	return r, nil
}

func (c *Caller) loadRestrictions() (*restrictions, error) {
	r := &restrictions{}
	memberships, err := c.Teams()
	if err != nil {
		return nil, err
	}
	for _, m := range memberships {
		if c.may("", m.Team.Id, model.PermissionViewMembers) {
			r.teams = append(r.teams, m.Team.Id)
		}
	}
	if r.channels, err = c.channelsOf(c.userID); err != nil {
		return nil, err
	}
	return r, nil
}

// channelsOf is every channel a user is a member of, archived ones included.
func (c *Caller) channelsOf(userID string) (map[string]bool, error) {
	out := map[string]bool{}
	for page := 0; ; page++ {
		ms, err := c.g.api.Channel.ListMembersForUser("", userID, page, membersPage)
		if err != nil && !isNotFound(err) {
			return nil, fmt.Errorf("list channel memberships: %w", err)
		}
		for _, m := range ms {
			out[m.ChannelId] = true
		}
		if len(ms) < membersPage {
			return out, nil
		}
	}
}

// seesRestricted is UserCanSeeOtherUser for a caller with restrictions: the
// other person is in one of r's teams or shares a channel with the caller.
func (c *Caller) seesRestricted(r *restrictions, userID string) (bool, error) {
	for _, teamID := range r.teams {
		tm, err := c.teamMember(teamID, userID)
		if err != nil && !isNotFound(err) {
			return false, fmt.Errorf("read team membership: %w", err)
		}
		if err == nil && tm.DeleteAt == 0 {
			return true, nil
		}
	}
	if len(r.channels) == 0 {
		return false, nil
	}
	theirs, err := c.channelsOf(userID)
	if err != nil {
		return false, err
	}
	for id := range theirs {
		if r.channels[id] {
			return true, nil
		}
	}
	return false, nil
}

// visibleOnly keeps the people (by id) Mattermost shows the caller: all of
// them for a caller who may view members, else those restrictions allow.
// It is for people the caller meets in what they read (post authors), whom
// Mattermost names to anyone who can view members at all.
func (c *Caller) visibleOnly(users map[string]*model.User) error {
	r, err := c.restricted()
	if err != nil || r == nil {
		return err
	}
	for id := range users {
		if id == c.userID {
			continue
		}
		ok, err := c.seesRestricted(r, id)
		if err != nil {
			return err
		}
		if !ok {
			delete(users, id)
		}
	}
	return nil
}
