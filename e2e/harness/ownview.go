package harness

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	_ "github.com/lib/pq" // PostgreSQL driver for reading back what Mattermost stored
)

// PostReminder is when Mattermost will remind a user of a post (Unix
// seconds), straight from its PostReminders table: the REST API sets
// reminders but has no route that reads them back. found is false when
// there is none.
func (s *Server) PostReminder(ctx context.Context, userID, postID string) (targetTime int64, found bool, err error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return 0, false, err
	}
	defer db.Close()
	err = db.QueryRowContext(ctx, `SELECT targettime FROM postreminders WHERE userid = $1 AND postid = $2`, userID, postID).Scan(&targetTime)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read post reminder: %w", err)
	}
	return targetTime, true, nil
}

// ThreadMembership is whether a user has a membership of a thread, and
// follows it, straight from the ThreadMemberships table: the REST API
// answers "forbidden" about threads of channels the user cannot read,
// which says nothing about whether a membership was written anyway.
func (s *Server) ThreadMembership(ctx context.Context, userID, rootID string) (member, following bool, err error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return false, false, err
	}
	defer db.Close()
	err = db.QueryRowContext(ctx, `SELECT following FROM threadmemberships WHERE userid = $1 AND postid = $2`, userID, rootID).Scan(&following)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read thread membership: %w", err)
	}
	return true, following, nil
}
