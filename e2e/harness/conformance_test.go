package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTheSuitesResultDirectoriesAreReadAsScenariosWithAWarningCountedAsAFailure(t *testing.T) {
	dir := t.TempDir()
	write := func(name, checks string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "checks.json"), []byte(checks), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server-ping-2026-12-01T13-36-21-974Z", `[{"name":"Ping","status":"SUCCESS"},{"name":"Info","status":"INFO"}]`)
	write("server-tools-call-with-progress-2026-12-01T13-36-22-001Z", `[{"name":"Progress","status":"FAILURE","errorMessage":"No progress notifications received"}]`)
	write("server-server-sse-polling-2026-12-01T13-36-23-000Z", `[{"name":"Session","status":"WARNING","errorMessage":"no session"}]`)
	write("not-a-result", `[]`)

	scenarios, err := readScenarios(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := &Conformance{Scenarios: scenarios}
	if got := run.Names(true); !slices.Equal(got, []string{"ping"}) {
		t.Fatalf("passed: %v", got)
	}
	if got := run.Names(false); !slices.Equal(got, []string{"server-sse-polling", "tools-call-with-progress"}) {
		t.Fatalf("failed: %v", got)
	}
	if p := scenarios["tools-call-with-progress"].Problems; len(p) != 1 || !strings.Contains(p[0], "No progress notifications received") {
		t.Fatalf("problems: %v", p)
	}
}

func TestEachCheckIsReadByItsIdAndARepeatedIdReadsAsItsWorstStatus(t *testing.T) {
	dir := t.TempDir()
	name := "server-server-stateless-2026-12-01T13-36-21-974Z"
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	checks := `[{"id":"meta-400","status":"SUCCESS"},{"id":"meta-400","status":"FAILURE","errorMessage":"answered 200"},{"id":"meta-400","status":"SUCCESS"},
		{"id":"discover","status":"SUCCESS"},{"id":"listen","status":"SKIPPED","errorMessage":"Skipped: no tools"}]`
	if err := os.WriteFile(filepath.Join(dir, name, "checks.json"), []byte(checks), 0o644); err != nil {
		t.Fatal(err)
	}
	scenarios, err := readScenarios(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := &Conformance{Scenarios: scenarios}
	for id, want := range map[string]Check{
		"meta-400": {ID: "meta-400", Status: "FAILURE", Message: "answered 200"},
		"discover": {ID: "discover", Status: "SUCCESS"},
		"listen":   {ID: "listen", Status: "SKIPPED", Message: "Skipped: no tools"},
	} {
		if got, ok := run.Check("server-stateless", id); !ok || got != want {
			t.Errorf("%s read as %+v (%v), want %+v", id, got, ok, want)
		}
	}
	if got, _ := run.Check("server-stateless", "listen"); got.Passed() {
		t.Errorf("a skipped check read as passed")
	}
	if _, ok := run.Check("ping", "meta-400"); ok {
		t.Errorf("a scenario that did not run has a check")
	}
}

func TestAScriptsOutputIsCappedAndTheCutIsNoted(t *testing.T) {
	c := &capped{max: 4}
	if n, err := c.Write([]byte("abcdef")); n != 6 || err != nil {
		t.Fatalf("Write answered %d %v: a cut must not stop the program", n, err)
	}
	if c.String() != "abcd" || !c.cut {
		t.Fatalf("kept %q, cut %v", c.String(), c.cut)
	}
}
