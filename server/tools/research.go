package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/catalogue"
	"github.com/mcp-server/mattermost-plugin-mcp/server/config"
	"github.com/mcp-server/mattermost-plugin-mcp/server/mattermost"
	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// search and fetch: the two tools research hosts use (ChatGPT's deep
// research and company knowledge call nothing else), with the contract
// they expect. Each answers exactly one text item, the JSON of its
// structured result, so a host that parses the text finds what one that
// reads structuredContent finds.

// Bounds of search and fetch.
const (
	// maxResearchResults bounds search's list: a citation list read at a
	// glance, each result fetched on its own after.
	maxResearchResults = 20
	// maxResearchChannels keeps channels, matched only by name, from
	// crowding out the posts and files that say something.
	maxResearchChannels = 5
	// maxResearchQueryRunes bounds the query searched; longer is a
	// paragraph, not a search.
	maxResearchQueryRunes = 500
	// maxQueryWords bounds the words matched against files and names,
	// each a scan.
	maxQueryWords = 8
	// maxChannelWords bounds the words searched among public channels:
	// each one is a search per team.
	maxChannelWords = 3
	// titleRunes is how much of a post's first words a title shows.
	titleRunes = 80
)

// stopWords are words a question is made of that find nothing by
// themselves: a file or channel matched on "the" is noise.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can did do does for from had has have how i if in is it its
		me my no not of on or our so than that the their them then there these they this to was we were what when where which
		who why will with you your about into over after before did any all`) {
		stopWords[w] = true
	}
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"What to look for: words, \"a phrase\", or Mattermost's from:user, in:channel, after:/before:YYYY-MM-DD."`
}

type fetchArgs struct {
	ID string `json:"id" jsonschema:"An id from search's results: post:<id>, file:<id> or channel:<id>."`
}

// SearchResults is search's answer, the contract research hosts read.
type SearchResults struct {
	Results []ResearchResult `json:"results"`
	// Note says what was not searched and why: the kinds whose tool is not
	// offered here, which fetch would refuse. Absent when all was searched.
	Note string `json:"note,omitempty"`
}

// ResearchResult is one thing search found: its id for fetch, a title for
// a citation list, and where a person opens it.
type ResearchResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

func researchTools(d Deps) []catalogue.Tool {
	return []catalogue.Tool{
		catalogue.Define(catalogue.Tool{
			Name:  "search",
			Title: "Search Mattermost",
			Description: "Searches everything you can read in Mattermost: posts (a reply finds its thread), files by name and text, and channels by name; up to 20 results, best and newest first. " +
				"Each result is an id, a title and a link; an id is post:<id>, file:<id> or channel:<id>. Read one in full with fetch(id).",
			Hints: readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
		}, d.search),
		catalogue.Define(catalogue.Tool{
			Name:  "fetch",
			Title: "Fetch a Mattermost post, file or channel",
			Description: "Reads in full what an id of search's results names: a post with its whole thread, a file's text, or a channel's purpose and recent posts; " +
				"with its title, link and facts (channel, team, author, times).",
			Hints: readOnly, Effect: catalogue.ReadsOnly, Toolset: config.ToolsetChannels,
		}, d.fetch),
	}
}

// asJSON is a research answer: its structured result, and the same as the
// one text item's JSON.
func asJSON[Out any](data Out) (catalogue.Result[Out], error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return catalogue.Result[Out]{}, err
	}
	return catalogue.Result[Out]{Text: string(raw), Data: data}, nil
}

// researchHit is a result with what ranks it.
type researchHit struct {
	ResearchResult
	// tier: a match of every word before a match of some; channels,
	// matched by name only, after the posts and files of their tier.
	tier int
	at   int64
}

const (
	tierAllWords = iota
	tierNamedChannel
	tierSomeWords
	tierSomeNamedChannel
)

// researchFound gathers a search's hits, each thing once, at its best tier.
type researchFound struct {
	hits map[string]researchHit
}

func (f *researchFound) add(h researchHit) {
	if old, ok := f.hits[h.ID]; ok && (old.tier < h.tier || old.tier == h.tier && old.at >= h.at) {
		return
	}
	f.hits[h.ID] = h
}

