package harness

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// What Team Edition refuses through its API without a licence (demoting a
// user to guest, custom groups) but reads and honours once it is stored:
// these store it straight in the database, then have every node drop its
// caches so that Mattermost reads it.

// MakeGuest turns an ordinary user into a guest account (the role
// system_guest), as demoting them in the System Console does with a
// licence.
func (s *Server) MakeGuest(ctx context.Context, userID string) error {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE users SET roles = $2, updateat = $3 WHERE id = $1`,
		userID, model.SystemGuestRoleId, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("make guest: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("make guest: %d users match %s", n, userID)
	}
	return s.InvalidateCaches()
}

// CreateGroup creates a custom group named name (as it is mentioned,
// without @) whose members are memberIDs, and returns its id.
func (s *Server) CreateGroup(ctx context.Context, name string, memberIDs ...string) (string, error) {
	db, err := sql.Open("postgres", s.pg.dsn())
	if err != nil {
		return "", err
	}
	defer db.Close()
	id, now := model.NewId(), time.Now().UnixMilli()
	if _, err := db.ExecContext(ctx, `INSERT INTO usergroups (id, name, displayname, description, source, remoteid, createat, updateat, deleteat, allowreference)
		VALUES ($1, $2, $3, '', $4, NULL, $5, $5, 0, true)`, id, name, "Group "+name, string(model.GroupSourceCustom), now); err != nil {
		return "", fmt.Errorf("create group %s: %w", name, err)
	}
	for _, u := range memberIDs {
		if _, err := db.ExecContext(ctx, `INSERT INTO groupmembers (groupid, userid, createat, deleteat) VALUES ($1, $2, $3, 0)`, id, u, now); err != nil {
			return "", fmt.Errorf("add %s to group %s: %w", u, name, err)
		}
	}
	return id, s.InvalidateCaches()
}

// InvalidateCaches has every node drop its caches (POST
// /api/v4/caches/invalidate as the system admin): without a licence the
// nodes tell each other nothing, so each is asked.
func (s *Server) InvalidateCaches() error {
	for _, n := range s.nodes() {
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		resp, err := ClientAt(n.url, s.Admin).InvalidateCaches(ctx)
		cancel()
		if err != nil {
			return apiError("invalidate caches on "+n.name, resp, err)
		}
	}
	return nil
}
