package mattermost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// Changes to what only the caller sees: drafts, saved posts, followed
// threads, read marks and reminders. Every method first checks, as
// everywhere in this package, that the caller can read the channel or post
// (else ErrNotFound), then makes the change as the caller.
//
// The plugin API has no method for drafts, thread membership, viewing a
// channel or post reminders (server/public v0.1.22 plugin/api.go, and the
// server's own app/plugin_api.go, have none of UpsertDraft, DeleteDraft,
// UpdateThreadFollowForUser, ViewChannel or SetPostReminder). Mattermost's
// REST API has all of them, so those go there, as the caller, with the
// token of the very Mattermost session the tool call came with: Mattermost
// then checks them again exactly as for the person's own app. Saved posts
// are preferences, which the plugin API does write.

// ErrTurnedOff is a feature the Mattermost admin has switched off (synced
// drafts, collapsed reply threads).
var ErrTurnedOff = errors.New("turned off on this Mattermost")

// ErrDraftsOff refuses saving or clearing a draft while the admin has turned
// synced drafts off (ServiceSettings.AllowSyncedDrafts), as Mattermost's API
// does (501): drafts then live only in each app.
var ErrDraftsOff = fmt.Errorf("synced drafts are %w (ServiceSettings.AllowSyncedDrafts)", ErrTurnedOff)

// ErrCannotPost is a channel the caller can read but not post in.
var ErrCannotPost = errors.New("the caller cannot post in this channel")

// ErrNoSession is a call that came without a Mattermost session to act
// with, or whose site URL is unset, so the REST API cannot be reached as
// the caller.
var ErrNoSession = errors.New("no Mattermost session or site URL to act as the caller with")

// restTimeout bounds one REST call back to Mattermost: each is a single
// small row write that takes milliseconds; past this Mattermost is in
// trouble and the tool says so rather than holding the request.
const restTimeout = 15 * time.Second

// FlaggedPost is the preference category Mattermost keeps saved posts in.
const FlaggedPost = model.PreferenceCategoryFlaggedPost

// OwnView changes what only the caller sees.
type OwnView struct {
	c *Caller
}

// OwnView is the caller's own view of Mattermost, acted on with the
// Mattermost session the request came with.
func (c *Caller) OwnView() *OwnView { return &OwnView{c: c} }

// rest is Mattermost's REST API as the caller.
func (v *OwnView) rest() (*model.Client4, error) { return v.c.rest() }

// rest is Mattermost's REST API as the caller, with the session the
// request came with: only while it is the caller's and not expired.
func (c *Caller) rest() (*model.Client4, error) {
	site := c.g.SiteURL()
	if c.session == "" || site == "" {
		return nil, ErrNoSession
	}
	s, appErr := c.g.raw.GetSession(c.session)
	if appErr != nil || s == nil || s.IsExpired() || s.UserId != c.userID || s.Token == "" {
		return nil, ErrNoSession
	}
	client := model.NewAPIv4Client(site)
	client.HTTPClient = &http.Client{Timeout: restTimeout}
	client.SetToken(s.Token)
	return client, nil
}

