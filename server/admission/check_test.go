package admission

import (
	"errors"
	"strings"
	"testing"
)

// directory is a Directory over a few teams or groups; broken makes every
// lookup fail, and looked records what was looked up.
type directory struct {
	all    []Listing
	broken bool
	looked []string
}

func (d *directory) find(entry string, match func(Listing) bool) (Listing, bool, error) {
	d.looked = append(d.looked, entry)
	if d.broken {
		return Listing{}, false, errors.New("connection refused")
	}
	for _, l := range d.all {
		if match(l) {
			return l, true, nil
		}
	}
	return Listing{}, false, nil
}

func (d *directory) ByID(id string) (Listing, bool, error) {
	return d.find(id, func(l Listing) bool { return l.ID == id })
}

func (d *directory) ByName(name string) (Listing, bool, error) {
	return d.find(name, func(l Listing) bool { return l.Name == name })
}

func (d *directory) All() ([]Listing, error) {
	if d.broken {
		return nil, errors.New("connection refused")
	}
	return d.all, nil
}

const shapedID = "zzzzzzzzzzzzzzzzzzzzzzzzzz"

func TestANewEntryThatIsNoTeamOrGroupIsRefusedOnSaveSayingWhatItIs(t *testing.T) {
	teams := []Listing{
		{Named: engineering, Display: "Engineering"},
		{Named: sales, Display: "Sales"},
		{Named: Named{ID: "y1111111111111111111111111", Name: "archive"}, Display: "Old", Gone: true},
		{Named: Named{ID: "x1111111111111111111111111", Name: shapedID}, Display: "Lookalike"},
	}
	groups := []Listing{{Named: Named{ID: pilotsID, Name: "ai-pilots"}, Display: "AI pilots"}, {Named: Named{ID: salesID}, Display: "LDAP without a name"}}
	cases := []struct {
		name  string
		kind  Kind
		list  string
		saved string
		want  []string // nil when accepted
	}{
		{"teams by name and id are accepted", Teams, "engineering " + salesID, "", nil},
		{"a typo is refused with the nearest names", Teams, "enginering", "",
			[]string{`"Teams whose members may connect" names "enginering", which is no team: the nearest teams are engineering`}},
		{"a display name is refused with the name to write", Teams, "sales-team", "",
			[]string{`names "sales-team", which is no team: the nearest teams are sales`}},
		{"a name far from all says how to write one", Teams, "qqqqqqqq", "",
			[]string{`"qqqqqqqq", which is no team: list each team by the name in its URL (such as sales) or by its id`}},
		{"an id of no team that a team is named after is refused naming that team's id", Teams, shapedID, "",
			[]string{`lists "` + shapedID + `", which has the form of an id but is no team's id`, "matches ids only",
				`is the name of the team "Lookalike", whose id is x1111111111111111111111111`}},
		{"an id of no team is refused", Teams, "k3d9qzq5tpf8dm1e7wc4xnuy6b", "",
			[]string{`lists "k3d9qzq5tpf8dm1e7wc4xnuy6b", which has the form of an id but is no team's id: list each team by the name in its URL`}},
		{"an archived team is refused", Teams, "archive", "", []string{`lists "archive", a team that is archived`, "restore the team"}},
		{"an archived team by id is refused", Teams, "y1111111111111111111111111", "", []string{"a team that is archived"}},
		{"an archived team is left out of the nearest", Teams, "archiv", "", []string{`"archiv", which is no team: list each team`}},
		{"an entry already saved is not looked up again", Teams, "gone-since engineering", "gone-since", nil},
		{"a new entry beside saved ones is looked up", Teams, "gone-since enginering", "gone-since", []string{`"enginering"`}},

		{"groups by name and id are accepted", Groups, "ai-pilots " + salesID, "", nil},
		{"a group typo is refused with the nearest names", Groups, "ai-pilot", "",
			[]string{`"Groups whose members may connect" names "ai-pilot", which is no group: the nearest groups are ai-pilots`}},
		{"a group id of no group is refused", Groups, engID, "", []string{"which has the form of an id but is no group's id", "without @"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &directory{all: teams}
			if tc.kind == Groups {
				d.all = groups
			}
			err := Check(tc.kind, strings.Fields(tc.list), strings.Fields(tc.saved), d)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestOnlyNewEntriesAreLookedUpAndAFailedLookupRefusesTheSave(t *testing.T) {
	d := &directory{all: []Listing{{Named: engineering}}}
	if err := Check(Teams, []string{"engineering", "sales", engID}, []string{"sales"}, d); err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.looked, " ") != "engineering "+engID {
		t.Fatalf("looked up %v", d.looked)
	}
	d.broken = true
	err := Check(Teams, []string{"engineering"}, nil, d)
	if err == nil || !strings.Contains(err.Error(), `could not look up "engineering" of "Teams whose members may connect"`) ||
		!strings.Contains(err.Error(), "connection refused; save again") {
		t.Fatalf("a failed lookup: %v", err)
	}
	if err := Check(Teams, []string{"engineering"}, []string{"engineering"}, d); err != nil {
		t.Fatalf("nothing new, nothing looked up: %v", err)
	}
}
