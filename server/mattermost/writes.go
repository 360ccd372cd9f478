package mattermost

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// Writes, here and in each family's file (posts.go, channels.go,
// members.go, status.go, drafts.go, threads.go): every method acts as the
// caller and checks what Mattermost would check for them, because the
// plugin API itself checks nothing. A channel or post the caller cannot read
// is ErrNotFound. This file holds what they share: the notices to the
// person's open Mattermost, and the REST client of the own-view changes.
//
// There is no way in the plugin API to delete a file once it is uploaded
// (see uploads.go). The posting pipeline therefore validates everything
// first and uploads last, right before creating the post.

// NotifyPending tells the caller's open Mattermost clients (and only
// theirs) that a write waits for their answer. The webapp listens for
// custom_<plugin id>_pending_confirmation.
func (c *Caller) NotifyPending(id, title string) {
	c.g.raw.PublishWebSocketEvent("pending_confirmation",
		map[string]any{"confirmations": []any{map[string]any{"id": id, "title": title}}},
		&model.WebsocketBroadcast{UserId: c.userID})
}

// NotifyAnswered tells the caller's open Mattermost clients (and only
// theirs) that a pending post was answered, so every tab drops or updates
// it. The webapp listens for custom_<plugin id>_confirmation_answered.
func (c *Caller) NotifyAnswered(id, state string) {
	c.g.raw.PublishWebSocketEvent("confirmation_answered", map[string]any{"id": id, "state": state},
		&model.WebsocketBroadcast{UserId: c.userID})
}

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
