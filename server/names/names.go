// Package names holds the rules for names a model writes: file names pass
// an allowlist (CheckFile), and what it writes for a channel (a name, a
// display name, "~name", a link) is matched leniently against the real
// names, with the closest ones when nothing matches. Pure functions, no
// Mattermost.
package names

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
)

// Fold is a name as compared: lower case, without a leading ~ or @, and
// without spaces, dashes, underscores and dots, so "Town Square",
// "~town-square" and "town_square" are the same.
func Fold(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "~@")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsSpace(r) || r == '-' || r == '_' || r == '.' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Same reports whether two names fold to the same thing.
func Same(a, b string) bool {
	fa := Fold(a)
	return fa != "" && fa == Fold(b)
}

// Distance is the Levenshtein edit distance between two strings, by runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Candidate is something that can be named several ways (a channel: its
// name and display name).
type Candidate struct {
	Key   string
	Names []string
}

// Closest returns the keys of up to n candidates nearest to query, nearest
// first: a shared prefix or containment counts as close, then edit distance.
// Candidates too far to be a plausible typo are left out.
func Closest(query string, cands []Candidate, n int) []string {
	q := Fold(query)
	if q == "" {
		return nil
	}
	type scored struct {
		key   string
		score int
	}
	var all []scored
	for _, c := range cands {
		best := -1
		for _, name := range c.Names {
			f := Fold(name)
			if f == "" {
				continue
			}
			s := Distance(q, f)
			if strings.HasPrefix(f, q) || strings.HasPrefix(q, f) || strings.Contains(f, q) {
				s = min(s, 1)
			}
			if best < 0 || s < best {
				best = s
			}
		}
		if best >= 0 && best <= max(2, len([]rune(q))/2) {
			all = append(all, scored{c.Key, best})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score < all[j].score })
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].key)
	}
	return out
}

// Link is what a Mattermost URL points at.
type Link struct {
	// Team is the team name from the path ("" for /_redirect links).
	Team string
	// Channel is the channel name of /<team>/channels/<name>.
	Channel string
	// Person is the username of /<team>/messages/@<username>.
	Person string
	// Group is the channel name of /<team>/messages/<group channel name>.
	Group string
	// Post is the post id of /<team>/pl/<id> (a permalink).
	Post string
}

// ParseLink reads a Mattermost channel URL, direct message URL or post
// permalink. Any host and any path prefix (a subpath install) are accepted:
// only the last segments count. ok is false for anything else.
func ParseLink(s string) (Link, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return Link{}, false
	}
	u, err := url.Parse(s)
	if err != nil {
		return Link{}, false
	}
	var segs []string
	for _, p := range strings.Split(u.Path, "/") {
		if p != "" {
			segs = append(segs, p)
		}
	}
	if len(segs) < 3 {
		return Link{}, false
	}
	team, kind, value := segs[len(segs)-3], segs[len(segs)-2], segs[len(segs)-1]
	if team == "_redirect" {
		team = ""
	}
	switch kind {
	case "channels":
		return Link{Team: team, Channel: value}, true
	case "pl":
		return Link{Team: team, Post: value}, true
	case "messages":
		if strings.HasPrefix(value, "@") {
			return Link{Team: team, Person: strings.TrimPrefix(value, "@")}, true
		}
		return Link{Team: team, Group: value}, true
	}
	return Link{}, false
}