func (f *researchFound) count(tier int) int {
	n := 0
	for _, h := range f.hits {
		if h.tier <= tier {
			n++
		}
	}
	return n
}

// ranked is the hits best first, then newest first, at most
// maxResearchResults, with no more than maxResearchChannels channels.
func (f *researchFound) ranked() SearchResults {
	all := make([]researchHit, 0, len(f.hits))
	for _, h := range f.hits {
		all = append(all, h)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].tier != all[j].tier {
			return all[i].tier < all[j].tier
		}
		if all[i].at != all[j].at {
			return all[i].at > all[j].at
		}
		return all[i].ID < all[j].ID
	})
	out := SearchResults{Results: []ResearchResult{}}
	channels := 0
	for _, h := range all {
		if len(out.Results) == maxResearchResults {
			break
		}
		if strings.HasPrefix(h.ID, string(researchChannel)+":") {
			if channels == maxResearchChannels {
				continue
			}
			channels++
		}
		out.Results = append(out.Results, h.ResearchResult)
	}
	return out
}

// queryWords are the plain words of a query, lower case, for matching
// files and names: Mattermost's operators (from:, in:, -excluded) and
// stop words left out, a prefix's * dropped.
func queryWords(q string) []string {
	var words []string
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == ',' || r == ';' || r == '?' || r == '!' || r == '(' || r == ')'
	}) {
		if strings.Contains(f, ":") || strings.HasPrefix(f, "-") {
			continue
		}
		f = strings.Trim(f, "*.#~@'")
		if len([]rune(f)) < 2 || stopWords[f] || slices.Contains(words, f) {
			continue
		}
		words = append(words, f)
		if len(words) == maxQueryWords {
			break
		}
	}
	return words
}

// plainQuery is a query of words alone, which may be searched again
// matching any one of them.
func plainQuery(q string) bool {
	return !strings.ContainsAny(q, `":*`) && !strings.Contains(" "+q, " -")
}

// holdsEvery reports whether text (lower case) holds every word.
func holdsEvery(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return len(words) > 0
}

func (d Deps) search(ctx context.Context, args searchArgs) (res catalogue.Result[SearchResults], err error) {
	q := strings.TrimSpace(args.Query)
	if q == "" {
		return res, refusal.New("Give query: the words to look for.", "Call search(query=\"release plan\"), for example.")
	}
	q, _ = present.Cut(q, maxResearchQueryRunes)
	ct, err := d.citer(ctx)
	if err != nil {
		return res, err
	}
	// Every channel at once: the hits cite many, and their names are
	// matched.
	if _, err := ct.mine(); err != nil {
		return res, err
	}
	// Only the kinds the person could then fetch are searched (a kind
	// needs what its tool needs), and the answer says once what was not.
	var notes []string
	searched := map[researchKind]bool{}
	for _, k := range researchKinds {
		if why := d.kindWithheld(ctx, k); why != "" {
			notes = append(notes, fmt.Sprintf("%ss were not searched: %s.", strings.ToUpper(string(k[:1]))+string(k[1:]), why))
			continue
		}
		searched[k] = true
	}
	words := queryWords(q)
	found := &researchFound{hits: map[string]researchHit{}}
	if searched[researchPost] {
		if err := d.searchResearchPosts(ct, q, words, found); err != nil {
			return res, err
		}
	}
	if searched[researchFile] && len(words) > 0 {
		if err := searchResearchFiles(ct, words, found); err != nil {
			return res, err
		}
	}
	if searched[researchChannel] {
		if err := searchResearchChannels(ct, words, found); err != nil {
			return res, err
		}
	}
	out := found.ranked()
	out.Note = strings.Join(notes, " ")
	return asJSON(out)
}

// searchResearchPosts finds the posts matching every word with
// Mattermost's search, then, when that finds too few, any word. A reply
// stands for its thread.
func (d Deps) searchResearchPosts(ct *citer, q string, words []string, found *researchFound) error {
	for _, m := range ct.teams {
		hits, err := ct.c.SearchPosts(m.Team.Id, q, 0, maxResearchResults)
		if err != nil {
			return err
		}
		if err := ct.addPosts(hits, tierAllWords, found); err != nil {
			return err
		}
	}
	if found.count(tierAllWords) >= maxResearchResults || len(words) < 2 || !plainQuery(q) {
		return nil
	}
	for _, m := range ct.teams {
		hits, err := ct.c.SearchPostsAnyTerm(m.Team.Id, strings.Join(words, " "), maxResearchResults)
		if err != nil {
			return err
		}
		if err := ct.addPosts(hits, tierSomeWords, found); err != nil {
			return err
		}
	}
	return nil
}

