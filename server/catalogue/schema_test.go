package catalogue

import (
	"encoding/json"
	"testing"
	"time"
)

func TestEmptyListsEncodesEveryNilListAndMapEmptyAndLeavesTheRest(t *testing.T) {
	type inner struct {
		Names []string `json:"names"`
	}
	type Embedded struct {
		Codes []int `json:"codes"`
	}
	type withPrivate struct {
		Embedded
		Shown  []string `json:"shown"`
		hidden []string
	}
	at := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		in   any
		want string
	}{
		{"a nil list", struct {
			L []string `json:"l"`
		}{}, `{"l":[]}`},
		{"a nil map", struct {
			M map[string]int `json:"m"`
		}{}, `{"m":{}}`},
		{"a list in a list", [][]string{nil, {"a"}}, `[[],["a"]]`},
		{"a list in a map's value", map[string][]string{"k": nil}, `{"k":[]}`},
		{"a list behind a pointer", struct {
			P *inner `json:"p"`
		}{P: &inner{}}, `{"p":{"names":[]}}`},
		{"a nil pointer stays null", struct {
			P *inner `json:"p"`
		}{}, `{"p":null}`},
		{"a list in an interface", struct {
			A any `json:"a"`
		}{A: inner{}}, `{"a":{"names":[]}}`},
		{"a list in an array", [2]inner{}, `[{"names":[]},{"names":[]}]`},
		{"an embedded struct's list", withPrivate{}, `{"codes":[],"shown":[]}`},
		{"omitempty still leaves it out", struct {
			L []string `json:"l,omitempty"`
		}{}, `{}`},
		{"raw JSON is left as it is", struct {
			R json.RawMessage `json:"r"`
		}{}, `{"r":null}`},
		{"a time writes itself", struct {
			T time.Time `json:"t"`
		}{T: at}, `{"t":"2024-05-01T09:00:00Z"}`},
		{"nothing to fill", inner{Names: []string{"x"}}, `{"names":["x"]}`},
		{"nil", nil, `null`},
	} {
		got, err := json.Marshal(emptyLists(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestEmptyListsKeepsTheTypeAndUnexportedFieldsAndChangesNothingInPlace(t *testing.T) {
	type post struct {
		Files []string `json:"files"`
	}
	type page struct {
		Posts []post `json:"posts"`
		note  string
	}
	shared := []post{{Files: []string{"a"}}, {}}
	in := page{Posts: shared, note: "kept"}
	out, ok := emptyLists(in).(page)
	if !ok {
		t.Fatalf("emptyLists returned a %T, not a page", emptyLists(in))
	}
	if out.note != "kept" || out.Posts[1].Files == nil || len(out.Posts[1].Files) != 0 || out.Posts[0].Files[0] != "a" {
		t.Fatalf("filled page %+v", out)
	}
	if shared[1].Files != nil {
		t.Fatal("emptyLists changed the handler's own list in place")
	}
	full := page{Posts: []post{{Files: []string{}}}}
	if got := emptyLists(full).(page); &got.Posts[0] != &full.Posts[0] {
		t.Fatal("a page with no nil list was copied")
	}
}

// BenchmarkEmptyListsOfAPageOfThirtyPosts is the walk every answer takes,
// on a page shaped as read_channel's: posts with their files, reactions and
// props, some lists left nil by the handler.
func BenchmarkEmptyListsOfAPageOfThirtyPosts(b *testing.B) {
	type file struct {
		ID, Name string
		Size     int64
	}
	type reaction struct {
		Emoji string   `json:"emoji"`
		Users []string `json:"users"`
	}
	type post struct {
		ID, Author, Message string
		At                  time.Time
		Files               []file            `json:"files"`
		Reactions           []reaction        `json:"reactions"`
		Props               map[string]string `json:"props,omitempty"`
		Mentions            []string          `json:"mentions"`
	}
	type page struct {
		Posts      []post `json:"posts"`
		NextCursor string `json:"next_cursor,omitempty"`
	}
	p := page{}
	for i := range 30 {
		po := post{ID: "p", Author: "alice", Message: "a message", At: time.Unix(int64(i), 0)}
		if i%3 == 0 {
			po.Files = []file{{ID: "f", Name: "a.txt", Size: 3}}
			po.Reactions = []reaction{{Emoji: "+1", Users: []string{"bob"}}}
		}
		p.Posts = append(p.Posts, po)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := emptyLists(p).(page); !ok {
			b.Fatal("the page changed type")
		}
	}
}
