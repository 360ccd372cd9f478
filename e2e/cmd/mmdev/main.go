// Command mmdev starts a throwaway Mattermost (private PostgreSQL, admin,
// alice, bob, a team) with the plugin bundle installed, prints how to point an
// MCP client at it, and runs until Ctrl-C, then tears everything down.
//
//	go run ./e2e/cmd/mmdev [-bundle dist/mcp-server-<version>.tar.gz] [-port 8065]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

func main() {
	os.Exit(run())
}

func run() int {
	bundle := flag.String("bundle", "", "plugin bundle to install (default dist/<id>-<version>.tar.gz from plugin.json)")
	port := flag.Int("port", 8065, "preferred site port (a free one is used when it is taken)")
	noBundle := flag.Bool("no-bundle", false, "start without installing the plugin")
	flag.Parse()

	root, err := harness.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mmdev:", err)
		return 1
	}
	if *bundle == "" && !*noBundle {
		*bundle, err = defaultBundle(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mmdev:", err)
			return 1
		}
	}
	if *noBundle {
		*bundle = ""
	}
	if *bundle != "" {
		if _, err := os.Stat(*bundle); err != nil {
			fmt.Fprintf(os.Stderr, "mmdev: plugin bundle: %v (build it first, e.g. with make dist, or pass -bundle)\n", err)
			return 1
		}
	}

	// Ctrl-C while starting or running: the harness's own handler also tears down.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s, err := harness.Start(ctx, harness.Options{BundlePath: *bundle, SitePort: *port, AsShipped: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mmdev:", err)
		return 1
	}
	defer s.Close()

	token, err := s.PersonalAccessToken(s.Admin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mmdev:", err)
		return 1
	}
	mcpURL := s.URL + "/plugins/" + harness.PluginID + "/mcp"
	type mcpServer struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cfg := map[string]any{"mcpServers": map[string]mcpServer{"mattermost": {
		Type: "http", URL: mcpURL, Headers: map[string]string{"Authorization": "Bearer " + token},
	}}}
	cfgJSON, _ := json.MarshalIndent(cfg, "", "  ")

	fmt.Printf(`
Mattermost is running.

  Site URL:        %s
  MCP URL:         %s
  Admin:           %s / %s
  Users:           %s, %s (same password)
  Admin token:     %s
  Plugin bundle:   %s
  Server log:      %s

MCP client config:
%s

Press Ctrl-C to stop and remove everything.
`, s.URL, mcpURL, s.Admin.Username, s.Admin.Password, s.Users[0].Username, s.Users[1].Username,
		token, orNone(*bundle), s.ServerLog(), cfgJSON)

	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "mmdev: stopping")
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "mmdev: teardown:", err)
		return 1
	}
	return 0
}

func defaultBundle(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "plugin.json"))
	if err != nil {
		return "", err
	}
	var m struct{ ID, Version string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", fmt.Errorf("plugin.json: %w", err)
	}
	return filepath.Join(root, "dist", fmt.Sprintf("%s-%s.tar.gz", m.ID, m.Version)), nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
