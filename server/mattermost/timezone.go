package mattermost

import (
	"time"
	_ "time/tzdata" // a Mattermost host without a zoneinfo database still shows the person's own time
)

// Location is the caller's time zone from their Mattermost profile (the
// automatic or the manual one, as they chose), UTC when it is unset or
// unknown.
func (c *Caller) Location() *time.Location {
	u, err := c.Me()
	if err != nil {
		return time.UTC
	}
	name := u.GetPreferredTimezone()
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}
