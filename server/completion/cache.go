package completion

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/mattermost/mattermost/server/public/model"

	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
)

const (
	// cacheFor is how long a person's channels and recent files are reused
	// while they type: a client asks again on every keystroke, and a channel
	// joined or a file posted a few seconds ago may wait that long to
	// complete (reading it is checked anew anyway).
	cacheFor = 30 * time.Second
	// maxCachedPeople bounds the cache: people typing at once on one node;
	// past it the stalest entry makes room.
	maxCachedPeople = 500
	// recentFiles is how many of the person's newest files complete a file
	// with no channel given: one answer's worth.
	recentFiles = MaxValues
)

// channelEntry is what a channel completes by.
type channelEntry struct {
	id, name, display, team, teamDisplay string
	// direct is a direct or group message, which has no team.
	direct bool
	// other is a direct message's other person's username.
	other string
	// lower is name and display in lower case, matched on every keystroke.
	lower [2]string
}

// fileEntry is what a file completes by.
type fileEntry struct {
	id, name string
}

type personEntry struct {
	at       time.Time
	channels []channelEntry
	files    []fileEntry
	// filesAt is when files were read (zero: not yet).
	filesAt time.Time
}

// cache keeps each person's channels and recent files for cacheFor; its
// keys are the person's user id, so nobody is answered from another's.
type cache struct {
	mu     sync.Mutex
	people map[string]*personEntry
}

func (k *cache) get(userID string, now time.Time) *personEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.people[userID]
	if e == nil || now.Sub(e.at) >= cacheFor {
		return nil
	}
	return e
}

// Forget drops what is cached of a person whose channels changed: the next
// keystroke reads them again.
func (p *Provider) Forget(userID string) {
	p.cache.mu.Lock()
	defer p.cache.mu.Unlock()
	delete(p.cache.people, userID)
}

func (k *cache) put(userID string, e *personEntry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.people == nil {
		k.people = map[string]*personEntry{}
	}
	if _, ok := k.people[userID]; !ok && len(k.people) >= maxCachedPeople {
		stalest := ""
		for id, other := range k.people {
			if stalest == "" || other.at.Before(k.people[stalest].at) {
				stalest = id
			}
		}
		delete(k.people, stalest)
	}
	k.people[userID] = e
}

// person is the caller's cached entry, or a fresh one with their channels.
func (p *Provider) person(c *mattermost.Caller) (*personEntry, error) {
	now := p.clock()
	if e := p.cache.get(c.UserID(), now); e != nil {
		return e, nil
	}
	mine, err := c.MyChannels()
	if err != nil {
		return nil, err
	}
	e := &personEntry{at: now, channels: make([]channelEntry, 0, len(mine))}
	for _, m := range mine {
		ce := channelEntry{id: m.Channel.Id, name: m.Channel.Name, display: m.Channel.DisplayName,
			lower: [2]string{strings.ToLower(m.Channel.Name), strings.ToLower(m.Channel.DisplayName)}}
		switch {
		case m.Team != nil:
			ce.team, ce.teamDisplay = m.Team.Name, m.Team.DisplayName
		case m.Channel.Type == model.ChannelTypeDirect && m.Other != nil:
			ce.direct, ce.other = true, m.Other.Username
		default:
			ce.direct = true
		}
		e.channels = append(e.channels, ce)
	}
	p.cache.put(c.UserID(), e)
	return e, nil
}

// channels are the names of the caller's channels that start (name or
// display name) with typed, newest post first, in the team given if any;
// withDirect adds direct messages as @username.
func (p *Provider) channels(c *mattermost.Caller, typed, team string, withDirect bool) ([]string, error) {
	e, err := p.person(c)
	if err != nil {
		return nil, err
	}
	team = strings.ToLower(strings.TrimSpace(team))
	var out []string
	for _, ch := range e.channels {
		switch {
		case ch.direct:
			if withDirect && team == "" && ch.other != "" && starts(typed, ch.other) {
				out = append(out, "@"+ch.other)
			}
		case team != "" && !strings.EqualFold(ch.team, team) && !strings.EqualFold(ch.teamDisplay, team):
		case strings.HasPrefix(ch.lower[0], typed) || strings.HasPrefix(ch.lower[1], typed):
			out = append(out, ch.name)
		}
	}
	return distinct(out), nil
}

// channelID is the id of the channel named name (in team, if given) that
// the caller can read, or "": from their cached channels, else (a channel
// joined or created since, or a public one they can read) asked of
// Mattermost by name in each of their teams that fits.
func (p *Provider) channelID(c *mattermost.Caller, name, team string) (string, error) {
	e, err := p.person(c)
	if err != nil {
		return "", err
	}
	name = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "~")
	for _, ch := range e.channels {
		if ch.direct || (team != "" && !strings.EqualFold(ch.team, team)) {
			continue
		}
		if ch.id == name || strings.EqualFold(ch.name, name) {
			return ch.id, nil
		}
	}
	mine, err := c.Teams()
	if err != nil {
		return "", err
	}
	for _, m := range mine {
		if team != "" && !strings.EqualFold(m.Team.Name, team) {
			continue
		}
		ch, err := c.ChannelByName(m.Team.Id, name)
		if errors.Is(err, mattermost.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		return ch.Id, nil
	}
	return "", nil
}

// recent are the caller's newest files, cached with their channels.
func (p *Provider) recent(c *mattermost.Caller) ([]fileEntry, error) {
	e, err := p.person(c)
	if err != nil {
		return nil, err
	}
	p.cache.mu.Lock()
	files, read := e.files, !e.filesAt.IsZero()
	p.cache.mu.Unlock()
	if read {
		return files, nil
	}
	found, err := c.SearchFiles(mattermost.FileQuery{Limit: recentFiles})
	if err != nil {
		return nil, err
	}
	files = entries(found.Files)
	p.cache.mu.Lock()
	e.files, e.filesAt = files, p.clock()
	p.cache.mu.Unlock()
	return files, nil
}

func entries(found []*model.FileInfo) []fileEntry {
	out := make([]fileEntry, 0, len(found))
	for _, f := range found {
		out = append(out, fileEntry{id: f.Id, name: f.Name})
	}
	return out
}

// files are the ids of the files whose name (or id) starts with typed: in
// the channel the context names (channel, and team where given), else
// among the caller's recent files.
func (p *Provider) files(c *mattermost.Caller, typed string, context map[string]string) ([]string, error) {
	var list []fileEntry
	if name := context["channel"]; name != "" {
		id, err := p.channelID(c, name, context["team"])
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, nil
		}
		found, err := c.SearchFiles(mattermost.FileQuery{ChannelID: id, Limit: MaxValues})
		if err != nil {
			return nil, err
		}
		list = entries(found.Files)
	} else {
		var err error
		if list, err = p.recent(c); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, f := range list {
		if starts(typed, f.name, f.id) {
			out = append(out, f.id)
		}
	}
	return out, nil
}

// fileNames are the names of the caller's recent files starting with typed.
func (p *Provider) fileNames(c *mattermost.Caller, typed string) ([]string, error) {
	list, err := p.recent(c)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range list {
		if starts(typed, f.name) {
			out = append(out, f.name)
		}
	}
	return distinct(out), nil
}