// searchResearchFiles finds the files whose name or text holds every word,
// then, when that finds too few, any word, with Mattermost's full-text
// indexes (mattermost.SearchFiles).
func searchResearchFiles(ct *citer, words []string, found *researchFound) error {
	tiers := []struct {
		any  bool
		tier int
	}{{false, tierAllWords}, {true, tierSomeWords}}
	for _, t := range tiers {
		if t.any && (len(words) < 2 || found.count(tierAllWords) >= maxResearchResults) {
			break
		}
		files, err := ct.c.SearchFiles(mattermost.FileQuery{Words: words, AnyWord: t.any, Limit: maxResearchResults})
		if err != nil {
			return searchRefusal(err)
		}
		for _, f := range files.Files {
			v, err := ct.place(f.ChannelId)
			if errors.Is(err, mattermost.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			found.add(researchHit{tier: t.tier, at: f.CreateAt, ResearchResult: ResearchResult{
				ID:    researchID{kind: researchFile, id: f.Id}.String(),
				Title: fileTitle(f.Name, ct.where(v), f.CreateAt),
				URL:   present.Permalink(ct.c.SiteURL(), v.teamName(), f.PostId),
			}})
		}
	}
	return nil
}

// searchResearchChannels finds the channels named by the words: the
// person's own (private ones, direct and group messages too), and their
// teams' public channels.
func searchResearchChannels(ct *citer, words []string, found *researchFound) error {
	if len(words) == 0 {
		return nil
	}
	folded := foldAll(words)
	addChannel := func(v place) {
		name := names.Fold(v.ch.Name + " " + v.name())
		tier := tierSomeNamedChannel
		if holdsEvery(name, folded) {
			tier = tierNamedChannel
		}
		found.add(researchHit{tier: tier, at: v.ch.LastPostAt, ResearchResult: ResearchResult{
			ID: researchID{kind: researchChannel, id: v.ch.Id}.String(), Title: channelTitle(v, ct.where(v)), URL: ct.channelURL(v),
		}})
	}
	mine, err := ct.mine()
	if err != nil {
		return err
	}
	for _, v := range mine {
		name := names.Fold(v.ch.Name + " " + v.name())
		for _, w := range folded {
			if strings.Contains(name, w) {
				addChannel(v)
				break
			}
		}
	}
	for i, w := range words {
		if i == maxChannelWords {
			break
		}
		if len([]rune(w)) < 3 {
			continue
		}
		for _, m := range ct.teams {
			public, err := ct.c.SearchPublicChannels(m.Team.Id, w)
			if err != nil && !errors.Is(err, mattermost.ErrNotFound) {
				return err
			}
			for _, ch := range public {
				addChannel(place{ch: ch, team: m.Team})
			}
		}
	}
	return nil
}

func foldAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = names.Fold(w)
	}
	return out
}

// citer names what search and fetch cite, reading each channel, team and
// author once. A search reads all the person's channels at once (it
// matches their names); a fetch reads only the channels it cites.
type citer struct {
	c       *mattermost.Caller
	teams   []mattermost.Membership
	places  map[string]place
	authors map[string]string
	// allMine is set once every channel of the person's is in places.
	allMine bool
}

// citer is the caller's citer.
func (d Deps) citer(ctx context.Context) (*citer, error) {
	c, err := d.caller(ctx)
	if err != nil {
		return nil, err
	}
	teams, err := c.Teams()
	if err != nil {
		return nil, err
	}
	return &citer{c: c, teams: teams, places: map[string]place{}, authors: map[string]string{}}, nil
}

