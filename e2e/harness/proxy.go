package harness

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"time"
)

// rrProxy is a reverse proxy that alternates strictly between two nodes.
type rrProxy struct {
	url    string
	server *http.Server
}

func (p *rrProxy) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.server.Shutdown(ctx); err != nil {
		return p.server.Close()
	}
	return nil
}

// StartSecondNode starts a second `mattermost server` process on the same
// database and file directory (own listen address and plugin dirs, local mode
// off, same site URL, a copy of node 1's config.json so plugin states and
// settings match), waits until it answers ping and, when the plugin is
// installed, until mcp-server runs on it. Then it starts a round-robin reverse
// proxy in front of both nodes (strict alternation on every request,
// streaming passes through) and returns the proxy's URL. Without a licence
// the nodes share no cluster messages: config changes made later through the
// harness (PatchPluginSettings, Enable/DisablePlugin, InstallPlugin) are
// applied to both nodes by the harness itself. Calling it again returns the
// same proxy.
func (s *Server) StartSecondNode(ctx context.Context) (proxyURL string, err error) {
	s.mu.Lock()
	if s.node2 != nil {
		u := s.proxy.url
		s.mu.Unlock()
		return u, nil // already running: tests share one second node
	}
	n1 := s.node1
	s.mu.Unlock()
	if n1 == nil {
		return "", errors.New("server not started")
	}
	t0 := time.Now()

	// Is the plugin installed and enabled on node 1? Then node 2 must run it too.
	wantPlugin := false
	statuses, resp, err := s.Client(s.Admin).GetPluginStatuses(ctx)
	if err != nil {
		return "", apiError("plugin statuses on node1", resp, err)
	}
	for _, st := range statuses {
		if st.PluginId == PluginID && st.State != 0 {
			wantPlugin = true
		}
	}

	port, err := freePort()
	if err != nil {
		return "", err
	}
	n2, err := startNode(s.bin, nodeConfig{
		name: "node2", dir: filepath.Join(s.tmpDir, "node2"), port: port, siteURL: s.URL,
		dsn: s.pg.dsn(), filesDir: s.filesDir, localMode: false, resources: s.resources,
		configFrom: n1.configPath, extraEnv: s.opts.ExtraEnv,
	})
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.node2 = n2
	s.mu.Unlock()
	s.logf("mattermost node2 starting at %s (pid %d), log %s", n2.url, n2.proc.pid(), n2.logPath())
	if err := n2.waitPing(ctx, 120*time.Second); err != nil {
		return "", err
	}
	if wantPlugin {
		if err := s.waitPluginRunning(n2, 90*time.Second); err != nil {
			return "", err
		}
	}

	p, err := s.startProxy([2]string{n1.url, n2.url})
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.proxy = p
	s.mu.Unlock()
	s.logf("node2 ready (plugin running: %v); round-robin proxy %s -> %s, %s (%s)", wantPlugin, p.url, n1.url, n2.url,
		time.Since(t0).Round(100*time.Millisecond))
	return p.url, nil
}

func (s *Server) startProxy(targets [2]string) (*rrProxy, error) {
	var parsed [2]*url.URL
	for i, t := range targets {
		u, err := url.Parse(t)
		if err != nil {
			return nil, err
		}
		parsed[i] = u
	}
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		FlushInterval: -1, // flush every write: streaming responses pass through
		Rewrite: func(r *httputil.ProxyRequest) {
			i := (next.Add(1) - 1) % 2
			s.hits[i].Add(1)
			r.SetURL(parsed[i]) // also sets Host to the target's
			r.SetXForwarded()
		},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return &rrProxy{url: "http://" + l.Addr().String(), server: srv}, nil
}

// ProxyHits returns how many requests the proxy sent to node 1 and node 2.
func (s *Server) ProxyHits() (node1, node2 int) {
	return int(s.hits[0].Load()), int(s.hits[1].Load())
}

// NodeURLs returns the direct URLs of the running nodes (node 1 first).
func (s *Server) NodeURLs() []string {
	var out []string
	for _, n := range s.nodes() {
		out = append(out, n.url)
	}
	return out
}
