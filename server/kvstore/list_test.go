package kvstore_test

import (
	"errors"
	"testing"

	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore"
	"github.com/mcp-server/mattermost-plugin-mcp/server/kvstore/kvtest"
)

type entry struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

func TestAListIsReadChangedAndStoredAsItsChangeSays(t *testing.T) {
	refused := errors.New("the person has too many")
	appendB := func(l []entry) ([]entry, error) { return append(l, entry{ID: "b", N: 2}), nil }
	for _, tc := range []struct {
		name     string
		stored   string // "" is absent
		change   func([]entry) ([]entry, error)
		maxBytes int
		wantErr  error
		want     string // "" is absent
		writes   int
	}{
		{"an absent list is empty", "", func(l []entry) ([]entry, error) {
			if l != nil {
				t.Errorf("an absent list read as %v", l)
			}
			return append(l, entry{ID: "a", N: 1}), nil
		}, 0, nil, `[{"id":"a","n":1}]`, 1},
		{"a stored list is changed", `[{"id":"a","n":1}]`, appendB, 0, nil, `[{"id":"a","n":1},{"id":"b","n":2}]`, 1},
		{"a corrupt list starts again", `{not a list`, appendB, 0, nil, `[{"id":"b","n":2}]`, 1},
		{"an emptied list removes the key", `[{"id":"a","n":1}]`, func([]entry) ([]entry, error) { return nil, nil }, 0, nil, "", 1},
		{"emptying an absent list writes nothing", "", func(l []entry) ([]entry, error) { return l, nil }, 0, nil, "", 0},
		{"the list as it was writes nothing", `[{"id":"a","n":1}]`, func(l []entry) ([]entry, error) { return l, nil }, 0, nil, `[{"id":"a","n":1}]`, 0},
		{"a change's error writes nothing", `[{"id":"a","n":1}]`, func([]entry) ([]entry, error) { return nil, refused }, 0, refused, `[{"id":"a","n":1}]`, 0},
		{"a list over its bound writes nothing", `[{"id":"a","n":1}]`, appendB, 30, kvstore.ErrTooLarge, `[{"id":"a","n":1}]`, 0},
		{"a list within its bound is stored", `[{"id":"a","n":1}]`, appendB, 40, nil, `[{"id":"a","n":1},{"id":"b","n":2}]`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := kvtest.New()
			if tc.stored != "" {
				_ = kv.Set("list_alice", []byte(tc.stored), 0)
			}
			writes := 0
			kv.BeforeWrite = func(string) { writes++ }
			err := kvstore.List[entry]{KV: kv, Key: "list_alice", MaxBytes: tc.maxBytes}.Update(tc.change)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
			raw, _ := kv.Get("list_alice")
			if string(raw) != tc.want || writes != tc.writes {
				t.Fatalf("stored %q after %d writes, want %q after %d", raw, writes, tc.want, tc.writes)
			}
		})
	}
}

func TestAListChangedByManyWritersAtOnceKeepsEveryChange(t *testing.T) {
	kv := kvtest.New()
	l := kvstore.List[entry]{KV: kv, Key: "list_alice"}
	// The first writer's change lands between the second's read and write,
	// so the second runs again on the first one's list.
	first := true
	kv.BeforeWrite = func(string) {
		if first {
			first = false
			if err := l.Update(func(es []entry) ([]entry, error) { return append(es, entry{ID: "first"}), nil }); err != nil {
				t.Error(err)
			}
		}
	}
	if err := l.Update(func(es []entry) ([]entry, error) { return append(es, entry{ID: "second"}), nil }); err != nil {
		t.Fatal(err)
	}
	raw, _ := kv.Get("list_alice")
	if want := `[{"id":"first","n":0},{"id":"second","n":0}]`; string(raw) != want {
		t.Fatalf("stored %s, want %s", raw, want)
	}
}
