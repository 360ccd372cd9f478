package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAClusterStartedWithStatementStatsCountsEachStatementWithItsPlanning
// starts PostgreSQL alone, as Start does for Options.StatementStats, and
// reads back a statement it ran twice: counted twice, planned and run, and
// gone after a reset.
func TestAClusterStartedWithStatementStatsCountsEachStatementWithItsPlanning(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := ensureSystemPackages(filepath.Join(root, ".cache", "mattermost", "apt.lock"), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", tempPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o711); err != nil { // the postgres user reaches its directory inside
		t.Fatal(err)
	}
	pg, err := startPostgres(bin, filepath.Join(dir, "pg"), t.Logf, true)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.stop()
	s := &Server{pg: pg}
	if err := s.ResetStatementStats(); err != nil {
		t.Fatal(err)
	}
	const probe = "SELECT count(*) FROM pg_class WHERE relname = 'probe_of_the_harness'"
	for range 2 {
		if err := pg.exec(probe); err != nil {
			t.Fatal(err)
		}
	}
	stmts, err := s.StatementStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var found *Statement
	for i, st := range stmts {
		if strings.Contains(st.Query, "probe_of_the_harness") || strings.Contains(st.Query, "relname = $1") {
			found = &stmts[i]
		}
	}
	if found == nil || found.Calls != 2 || found.Plan <= 0 || found.Exec <= 0 {
		t.Fatalf("the probe ran twice; the counts say %+v (all: %+v)", found, stmts)
	}
	if err := s.ResetStatementStats(); err != nil {
		t.Fatal(err)
	}
	if stmts, err = s.StatementStats(context.Background()); err != nil || len(stmts) != 0 {
		t.Fatalf("after a reset: %+v, %v; want nothing counted", stmts, err)
	}
}
