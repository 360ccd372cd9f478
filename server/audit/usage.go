package audit

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
)

// Usage is who used MCP on each day and with which clients, for the admin's
// page: per UTC day, the people spread over usageShards keys by their id,
// each person with the names of the clients they used. A node writes a
// person, client and day at most once (firstToday), so the record costs a
// write per person and client a day, not per call.
type Usage struct {
	KV kvstore.KV

	mu   sync.Mutex
	day  string
	seen map[string]bool
}

const (
	// usageShards spreads a day over keys so that one stays small: at
	// 10,000 people a shard holds about 625 of them, some 40 KiB.
	usageShards = 16
	// maxUsersPerShard bounds a shard (about 130 KiB at the bound): 32,000
	// people a day in all; beyond it a person is counted in Over.
	maxUsersPerShard = 2000
	// maxClientsPerPerson bounds the client names kept for one person a
	// day: a person uses one or two; the rest add nothing to a count.
	maxClientsPerPerson = 8
	// maxSeen bounds this node's memory of what it wrote today: with more
	// distinct people and clients than this it writes some twice, which
	// changes nothing stored.
	maxSeen = 50000
	// usageLifetime keeps a day as long as the admin's page looks back (30
	// days) and a little more; the KV store drops it after.
	usageLifetime = 35 * 24 * time.Hour
	prefixUsage   = "au_u_"
	// maxClientsShown bounds the clients a summary lists, most used first:
	// a page of names, past which the rest are a long tail.
	maxClientsShown = 50
	// unnamedClient stands for a client that sent no name.
	unnamedClient = "(unnamed client)"
)

type usageShard struct {
	V     int                 `json:"v"`
	Users map[string][]string `json:"u"`
	Over  int                 `json:"o,omitempty"`
}

func usageKey(day string, shard int) string { return fmt.Sprintf("%s%s_%02d", prefixUsage, day, shard) }

func shardOf(userID string) int {
	h := fnv.New32a()
	h.Write([]byte(userID))
	return int(h.Sum32() % usageShards)
}

// firstToday is whether this node has not yet noted userID with client on
// now's day, and remembers it.
func (u *Usage) firstToday(now time.Time, userID, client string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	day := Day(now)
	if u.day != day || len(u.seen) >= maxSeen {
		u.day, u.seen = day, map[string]bool{}
	}
	k := userID + "\x00" + client
	if u.seen[k] {
		return false
	}
	u.seen[k] = true
	return true
}

func (u *Usage) note(at time.Time, userID, client string) error {
	if client == "" {
		client = unnamedClient
	}
	userID = cut(userID, maxFieldBytes)
	return kvstore.Update(u.KV, usageKey(Day(at), shardOf(userID)), func(raw []byte) (kvstore.Change, error) {
		s := readShard(raw)
		clients, known := s.Users[userID]
		switch {
		case slices.Contains(clients, client):
			return kvstore.Change{}, kvstore.Unchanged
		case !known && len(s.Users) >= maxUsersPerShard:
			s.Over++
		case len(clients) >= maxClientsPerPerson:
			return kvstore.Change{}, kvstore.Unchanged
		default:
			s.Users[userID] = append(clients, client)
		}
		next, err := json.Marshal(s)
		return kvstore.Change{Value: next, TTL: usageLifetime}, err
	})
}

func readShard(raw []byte) usageShard {
	var s usageShard
	if raw != nil && json.Unmarshal(raw, &s) != nil {
		s = usageShard{}
	}
	if s.Users == nil {
		s.Users = map[string][]string{}
	}
	return s
}

// ClientCount is how many people used a client.
type ClientCount struct {
	Name   string `json:"name"`
	People int    `json:"people"`
}

// UsageSummary is who used MCP over some days.
type UsageSummary struct {
	Days int `json:"days"`
	// People is how many different people used MCP on those days; Clients
	// how many of them used each client, most used first.
	People  int           `json:"people"`
	Clients []ClientCount `json:"clients"`
	// Uncounted is how many uses went past a day's bound and are not in
	// People.
	Uncounted int `json:"uncounted,omitempty"`
}

// Summary counts the people and clients of the days days up to and
// including now's day.
func (u *Usage) Summary(now time.Time, days int) (UsageSummary, error) {
	people := map[string]bool{}
	byClient := map[string]map[string]bool{}
	out := UsageSummary{Days: days}
	for d := range days {
		day := Day(now.AddDate(0, 0, -d))
		for shard := range usageShards {
			raw, err := u.KV.Get(usageKey(day, shard))
			if err != nil {
				return UsageSummary{}, fmt.Errorf("read who used MCP on %s: %w", day, err)
			}
			s := readShard(raw)
			out.Uncounted += s.Over
			for user, clients := range s.Users {
				people[user] = true
				for _, c := range clients {
					if byClient[c] == nil {
						byClient[c] = map[string]bool{}
					}
					byClient[c][user] = true
				}
			}
		}
	}
	out.People = len(people)
	out.Clients = []ClientCount{}
	for name, users := range byClient {
		out.Clients = append(out.Clients, ClientCount{Name: name, People: len(users)})
	}
	sort.Slice(out.Clients, func(i, j int) bool {
		if out.Clients[i].People != out.Clients[j].People {
			return out.Clients[i].People > out.Clients[j].People
		}
		return out.Clients[i].Name < out.Clients[j].Name
	})
	if len(out.Clients) > maxClientsShown {
		out.Clients = out.Clients[:maxClientsShown]
	}
	return out, nil
}
