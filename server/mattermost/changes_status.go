package mattermost

import (
	"fmt"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

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
