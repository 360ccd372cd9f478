package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Inspector is the CLI of the MCP Inspector (@modelcontextprotocol/inspector,
// pinned in e2e/node/package.json), a client nobody on the project wrote.
const Inspector = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

// inspectorUnportable is the Inspector's exit code when --strict found a
// portability error (its EXIT_CODES.SCHEMA_UNPORTABLE): the list was still
// printed, with its findings.
const inspectorUnportable = 6

// SchemaFinding is one portability problem the Inspector's --strict check
// found in a tool's input or output schema.
type SchemaFinding struct {
	Tool     string
	Severity string // "error" or "warning"
	Rule     string // such as "type-union"
	Schema   string // "inputSchema" or "outputSchema"
	Path     string
	Issue    string
}

func (f SchemaFinding) String() string {
	return fmt.Sprintf("%s: %s at %s.%s (%s)", f.Tool, f.Severity, f.Schema, f.Path, f.Rule)
}

// InspectorList is the Inspector's tools/list with its --strict findings.
type InspectorList struct {
	Tools    []string
	Findings []SchemaFinding
	// Output is what the Inspector printed on stderr: its findings in full.
	Output string
}

// Count is the findings of one severity.
func (l *InspectorList) Count(severity string) int {
	n := 0
	for _, f := range l.Findings {
		if f.Severity == severity {
			n++
		}
	}
	return n
}

// InspectToolsStrictly lists the tools of the MCP endpoint at url, signed
// in with a bearer token, through the Inspector's CLI with its --strict
// schema portability check, run with Node 22 and home as its home (the CLI
// keeps a catalogue of servers there).
func InspectToolsStrictly(ctx context.Context, url, token, home string) (*InspectorList, error) {
	node, err := NodeBinary()
	if err != nil {
		return nil, err
	}
	dir, _ := NodeDir()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, Inspector), "--cli", url,
		"--transport", "http", "--method", "tools/list", "--strict", "--format", "json",
		"--header", "Authorization: Bearer "+token)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	stdout, stderr := &capped{max: maxScriptOutput}, &capped{max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := cmd.Run()
	list := &InspectorList{Output: stderr.String()}
	var exit *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == inspectorUnportable) {
		return list, fmt.Errorf("the Inspector's tools/list failed: %w\nstdout: %s\nstderr: %s", runErr, stdout.String(), list.Output)
	}
	var envelope struct {
		Result *struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
		SchemaFindings []struct {
			ToolName string `json:"toolName"`
			Findings []struct {
				Rule, Severity, Schema, Path, Issue string
			} `json:"findings"`
		} `json:"schemaFindings"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &envelope); err != nil || envelope.Result == nil {
		return list, fmt.Errorf("the Inspector printed no tools/list result in JSON (%v):\n%s", err, stdout.String())
	}
	for _, t := range envelope.Result.Tools {
		list.Tools = append(list.Tools, t.Name)
	}
	for _, tool := range envelope.SchemaFindings {
		for _, f := range tool.Findings {
			list.Findings = append(list.Findings, SchemaFinding{Tool: tool.ToolName, Severity: f.Severity, Rule: f.Rule,
				Schema: f.Schema, Path: f.Path, Issue: f.Issue})
		}
	}
	return list, nil
}

// Inspect runs the Inspector's CLI against url as token's person with the
// arguments given (a --method and what it takes) and answers what it
// printed on stdout; home keeps its catalogue out of the real one.
func Inspect(ctx context.Context, url, token, home string, args ...string) (string, error) {
	node, err := NodeBinary()
	if err != nil {
		return "", err
	}
	dir, _ := NodeDir()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, Inspector), "--cli", url,
		"--transport", "http", "--header", "Authorization: Bearer " + token}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"))
	stdout, stderr := &capped{max: maxScriptOutput}, &capped{max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("the Inspector's %v failed: %w\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