// mine is every channel the person is in, as places.
func (ct *citer) mine() ([]place, error) {
	if !ct.allMine {
		all, err := ct.c.MyChannels()
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			ct.places[m.Channel.Id] = placeOfMine(m)
		}
		ct.allMine = true
	}
	var out []place
	for _, v := range ct.places {
		if v.member != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// place is a channel the person can read, as a place: with their
// membership when they are in it.
func (ct *citer) place(channelID string) (place, error) {
	if v, ok := ct.places[channelID]; ok {
		return v, nil
	}
	ch, err := ct.c.Channel(channelID)
	if err != nil {
		return place{}, err
	}
	v := placeOf(ct.c, ch)
	if !ct.allMine {
		m, ok, err := ct.c.MyChannel(ch)
		if err != nil {
			return place{}, err
		}
		if ok {
			v = placeOfMine(m)
		}
	}
	ct.places[channelID] = v
	return v, nil
}

// author is a post's author as @username, or "someone" for one the person
// may not see.
func (ct *citer) author(userID string) string {
	if a, ok := ct.authors[userID]; ok {
		return a
	}
	a := "someone"
	if u, err := ct.c.Poster(userID); err == nil {
		a = "@" + u.Username
	}
	ct.authors[userID] = a
	return a
}

// where is a channel in a citation: ~name, or the people of a direct or
// group message.
func (ct *citer) where(v place) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		return "direct message with " + v.partner(ct.c)
	case model.ChannelTypeGroup:
		return "group message with " + v.groupOthers(ct.c)
	}
	return "~" + v.ch.Name
}

// channelURL is where a person opens a channel: a direct or group message
// opens under any of their teams.
func (ct *citer) channelURL(v place) string {
	site := strings.TrimRight(ct.c.SiteURL(), "/")
	team := v.teamName()
	if team == "" && len(ct.teams) > 0 {
		team = ct.teams[0].Team.Name
	}
	if team == "" {
		return site
	}
	switch v.ch.Type {
	case model.ChannelTypeDirect:
		if other := v.partner(ct.c); strings.HasPrefix(other, "@") {
			return site + "/" + team + "/messages/" + other
		}
		return site
	case model.ChannelTypeGroup:
		return site + "/" + team + "/messages/" + v.ch.Name
	}
	return site + "/" + team + "/channels/" + v.ch.Name
}

// addPosts adds post hits at tier, each reply as its thread's root.
func (ct *citer) addPosts(hits []*model.Post, tier int, found *researchFound) error {
	for _, p := range hits {
		root := p
		if p.RootId != "" {
			r, err := ct.c.Post(p.RootId)
			switch {
			case err == nil:
				root = r
			case !errors.Is(err, mattermost.ErrNotFound):
				return err
			}
		}
		v, err := ct.place(root.ChannelId)
		if errors.Is(err, mattermost.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		found.add(researchHit{tier: tier, at: p.CreateAt, ResearchResult: ResearchResult{
			ID:    researchID{kind: researchPost, id: root.Id}.String(),
			Title: postTitle(root.Message, ct.where(v), ct.author(root.UserId), root.CreateAt),
			URL:   present.Permalink(ct.c.SiteURL(), v.teamName(), root.Id),
		}})
	}
	return nil
}

// postTitle is a post in a citation list: its first words, where, who and
// when.
func postTitle(message, where, author string, at int64) string {
	words := strings.Join(strings.Fields(message), " ")
	if cut, was := present.Cut(words, titleRunes); was {
		words = strings.TrimSpace(cut) + "…"
	}
	if words == "" {
		words = "(no text)"
	}
	return present.Name(words) + " (" + present.Name(where) + ", " + author + ", " + day(at) + ")"
}

// fileTitle is a file in a citation list: its name, where and when.
func fileTitle(name, where string, at int64) string {
	return present.Name(name) + " (file in " + present.Name(where) + ", " + day(at) + ")"
}

// channelTitle is a channel in a citation list: its display name and where.
func channelTitle(v place, where string) string {
	switch v.ch.Type {
	case model.ChannelTypeDirect, model.ChannelTypeGroup:
		return present.Name(where)
	}
	t := present.Name(v.ch.DisplayName) + " (" + channelType(v.ch.Type) + " channel " + present.Name(where)
	if v.team != nil {
		t += " of team " + present.Name(v.team.DisplayName)
	}
	return t + ")"
}

func day(ms int64) string {
	if ms == 0 {
		return "undated"
	}
	return rfc3339(ms)[:len("2006-01-02")]
}
