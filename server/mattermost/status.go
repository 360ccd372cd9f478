package mattermost

import (
	"errors"
	"fmt"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// Presence is what Mattermost shows of a person's availability.
type Presence struct {
	User *model.User
	// Status is online, away, dnd or offline (offline for someone who has
	// never been seen).
	Status string
	// Manual is a status the person set themselves.
	Manual bool
	// LastActivity is their last activity, zero when unknown.
	LastActivity time.Time
	// DNDEnd is when a timed do-not-disturb ends, zero when it does not.
	DNDEnd time.Time
	// Custom is their custom status; nil when they have none, it expired,
	// or the server turned custom statuses off.
	Custom *model.CustomStatus
}

// Presences finds each person refs names (id, @username or email) that the
// caller can see, with their presence; missing are the refs that named
// nobody the caller can see, in order.
func (c *Caller) Presences(refs []string) (found []Presence, missing []string, err error) {
	var ids []string
	seen := map[string]bool{}
	for _, ref := range refs {
		u, err := c.User(ref)
		if errors.Is(err, ErrNotFound) {
			missing = append(missing, ref)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if seen[u.Id] {
			continue
		}
		seen[u.Id] = true
		ids = append(ids, u.Id)
		found = append(found, Presence{User: u, Status: model.StatusOffline})
	}
	if len(ids) == 0 {
		return found, missing, nil
	}
	statuses, appErr := c.g.raw.GetUserStatusesByIds(ids)
	if appErr != nil && !isNotFound(appErr) {
		return nil, nil, fmt.Errorf("read statuses: %w", appErr)
	}
	byID := make(map[string]*model.Status, len(statuses))
	for _, s := range statuses {
		byID[s.UserId] = s
	}
	customOn := c.CustomStatusesOn()
	now := time.Now()
	for i := range found {
		p := &found[i]
		if s := byID[p.User.Id]; s != nil {
			p.Status, p.Manual = s.Status, s.Manual
			if s.LastActivityAt > 0 {
				p.LastActivity = time.UnixMilli(s.LastActivityAt).UTC()
			}
			if s.Status == model.StatusDnd && s.DNDEndTime > 0 {
				// DNDEndTime is in seconds, unlike Mattermost's other times.
				p.DNDEnd = time.Unix(s.DNDEndTime, 0).UTC()
			}
		}
		if cs := p.User.GetCustomStatus(); customOn && cs != nil && (cs.Text != "" || cs.Emoji != "") &&
			(cs.ExpiresAt.IsZero() || cs.ExpiresAt.After(now)) {
			p.Custom = cs
		}
	}
	return found, missing, nil
}

// CustomStatusesOn is TeamSettings.EnableCustomUserStatuses: while it is
// off Mattermost's apps show nobody's custom status and its API sets none.
func (c *Caller) CustomStatusesOn() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.TeamSettings.EnableCustomUserStatuses })
}

// SetAvailability sets the caller's status: online, away, offline, or do
// not disturb (until a time when until is set).
func (c *Caller) SetAvailability(status string, until time.Time) error {
	var appErr *model.AppError
	if status == model.StatusDnd && !until.IsZero() {
		_, appErr = c.g.raw.SetUserStatusTimedDND(c.userID, until.Unix())
	} else {
		_, appErr = c.g.raw.UpdateUserStatus(c.userID, status)
	}
	if appErr != nil {
		return fmt.Errorf("set status: %w", appErr)
	}
	return nil
}

// ErrCustomStatusesOff refuses setting or clearing a custom status while the
// admin has turned custom statuses off, as Mattermost's own API does (501):
// the plugin API would set one regardless.
var ErrCustomStatusesOff = fmt.Errorf("custom statuses are %w (TeamSettings.EnableCustomUserStatuses)", ErrTurnedOff)

// SetCustomStatus sets the caller's custom status (text and emoji, cleared
// at expires when set); a nil status removes it.
func (c *Caller) SetCustomStatus(cs *model.CustomStatus) error {
	if !c.CustomStatusesOn() {
		return ErrCustomStatusesOff
	}
	var appErr *model.AppError
	if cs == nil {
		appErr = c.g.raw.RemoveUserCustomStatus(c.userID)
	} else {
		appErr = c.g.raw.UpdateUserCustomStatus(c.userID, cs)
	}
	if appErr != nil {
		return fmt.Errorf("set custom status: %w", appErr)
	}
	return nil
}
