package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ConformanceSuite is the CLI of the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in e2e/node/package.json).
const ConformanceSuite = "node_modules/@modelcontextprotocol/conformance/dist/index.js"

// ConformanceExpectedFailures is the suite's baseline of scenarios that
// are expected to fail, each with its reason, relative to e2e/node.
const ConformanceExpectedFailures = "conformance-expected-failures.yml"

// Conformance is one run of the suite's server scenarios.
type Conformance struct {
	// ExitCode is the suite's: 0 when every scenario passed or failed as
	// the baseline expects; 1 for a failure the baseline does not list, or
	// a listed scenario that now passes (a stale entry).
	ExitCode int
	// Output is what the suite printed (stdout and stderr).
	Output string
	// Scenarios are the scenarios run, by name.
	Scenarios map[string]Scenario
	Took      time.Duration
}

// Scenario is one scenario's outcome: passed when none of its checks
// failed or warned (the suite counts a warning as a failure).
type Scenario struct {
	Passed bool
	// Problems are the failed or warned checks: "name: message".
	Problems []string
	// Checks are its checks by id. Of an id reported more than once the
	// worst status stands, as the suite reads its baseline.
	Checks map[string]Check
}

// Check is one check of a scenario as the suite wrote it.
type Check struct {
	ID string
	// Status is SUCCESS, FAILURE, WARNING, INFO or SKIPPED.
	Status string
	// Message is the suite's reason for a status other than SUCCESS.
	Message string
}

// Passed is a check that succeeded; a skipped one did not run.
func (c Check) Passed() bool { return c.Status == "SUCCESS" }

// checkSeverity orders statuses as the suite does when an id repeats.
var checkSeverity = map[string]int{"FAILURE": 3, "WARNING": 2, "SUCCESS": 1}

// Check is the check id of scenario, and whether the scenario ran it.
func (c *Conformance) Check(scenario, id string) (Check, bool) {
	ch, ok := c.Scenarios[scenario].Checks[id]
	return ch, ok
}

// Names are the scenarios that passed (true) or did not, sorted.
func (c *Conformance) Names(passed bool) []string {
	var out []string
	for name, s := range c.Scenarios {
		if s.Passed == passed {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// RunConformance runs all the suite's server scenarios (its "all" suite:
// the active ones, those it still has pending and the extensions') against
// the MCP endpoint at url with Node 22 and the baseline
// ConformanceExpectedFailures, writing each scenario's checks under outDir.
// With no specVersion each scenario speaks the revision the suite gives it:
// 2026-07-28 for the scenarios that begin there and for the extensions'
// (tasks among them), 2025-11-25 for the others. With a specVersion it runs
// only the scenarios of that revision, all speaking it, and no extension's.
// It returns an error only when the suite could not run at all; a failing
// run is ExitCode 1.
func RunConformance(ctx context.Context, url, specVersion, outDir string) (*Conformance, error) {
	node, err := NodeBinary()
	if err != nil {
		return nil, err
	}
	dir, _ := NodeDir()
	args := []string{filepath.Join(dir, ConformanceSuite), "server",
		"--suite", "all", "--url", url, "--expected-failures", filepath.Join(dir, ConformanceExpectedFailures), "-o", outDir}
	if specVersion != "" {
		args = append(args, "--spec-version", specVersion)
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	out := &capped{max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = out, out
	started := time.Now()
	runErr := cmd.Run()
	c := &Conformance{Output: out.String(), Took: time.Since(started)}
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit) && ctx.Err() == nil:
		c.ExitCode = exit.ExitCode()
	case runErr != nil:
		return c, fmt.Errorf("the conformance suite did not run: %w\n%s", runErr, c.Output)
	}
	if c.Scenarios, err = readScenarios(outDir); err != nil {
		return c, err
	}
	return c, nil
}

// resultDir is how the suite names a scenario's directory:
// server-<scenario>-<ISO time with '-' for ':' and '.'>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// readScenarios reads the checks.json the suite wrote for each scenario.
func readScenarios(outDir string) (map[string]Scenario, error) {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	scenarios := map[string]Scenario{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(outDir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []struct {
			ID, Name, Status, ErrorMessage string
		}
		if err := json.Unmarshal(raw, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		s := Scenario{Passed: true, Checks: map[string]Check{}}
		for _, ch := range checks {
			if ch.Status == "FAILURE" || ch.Status == "WARNING" {
				s.Passed = false
				s.Problems = append(s.Problems, strings.TrimSpace(ch.Name+": "+ch.ErrorMessage))
			}
			if was, ok := s.Checks[ch.ID]; !ok || checkSeverity[ch.Status] >= checkSeverity[was.Status] {
				s.Checks[ch.ID] = Check{ID: ch.ID, Status: ch.Status, Message: ch.ErrorMessage}
			}
		}
		scenarios[m[1]] = s
	}
	return scenarios, nil
}