// restErr words a REST answer: what the caller may not touch is not
// found; a feature switched off is ErrTurnedOff; the rest are failures.
func restErr(what string, resp *model.Response, err error) error {
	if err == nil {
		return nil
	}
	if resp != nil {
		switch resp.StatusCode {
		case http.StatusForbidden, http.StatusNotFound:
			return ErrNotFound
		case http.StatusNotImplemented:
			return ErrTurnedOff
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

func closeResponse(what string, r *http.Response, err error) error {
	if r != nil {
		defer r.Body.Close()
	}
	return restErr(what, model.BuildResponse(r), err)
}

// threadIn is the root of the thread a post belongs to, in channelID; a
// post elsewhere is ErrNotFound.
func (v *OwnView) threadIn(channelID, postID string) (string, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return "", err
	}
	if p.ChannelId != channelID {
		return "", ErrNotFound
	}
	if p.RootId != "" {
		return p.RootId, nil
	}
	return p.Id, nil
}

// SaveDraft puts message in the caller's message box of a channel they can
// post in (or of a thread there, rootID being any post of it), replacing
// the draft that was there. The caller sends it themselves.
func (v *OwnView) SaveDraft(ctx context.Context, channelID, rootID, message string) (*model.Draft, error) {
	if !v.c.DraftsSynced() {
		return nil, ErrDraftsOff
	}
	post, _, err := v.c.MayPost(channelID)
	if err != nil {
		return nil, err
	}
	if !post {
		return nil, ErrCannotPost
	}
	if rootID != "" {
		if rootID, err = v.threadIn(channelID, rootID); err != nil {
			return nil, err
		}
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	d, resp, err := client.UpsertDraft(ctx, &model.Draft{UserId: v.c.userID, ChannelId: channelID, RootId: rootID, Message: message})
	if err := restErr("save draft", resp, err); err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteDraft empties the caller's message box of a channel they can read
// (or of a thread there). No draft there is not an error. It answers the
// thread's root id ("" for the channel's own box).
func (v *OwnView) DeleteDraft(ctx context.Context, channelID, rootID string) (string, error) {
	if !v.c.DraftsSynced() {
		return "", ErrDraftsOff
	}
	if _, err := v.c.Channel(channelID); err != nil {
		return "", err
	}
	var err error
	if rootID != "" {
		if rootID, err = v.threadIn(channelID, rootID); err != nil {
			return "", err
		}
	}
	client, err := v.rest()
	if err != nil {
		return "", err
	}
	route := "/users/" + v.c.userID + "/channels/" + channelID + "/drafts"
	if rootID != "" {
		route += "/" + rootID
	}
	r, err := client.DoAPIDelete(ctx, route)
	return rootID, closeResponse("delete draft", r, err)
}

// SavePost saves (flags) a post the caller can read, or takes it out of
// their saved posts.
func (v *OwnView) SavePost(postID string, save bool) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	pref := []model.Preference{{UserId: v.c.userID, Category: FlaggedPost, Name: p.Id, Value: "true"}}
	if save {
		if appErr := v.c.g.raw.UpdatePreferencesForUser(v.c.userID, pref); appErr != nil {
			return nil, fmt.Errorf("save post: %w", appErr)
		}
		return p, nil
	}
	if appErr := v.c.g.raw.DeletePreferencesForUser(v.c.userID, pref); appErr != nil && appErr.StatusCode != http.StatusNotFound {
		return nil, fmt.Errorf("unsave post: %w", appErr)
	}
	return p, nil
}

// FollowThread makes the caller follow, or stop following, the thread of
// a post they can read. It answers the thread's root post.
func (v *OwnView) FollowThread(ctx context.Context, postID string, follow bool) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	if p.RootId != "" {
		if p, err = v.c.Post(p.RootId); err != nil {
			return nil, err
		}
	}
	teamID, err := v.teamOf(p.ChannelId)
	if err != nil {
		return nil, err
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	resp, err := client.UpdateThreadFollowForUser(ctx, v.c.userID, teamID, p.Id, follow)
	if err := restErr("follow thread", resp, err); err != nil {
		return nil, err
	}
	return p, nil
}

// teamOf is the team a channel's threads are kept under: its own, or for a
// direct or group message (which belong to no team) the caller's first.
func (v *OwnView) teamOf(channelID string) (string, error) {
	ch, err := v.c.Channel(channelID)
	if err != nil {
		return "", err
	}
	if ch.TeamId != "" {
		return ch.TeamId, nil
	}
	ms, err := v.c.Teams()
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", ErrNotFound
	}
	return ms[0].Team.Id, nil
}

// MarkChannelRead marks a channel the caller is a member of as viewed by
// them now, as opening it in Mattermost does.
func (v *OwnView) MarkChannelRead(ctx context.Context, channelID string) (*model.Channel, error) {
	ch, err := v.c.Channel(channelID)
	if err != nil {
		return nil, err
	}
	if _, appErr := v.c.g.raw.GetChannelMember(channelID, v.c.userID); appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return nil, ErrNotMember
		}
		return nil, fmt.Errorf("read channel member: %w", appErr)
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	_, resp, err := client.ViewChannel(ctx, v.c.userID, &model.ChannelView{ChannelId: channelID, CollapsedThreadsSupported: true})
	if err := restErr("view channel", resp, err); err != nil {
		return nil, err
	}
	return ch, nil
}

// SetPostReminder has Mattermost remind the caller of a post they can read
// at a time (its system bot sends them a message then). A later reminder
// for the same post replaces this one.
func (v *OwnView) SetPostReminder(ctx context.Context, postID string, at time.Time) (*model.Post, error) {
	p, err := v.c.Post(postID)
	if err != nil {
		return nil, err
	}
	client, err := v.rest()
	if err != nil {
		return nil, err
	}
	resp, err := client.SetPostReminder(ctx, &model.PostReminder{UserId: v.c.userID, PostId: p.Id, TargetTime: at.Unix()})
	if err := restErr("set reminder at "+strconv.FormatInt(at.Unix(), 10), resp, err); err != nil {
		return nil, err
	}
	return p, nil
}
