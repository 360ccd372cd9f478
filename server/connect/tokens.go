package connect

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

const (
	tokensKeyPrefix = "connect_tokens_"
	// MaxTokensRemembered bounds the tokens made here that one person's
	// record keeps: one per client set up is a handful; past it the oldest
	// is forgotten (it stays valid, and Disconnect then ends its session
	// instead of revoking it).
	MaxTokensRemembered = 50
)

// madeToken is a personal access token made here.
type madeToken struct {
	ID string `json:"id"`
	At int64  `json:"at"`
}

// madeTokens remembers, per person, which tokens were made here.
type madeTokens struct {
	kv  kvstore.KV
	now func() time.Time
}

func (m madeTokens) list(userID string) ([]madeToken, error) {
	raw, err := m.kv.Get(tokensKeyPrefix + userID)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	var out []madeToken
	if json.Unmarshal(raw, &out) != nil {
		return nil, nil
	}
	return out, nil
}

func (m madeTokens) change(userID string, apply func([]madeToken) []madeToken) error {
	return kvstore.List[madeToken]{KV: m.kv, Key: tokensKeyPrefix + userID}.Update(func(list []madeToken) ([]madeToken, error) {
		return apply(list), nil
	})
}

func (m madeTokens) remember(userID, id string) error {
	at := m.now().UnixMilli()
	return m.change(userID, func(list []madeToken) []madeToken {
		list = append(list, madeToken{ID: id, At: at})
		if len(list) > MaxTokensRemembered {
			list = list[len(list)-MaxTokensRemembered:]
		}
		return list
	})
}

func (m madeTokens) forget(userID, id string) error {
	return m.change(userID, func(list []madeToken) []madeToken {
		return slices.DeleteFunc(list, func(t madeToken) bool { return t.ID == id })
	})
}
