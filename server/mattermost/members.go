package mattermost

import (
	"fmt"
	"net/http"
	"strings"
)

// UserIDByUsername is the id of the active account with this username, or
// "" when there is none, whether or not the caller can see it: a mention of
// it notifies all the same. Only the pipeline reads the id; nobody is shown
// it.
func (c *Caller) UserIDByUsername(name string) (string, error) {
	u, appErr := c.g.raw.GetUserByUsername(strings.ToLower(strings.TrimPrefix(name, "@")))
	if appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return "", nil
		}
		return "", fmt.Errorf("read user: %w", appErr)
	}
	if u.DeleteAt != 0 {
		return "", nil
	}
	return u.Id, nil
}

// IsChannelMember reports whether a user is a member of a channel the caller
// can read: Mattermost notifies a mention only of the channel's members.
func (c *Caller) IsChannelMember(channelID, userID string) (bool, error) {
	if _, err := c.Channel(channelID); err != nil {
		return false, err
	}
	m, appErr := c.g.raw.GetChannelMember(channelID, userID)
	if appErr != nil {
		if appErr.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, fmt.Errorf("read channel member: %w", appErr)
	}
	return m != nil, nil
}
