package mattermost

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattermost/mattermost/server/public/model"
	"github.com/mattermost/mattermost/server/public/plugin/plugintest"
)

func TestEveryPluginAPIAndDriverCallIsCountedByItsMethod(t *testing.T) {
	api := &plugintest.API{}
	api.On("KVGet", "k").Return([]byte("v"), nil)
	api.On("GetUser", aliceID).Return(&model.User{Id: aliceID}, nil)
	driver := &plugintest.Driver{}
	driver.On("Conn", true).Return("conn-1", nil)
	counted, countedDriver, counts := Counted(api, driver)
	for range 2 {
		if v, err := counted.KVGet("k"); err != nil || string(v) != "v" {
			t.Fatalf("KVGet through the counter: %q, %v", v, err)
		}
	}
	if _, err := counted.GetUser(aliceID); err != nil {
		t.Fatal(err)
	}
	if id, err := countedDriver.Conn(true); err != nil || id != "conn-1" {
		t.Fatalf("Conn through the counter: %q, %v", id, err)
	}
	got := counts.Snapshot()
	want := map[string]int64{"KVGet": 2, "GetUser": 1, DriverPrefix + "Conn": 1}
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("%s counted %d times, want %d (all: %v)", m, got[m], n, got)
		}
	}
	if _, d, _ := Counted(api, nil); d != nil {
		t.Error("a plugin without a database driver got a counted one")
	}
}

// The counters are generated from the plugin API's interface: a new
// Mattermost's methods must be counted too.
func TestTheCountedAPIIsWhatItsGeneratorWritesFromThePluginAPI(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "../../build/countedapi", dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the generator: %v\n%s", err, msg)
	}
	written, err := filepath.Glob(filepath.Join(dir, "counted_*.go"))
	if err != nil || len(written) == 0 {
		t.Fatalf("the generator wrote no file: %v", err)
	}
	kept, err := filepath.Glob("counted_*.go")
	if err != nil {
		t.Fatal(err)
	}
	if kept = slices.DeleteFunc(kept, func(p string) bool { return strings.HasSuffix(p, "_test.go") }); len(kept) != len(written) {
		t.Errorf("%d generated counters are kept where the generator writes %d: go generate ./server/mattermost", len(kept), len(written))
	}
	for _, path := range written {
		fresh, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		if old, err := os.ReadFile(name); err != nil || !bytes.Equal(fresh, old) {
			t.Errorf("%s is stale or missing: go generate ./server/mattermost", name)
		}
	}
}

func TestTheTripsBetweenTwoSnapshotsAreTheirRowOfTheTableByKind(t *testing.T) {
	before := map[string]int64{"GetUser": 4, "KVGet": 1}
	after := map[string]int64{"GetUser": 5, "KVGet": 2, "KVSetWithOptions": 1, DriverPrefix + "ConnQuery": 1, DriverPrefix + "RowsNext": 1, DriverPrefix + "RowsClose": 1}
	got := TripsBetween(before, after).Row("read_x")
	want := "| `read_x` | 6 | 1 | 1 | 1 (3) | GetUser 1, KVGet 1, KVSetWithOptions 1, driver.ConnQuery 1, driver.RowsClose 1, driver.RowsNext 1 |"
	if got != want {
		t.Fatalf("row\n%s\nwant\n%s", got, want)
	}
	if r := TripsBetween(after, after); r.All != 0 || len(r.Methods) != 0 {
		t.Fatalf("no calls cost %+v", r)
	}
}
