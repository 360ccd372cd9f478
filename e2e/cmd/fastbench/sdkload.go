package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
	"github.com/mcp-server/mattermost-plugin-mcp/e2e/pluginproc"
)

// sdkLoad is the load of the official TypeScript SDK's clients
// (e2e/node/sdk-load.mjs), calling tool: each round starts the clients
// (not measured), then reads the servers' processor around the calls. The
// clients' own processor, Node's, is counted as "this process", as the Go
// clients' is in the other loads.
func sdkLoad(ctx context.Context, site string, fx fixture, s settings, tool string) (loadFigures, error) {
	node, err := harness.NodeBinary()
	if err != nil {
		return loadFigures{}, err
	}
	dir, _ := harness.NodeDir()
	tokens := make([]string, len(fx.people))
	for i, p := range fx.people {
		tokens[i] = p.Token
	}
	raw, _ := json.Marshal(tokens)
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "sdk-load.mjs"), string(raw))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "MCP_URL="+strings.TrimRight(site, "/")+"/plugins/mcp-server/mcp",
		"MCP_CLIENTS="+strconv.Itoa(s.clients), "MCP_CALLS="+strconv.Itoa(s.calls), "MCP_TOOL="+tool)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return loadFigures{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return loadFigures{}, err
	}
	if err := cmd.Start(); err != nil {
		return loadFigures{}, err
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	out := bufio.NewScanner(stdout)
	if !out.Scan() || out.Text() != "ready" {
		return loadFigures{}, fmt.Errorf("the TypeScript SDK's clients did not connect: %q", out.Text())
	}
	var f loadFigures
	before, nodeBefore := s.processor(), pluginproc.CPUSeconds(cmd.Process.Pid)
	if _, err := fmt.Fprintln(stdin, "go"); err != nil {
		return loadFigures{}, err
	}
	if !out.Scan() {
		return loadFigures{}, fmt.Errorf("the TypeScript SDK's load printed no figures")
	}
	f.cpu = s.processor().Since(before)
	f.cpu.Self += pluginproc.CPUSeconds(cmd.Process.Pid) - nodeBefore
	var got struct {
		Calls, Errors int
		FirstError    string
		P50Ms, P99Ms  float64
		ElapsedMs     float64
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		return loadFigures{}, fmt.Errorf("the TypeScript SDK's load printed %q: %w", out.Text(), err)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	f.calls, f.errors, f.elapsed, f.p50, f.p99 = got.Calls, got.Errors, ms(got.ElapsedMs), ms(got.P50Ms), ms(got.P99Ms)
	if got.FirstError != "" {
		f.firstError = "(first: " + got.FirstError + ")"
	}
	_, _ = fmt.Fprintln(stdin, "end") // the clients end their sessions
	return f, nil
}
