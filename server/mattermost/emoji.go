package mattermost

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/pluginapi"
)

// The plugin API lists custom emoji only page by page (GetEmojiList), with
// no search; a name prefix is looked up in Mattermost's Emoji table instead,
// in name order, so a page continues after the last name shown.

// EmojiName is what a custom emoji name may hold (Mattermost's own rule).
var EmojiName = regexp.MustCompile(`^[a-zA-Z0-9_+-]*$`)

// CustomEmojiOn reports whether the server allows custom emoji
// (ServiceSettings.EnableCustomEmoji).
func (c *Caller) CustomEmojiOn() bool {
	return c.g.setting(func(cfg *model.Config) *bool { return cfg.ServiceSettings.EnableCustomEmoji })
}

// Emoji is a custom emoji.
type Emoji struct {
	ID, Name string
	Created  time.Time
}

// CustomEmoji are up to n custom emoji whose name starts with prefix, in
// name order, after the name after ("" from the start). More reports that
// others follow.
func (c *Caller) CustomEmoji(prefix, after string, n int) (list []Emoji, more bool, err error) {
	if !EmojiName.MatchString(prefix) || !EmojiName.MatchString(after) {
		return nil, false, ErrNotFound
	}
	p, err := placeholders(c.g.driverName(), 2)
	if err != nil {
		return nil, false, err
	}
	like := strings.NewReplacer(`_`, `\_`).Replace(strings.ToLower(prefix)) + "%"
	query := "SELECT Id, Name, CreateAt FROM Emoji WHERE DeleteAt = 0 AND Name LIKE " + p[0] + " AND Name > " + p[1] +
		fmt.Sprintf(" ORDER BY Name LIMIT %d", n+1)
	db, err := c.g.api.Store.GetReplicaDB()
	if err != nil {
		return nil, false, fmt.Errorf("database: %w", err)
	}
	err = queryRows(db, query, []any{like, after}, 3, func(scan func(...any) error) error {
		var e Emoji
		var at int64
		if err := scan(&e.ID, &e.Name, &at); err != nil {
			return err
		}
		e.Created = time.UnixMilli(at).UTC()
		list = append(list, e)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("list custom emoji: %w", err)
	}
	if len(list) > n {
		return list[:n], true, nil
	}
	return list, false, nil
}

// EmojiExists reports whether an emoji of this name exists on the server,
// as Mattermost decides when a reaction or custom status uses it: a
// standard (system) emoji, or a custom emoji while custom emoji are on.
func (c *Caller) EmojiExists(name string) (bool, error) {
	if model.IsSystemEmojiName(name) {
		return true, nil
	}
	if !c.CustomEmojiOn() || !EmojiName.MatchString(name) {
		return false, nil
	}
	_, err := c.g.api.Emoji.GetByName(name)
	switch {
	case errors.Is(err, pluginapi.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("look up emoji: %w", err)
	}
	return true, nil
}
