package mattermost

import (
	"time"
	_ "time/tzdata" // a Mattermost host without a zoneinfo database still shows the person's own time
)

// Location is the caller's time zone from their Mattermost profile (the
// automatic or the manual one, as they chose), UTC when it is unset or
// unknown, as this node read the account within accountFor: a zone just
// changed shows that late in what tools answer.
func (c *Caller) Location() *time.Location {
	u, err := c.Me()
	if err != nil {
		return time.UTC
	}
	return preferredLocation(u.GetPreferredTimezone())
}

// LocationNow is the caller's time zone read from Mattermost now, for the
// person's own pages (the confirmation page and the webapp's modal), which
// show a zone the person just chose as Mattermost's own screens do.
func (c *Caller) LocationNow() *time.Location {
	u, err := c.g.api.User.Get(c.userID)
	if err != nil {
		return time.UTC
	}
	return preferredLocation(u.GetPreferredTimezone())
}

func preferredLocation(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}
