package e2e

// Issue 20: the official MCP conformance suite, run against the plugin on
// the real server. Its scenarios that apply to a server with its own tools
// pass; those that call the suite's fixtures are in its baseline
// (e2e/node/conformance-expected-failures.yml), each with its reason.

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// conformanceTimeout bounds one run of the suite: it runs its 32 scenarios
// one after the other, each in a few seconds.
const conformanceTimeout = 10 * time.Minute

func TestTheOfficialConformanceSuitePassesEveryScenarioThatAppliesToAServerWithItsOwnTools(t *testing.T) {
	listed := expectedFailures(t)
	person := newPerson(t, "conformance")
	// The suite connects to a bare URL: a reverse proxy on loopback signs
	// its requests in as the person and forwards the Host it sent.
	proxy, err := harness.StartBearerProxy(mm.URL, person.Token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	defer cancel()
	run, err := harness.RunConformance(ctx, mcpURL(proxy.URL), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	passed, failed := run.Names(true), run.Names(false)
	t.Logf("the conformance suite took %s: %d scenarios passed (%s); %d failed as its baseline expects (%s)",
		run.Took.Round(time.Second), len(passed), strings.Join(passed, ", "), len(failed), strings.Join(failed, ", "))
	if run.ExitCode != 0 {
		for _, name := range failed {
			if _, ok := listed[name]; !ok {
				t.Errorf("%s failed and is not in the baseline: %s", name, strings.Join(run.Scenarios[name].Problems, "; "))
			}
		}
		for _, name := range passed {
			if _, ok := listed[name]; ok {
				t.Errorf("%s passes now: remove it from %s", name, harness.ConformanceExpectedFailures)
			}
		}
		t.Fatalf("the conformance suite exited %d:\n%s", run.ExitCode, run.Output)
	}
	// The scenarios the plugin must pass whatever else is built: the
	// handshake, ping, tools/list, several streams at once, the SSE
	// stream's fallback to JSON, and DNS rebinding.
	for _, name := range []string{"server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "server-sse-polling", "dns-rebinding-protection", "resources-list", "prompts-list", "completion-complete", "logging-set-level"} {
		if s, ok := run.Scenarios[name]; !ok || !s.Passed {
			t.Errorf("%s did not pass (ran: %v): %s", name, ok, strings.Join(s.Problems, "; "))
		}
	}
	if len(run.Scenarios) != len(passed)+len(failed) || len(failed) != len(listed) {
		t.Errorf("%d scenarios ran, %d failed, the baseline lists %d", len(run.Scenarios), len(failed), len(listed))
	}
}

// expectedFailures reads the suite's baseline and checks that every entry
// has its reason: a comment on the line above it.
func expectedFailures(t *testing.T) map[string]bool {
	t.Helper()
	dir, err := harness.NodeDir()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, harness.ConformanceExpectedFailures))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	previous := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "- "); ok {
			if !strings.HasPrefix(previous, "# ") {
				t.Errorf("%s: %s has no reason in a comment above it", harness.ConformanceExpectedFailures, name)
			}
			listed[name] = true
		}
		previous = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(listed) == 0 {
		t.Fatalf("%s lists no scenario: is it in the suite's format (server: - name)?", harness.ConformanceExpectedFailures)
	}
	return listed
}
