package tools

import (
	"fmt"
	"strings"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mcp-server/mattermost-plugin-mcp/server/paths"
	"github.com/mcp-server/mattermost-plugin-mcp/server/present"
	"github.com/mcp-server/mattermost-plugin-mcp/server/refusal"
)

// The ids search gives and fetch takes. An id is what it names and
// Mattermost's own id of it, "post:<id>", "file:<id>" or "channel:<id>":
// fetch knows where to look without a lookup, the id stays valid as long
// as the thing itself (a citation made today still opens next month), and
// it carries no secret: fetch checks the person's access on every call, so
// a guessed or copied id gives nothing the person cannot read anyway.

// researchKind is what a research id names.
type researchKind string

const (
	researchPost    researchKind = "post"
	researchFile    researchKind = "file"
	researchChannel researchKind = "channel"
)

// researchKinds is every kind, in the order fetch tries an id given bare.
var researchKinds = []researchKind{researchPost, researchFile, researchChannel}

// tool is the tool a kind stands for (paths.Fetch, the one place that
// says it): reading a kind needs what its tool needs.
func (k researchKind) tool() string { return paths.Fetch[string(k)] }

// kindsSaid is kinds as a sentence says them: "post, file or channel".
func kindsSaid(kinds []researchKind, or string) string {
	words := make([]string, len(kinds))
	for i, k := range kinds {
		words[i] = string(k)
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + or + " " + words[len(words)-1]
}

// maxResearchIDRunes bounds the id fetch reads: the longest form, a
// permalink, is well under it.
const maxResearchIDRunes = 2048

// researchID is one thing search found. Kind is empty for a bare
// Mattermost id, which fetch tries as each kind in turn.
type researchID struct {
	kind researchKind
	id   string
}

func (r researchID) String() string {
	if r.kind == "" {
		return r.id
	}
	return string(r.kind) + ":" + r.id
}

// parseResearchID reads an id of search's results. It also takes what a
// model may hold instead: a post's permalink, or a bare Mattermost id.
func parseResearchID(s string) (researchID, error) {
	s = strings.TrimSpace(s)
	if cut, was := present.Cut(s, maxResearchIDRunes); was {
		s = cut
	}
	if id, ok := parsePostLink(s); ok {
		if model.IsValidId(id) {
			return researchID{kind: researchPost, id: id}, nil
		}
		return researchID{}, badResearchID(s)
	}
	kind, id, found := strings.Cut(s, ":")
	if !found {
		kind, id = "", s
	}
	id = strings.TrimSpace(id)
	if !model.IsValidId(id) {
		return researchID{}, badResearchID(s)
	}
	if kind == "" {
		return researchID{id: id}, nil
	}
	for _, k := range researchKinds {
		if strings.EqualFold(strings.TrimSpace(kind), string(k)) {
			return researchID{kind: k, id: id}, nil
		}
	}
	return researchID{}, badResearchID(s)
}

func badResearchID(s string) error {
	return refusal.New(fmt.Sprintf("%q is not an id that search gives.", present.Name(s)),
		"Give an id from search's results, as it was given: post:<id>, file:<id> or channel:<id>, where <id> is 26 letters and digits.")
}

// notFoundResearch says an id names nothing the person can read as any of
// kinds, without saying whether it exists: another person's message is as
// absent as a deleted one. It says which kinds were not tried, and why.
func notFoundResearch(r researchID, kinds []researchKind, skipped []withheldKind) error {
	what := fmt.Sprintf("No %s %q that you can read was found: it may have been deleted, or it is in a channel you are not in.", kindsSaid(kinds, "or"), r.String())
	for _, s := range skipped {
		what += fmt.Sprintf(" It was not looked for as a %s: %s.", s.kind, s.why)
	}
	return refusal.New(what, "Search again with search(query=...) and fetch one of the ids it gives.")
}

// withheldResearch refuses an id whose every kind is withheld, naming the
// tools, before anything is read.
func withheldResearch(r researchID, skipped []withheldKind) error {
	if r.kind != "" {
		k := skipped[0]
		return refusal.New(fmt.Sprintf("%s was not fetched: fetching a %s reads what %s reads, and %s.", r, k.kind, k.kind.tool(), k.why),
			fmt.Sprintf("Fetch another of search's ids (search lists only what this connection can fetch), or tell the person this %s cannot be read here.", k.kind))
	}
	why := make([]string, len(skipped))
	kinds := make([]researchKind, len(skipped))
	for i, s := range skipped {
		why[i], kinds[i] = s.why, s.kind
	}
	return refusal.New(fmt.Sprintf("%s was not fetched: an id given bare may be a %s, and none of these can be fetched here: %s.", r, kindsSaid(kinds, "or"), strings.Join(why, "; ")),
		"Tell the person that fetch can read nothing on this connection.")
}
