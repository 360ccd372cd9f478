package admission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-server/mattermost-plugin-mcp/server/names"
)

// What the check on save finds of the admin's lists. Each entry is kept as
// the admin wrote it: the plugin cannot write the settings back as they
// are saved (what ConfigurationWillBeSaved returns crosses the plugin RPC
// in gob, which turns every setting that is false into an absent one), so
// a name stays a name and admits the members of the team or group with
// that name when they connect.

// Listing is what the check knows of a team or a group.
type Listing struct {
	Named
	// Display is the name people read (the team's or group's display name).
	Display string
	// Gone is an archived team or a deleted group: its members are not
	// let in through it.
	Gone bool
}

// Directory finds this Mattermost's teams, or its groups, for the check on
// save.
type Directory interface {
	// ByID and ByName answer found false when there is no such team or
	// group.
	ByID(id string) (l Listing, found bool, err error)
	ByName(name string) (l Listing, found bool, err error)
	// All is the ones an entry that names none is compared with for the
	// nearest names.
	All() ([]Listing, error)
}

// Kind says which of the two lists is checked, in the System Console's
// words.
type Kind struct {
	// Setting is the list's name in the System Console.
	Setting string
	// Noun is "team" or "group".
	Noun string
	// Gone is what an archived team or deleted group is called, and
	// Restore how to bring it back.
	Gone, Restore string
	// ByName is how to write an entry by name.
	ByName string
}

var (
	// Teams is the list of teams whose members may connect.
	Teams = Kind{Setting: "Teams whose members may connect", Noun: "team", Gone: "archived", Restore: "restore the team",
		ByName: "by the name in its URL (such as sales)"}
	// Groups is the list of groups whose members may connect.
	Groups = Kind{Setting: "Groups whose members may connect", Noun: "group", Gone: "deleted", Restore: "restore the group",
		ByName: "by the name it is mentioned by, without @"}
)

// maxNearest is how many near names a refusal offers: enough to spot the
// one meant, few enough to read in the System Console's error line.
const maxNearest = 3

// Check refuses the first entry of list (one of the admin's lists, as
// config keeps it) that is no team or group of d, worded for the System
// Console: a name that names none with the nearest names, an entry in the
// form of an id that is no id with what it is. Entries of saved (the list
// as it is in force) are not looked up again, so a team archived since
// does not keep the admin from saving other settings.
func Check(k Kind, list, saved []string, d Directory) error {
	for _, entry := range list {
		if slices.Contains(saved, entry) {
			continue
		}
		if err := checkEntry(k, entry, d); err != nil {
			return err
		}
	}
	return nil
}

func checkEntry(k Kind, entry string, d Directory) error {
	unreadable := func(err error) error {
		return fmt.Errorf("MCP Server could not look up %q of %q in this Mattermost's %ss: %w; save again", entry, k.Setting, k.Noun, err)
	}
	if IsID(entry) {
		l, found, err := d.ByID(entry)
		if err != nil {
			return unreadable(err)
		}
		if found {
			return k.gone(entry, l)
		}
		named, found, err := d.ByName(entry)
		if err != nil {
			return unreadable(err)
		}
		if found {
			return fmt.Errorf("MCP Server: %q lists %q, which has the form of an id but is no %s's id: an entry of this form matches ids only, "+
				"and %q is the name of the %s %q, whose id is %s; list that id if you mean that %s",
				k.Setting, entry, k.Noun, entry, k.Noun, named.Display, named.ID, k.Noun)
		}
		return fmt.Errorf("MCP Server: %q lists %q, which has the form of an id but is no %s's id: list each %s %s or by its id, separated by commas",
			k.Setting, entry, k.Noun, k.Noun, k.ByName)
	}
	l, found, err := d.ByName(entry)
	if err != nil {
		return unreadable(err)
	}
	if found {
		return k.gone(entry, l)
	}
	all, err := d.All()
	if err != nil {
		return unreadable(err)
	}
	var cands []names.Candidate
	for _, l := range all {
		if l.Name != "" && !l.Gone {
			cands = append(cands, names.Candidate{Key: l.Name, Names: []string{l.Name, l.Display}})
		}
	}
	hint := fmt.Sprintf("list each %s %s or by its id, separated by commas", k.Noun, k.ByName)
	if near := names.Closest(entry, cands, maxNearest); len(near) > 0 {
		hint = fmt.Sprintf("the nearest %ss are %s", k.Noun, strings.Join(near, ", "))
	}
	return fmt.Errorf("MCP Server: %q names %q, which is no %s: %s", k.Setting, entry, k.Noun, hint)
}

// gone refuses an entry that is an archived team or a deleted group.
func (k Kind) gone(entry string, l Listing) error {
	if !l.Gone {
		return nil
	}
	return fmt.Errorf("MCP Server: %q lists %q, a %s that is %s: its members cannot connect through it; remove it from the list or %s",
		k.Setting, entry, k.Noun, k.Gone, k.Restore)
}
