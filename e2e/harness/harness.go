// Package harness starts a real Mattermost server (built from the pinned module
// in e2e/mmserver) on a private PostgreSQL cluster for end-to-end tests of the
// mcp-server plugin, creates an admin and two users in a team, installs the
// plugin bundle and can add a second server process on the same database
// behind a round-robin proxy.
//
// Use it from TestMain so that everything is torn down even when tests fail:
//
//	var srv *harness.Server
//
//	func TestMain(m *testing.M) {
//		os.Exit(harness.Main(m, harness.Options{BundlePath: bundle}, &srv))
//	}
//
// Main starts the server, runs the tests, and calls Close before returning.
// Code that calls Start directly must arrange for Close to run on every path
// (defer it right after a successful Start). As further protection against
// leaks, every child process runs in its own process group with a
// parent-death signal (so a test binary killed by a timeout takes its
// Mattermost and PostgreSQL processes with it), Start installs a SIGINT/SIGTERM
// handler that closes the server and exits, and Start removes temp dirs left by
// earlier runs whose owning process is gone.
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mattermost/mattermost/server/public/model"
)

// PluginID is the id of the plugin under test, read from the repository's
// plugin.json, its one home.
var PluginID = pluginIDFromManifest()

func pluginIDFromManifest() string {
	root, err := RepoRoot()
	if err != nil {
		panic("harness: " + err.Error())
	}
	raw, err := os.ReadFile(filepath.Join(root, "plugin.json"))
	if err != nil {
		panic("harness: " + err.Error())
	}
	var m model.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Id == "" {
		panic(fmt.Sprintf("harness: plugin.json names no id (%v)", err))
	}
	return m.Id
}

// Password is the password of every user the harness creates. It satisfies
// Mattermost's default password policy.
const Password = "Passw0rd!-long"

// Options configures Start.
type Options struct {
	// BundlePath is the plugin .tar.gz to install and enable; "" = don't install.
	BundlePath string
	// LogWriter receives progress lines (os.Stderr by default).
	LogWriter io.Writer
	// SitePort is the preferred port of node 1 (e.g. 8065 for a stable URL);
	// when 0 or taken, a free port is used.
	SitePort int
	// ExtraEnv is appended to the environment of every Mattermost node
	// ("MM_LOGSETTINGS_FILELEVEL=DEBUG", ...). It overrides the harness's MM_*
	// settings. Leave PluginSettings.Plugins alone: use PatchPluginSettings.
	ExtraEnv []string
	// AsShipped runs the plugin as a production server does: without the
	// check of every answer against its tool's output schema that the tests
	// run with (MCP_PLUGIN_VALIDATE_OUTPUT). The e2e suite's own call helper
	// checks the answers it gets too; the server's check covers every other
	// client a test drives (the SDK scripts, the conformance suite, the
	// views' host page), and without the counts of round trips
	// (MCP_PLUGIN_COUNT_CALLS). For the bench commands.
	AsShipped bool
	// StatementStats has PostgreSQL count every statement's calls and its
	// planning and execution time (pg_stat_statements), read with
	// StatementStats. For the bench commands: the counting costs every
	// statement a little.
	StatementStats bool
}

// User is a Mattermost account created by the harness.
type User struct {
	ID, Username, Email, Password string
	Token                         string // session token from login
}

// Server is a running Mattermost with its own PostgreSQL.
type Server struct {
	URL   string      // site URL of node 1, e.g. http://127.0.0.1:PORT (also MM_SERVICESETTINGS_SITEURL)
	Admin User        // system admin (first user created)
	Users []User      // ordinary users: "alice" and "bob"
	Team  *model.Team // a team the admin and all Users belong to

	opts      Options
	logw      io.Writer
	started   time.Time
	repoRoot  string
	bin       string
	resources string
	tmpDir    string
	filesDir  string
	pg        *postgres

	mu    sync.Mutex
	node1 *mmNode
	node2 *mmNode
	proxy *rrProxy

	hits [2]atomic.Int64

	abilities

	sigCh     chan os.Signal
	closedCh  chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func (s *Server) logf(format string, args ...any) {
	el := time.Since(s.started).Seconds()
	fmt.Fprintf(s.logw, "[harness %6.1fs] %s\n", el, fmt.Sprintf(format, args...))
}

// Start builds (if needed) and starts Mattermost on a fresh PostgreSQL cluster
// in a fresh temp dir, creates the admin, alice, bob and a team, and installs
// opts.BundlePath when set. On error everything started so far is torn down.
func Start(ctx context.Context, opts Options) (_ *Server, err error) {
	if !opts.AsShipped {
		opts.ExtraEnv = append([]string{"MCP_PLUGIN_VALIDATE_OUTPUT=1", "MCP_PLUGIN_COUNT_CALLS=1"}, opts.ExtraEnv...)
	}
	s := &Server{opts: opts, logw: opts.LogWriter, started: time.Now(), closedCh: make(chan struct{})}
	if s.logw == nil {
		s.logw = os.Stderr
	}
	defer func() {
		if err != nil {
			if cerr := s.Close(); cerr != nil {
				err = fmt.Errorf("%w (teardown: %v)", err, cerr)
			}
		}
	}()

	if s.repoRoot, err = RepoRoot(); err != nil {
		return nil, err
	}
	cacheDir := filepath.Join(s.repoRoot, ".cache", "mattermost")
	pgBin, err := ensureSystemPackages(filepath.Join(cacheDir, "apt.lock"), s.logf)
	if err != nil {
		return nil, err
	}
	if s.bin, err = EnsureMattermostBinary(s.repoRoot, s.logf); err != nil {
		return nil, err
	}
	if s.resources, err = mattermostResourceDir(s.repoRoot); err != nil {
		return nil, err
	}

	removeStaleTempDirs(s.logf)
	if s.tmpDir, err = os.MkdirTemp("", tempPrefix); err != nil {
		return nil, err
	}
	// The postgres user must be able to reach its directory inside.
	if err = os.Chmod(s.tmpDir, 0o711); err != nil {
		return nil, err
	}
	if err = os.WriteFile(filepath.Join(s.tmpDir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	s.filesDir = filepath.Join(s.tmpDir, "files")
	if err = os.MkdirAll(s.filesDir, 0o755); err != nil {
		return nil, err
	}
	s.installSignalHandler()
	s.logf("temp dir %s", s.tmpDir)

	if s.pg, err = startPostgres(pgBin, filepath.Join(s.tmpDir, "pg"), s.logf, opts.StatementStats); err != nil {
		return nil, err
	}

	port := 0
	if opts.SitePort > 0 && portFree(opts.SitePort) {
		port = opts.SitePort
	} else if port, err = freePort(); err != nil {
		return nil, err
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	n1, err := startNode(s.bin, nodeConfig{
		name: "node1", dir: filepath.Join(s.tmpDir, "node1"), port: port, siteURL: s.URL,
		dsn: s.pg.dsn(), filesDir: s.filesDir, localMode: true, resources: s.resources,
		extraEnv: opts.ExtraEnv,
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.node1 = n1
	s.mu.Unlock()
	s.logf("mattermost node1 starting at %s (pid %d), log %s", s.URL, n1.proc.pid(), n1.logPath())
	if err = n1.waitPing(ctx, 120*time.Second); err != nil {
		return nil, err
	}
	s.logf("mattermost node1 answers ping")

	if err = s.createUsersAndTeam(ctx); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, n1.logTail(20))
	}
	s.logf("users %s, %s, %s ready in team %q (%s after start)", s.Admin.Username, s.Users[0].Username, s.Users[1].Username,
		s.Team.Name, time.Since(s.started).Round(100*time.Millisecond))

	if opts.BundlePath != "" {
		if err = s.InstallPlugin(opts.BundlePath); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Main is what an e2e TestMain uses: it starts the server (storing it in
// *into), runs the tests, closes the server and returns the exit code. If Start
// fails it prints why and returns 1.
//
//	func TestMain(m *testing.M) { os.Exit(harness.Main(m, harness.Options{...}, &srv)) }
func Main(m *testing.M, opts Options, into **Server) int {
	w := opts.LogWriter
	if w == nil {
		w = os.Stderr
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(w, "e2e: could not start Mattermost: %v\n", err)
		return 1
	}
	*into = s
	code := 1
	func() {
		defer func() {
			if cerr := s.Close(); cerr != nil {
				fmt.Fprintf(w, "e2e: teardown: %v\n", cerr)
			}
		}()
		code = m.Run()
	}()
	return code
}

func (s *Server) installSignalHandler() {
	s.sigCh = make(chan os.Signal, 1)
	signal.Notify(s.sigCh, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-s.sigCh:
			s.logf("got %v: tearing down", sig)
			if err := s.Close(); err != nil {
				s.logf("teardown: %v", err)
			}
			code := 1
			if n, ok := sig.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-s.closedCh:
		}
	}()
}

// Close stops every process the harness started (Mattermost nodes, the proxy,
// PostgreSQL) and removes the temp dir. It is idempotent and safe to call
// concurrently; later calls return the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		t0 := time.Now()
		if s.sigCh != nil {
			signal.Stop(s.sigCh)
		}
		close(s.closedCh)
		var errs []error
		s.mu.Lock()
		proxy, n2, n1 := s.proxy, s.node2, s.node1
		s.mu.Unlock()
		if proxy != nil {
			errs = append(errs, proxy.close())
		}
		// Stop both nodes concurrently: each may take a few seconds.
		var wg sync.WaitGroup
		nodeErrs := make([]error, 2)
		for i, n := range []*mmNode{n1, n2} {
			if n == nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.Now()
				nodeErrs[i] = n.stop()
				s.logf("mattermost %s stopped (%s)", n.name, time.Since(t).Round(100*time.Millisecond))
			}()
		}
		wg.Wait()
		errs = append(errs, nodeErrs...)
		if s.pg != nil {
			t := time.Now()
			errs = append(errs, s.pg.stop())
			s.logf("postgres stopped (%s)", time.Since(t).Round(100*time.Millisecond))
		}
		if s.tmpDir != "" {
			errs = append(errs, os.RemoveAll(s.tmpDir))
		}
		s.closeErr = errors.Join(errs...)
		if s.node1 != nil || s.pg != nil {
			s.logf("teardown done in %s", time.Since(t0).Round(100*time.Millisecond))
		}
	})
	return s.closeErr
}

// ServerLog is the path of node 1's log file, for test failure messages. It is
// removed by Close.
func (s *Server) ServerLog() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.node1 == nil {
		return ""
	}
	return s.node1.logPath()
}

// ServerLogTail returns the last n lines of node 1's log (handy in t.Fatalf).
func (s *Server) ServerLogTail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.node1 == nil {
		return ""
	}
	return tailFile(s.node1.logPath(), n)
}

// PIDs returns the process ids of the Mattermost nodes and PostgreSQL started
// by the harness (their plugin processes are children of the nodes).
func (s *Server) PIDs() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for _, n := range []*mmNode{s.node1, s.node2} {
		if n != nil && n.proc != nil {
			pids = append(pids, n.proc.pid())
		}
	}
	if s.pg != nil && s.pg.proc != nil {
		pids = append(pids, s.pg.proc.pid())
	}
	return pids
}

// TempDir is the directory holding everything of this server (removed by Close).
func (s *Server) TempDir() string { return s.tmpDir }

const tempPrefix = "mm-e2e-"

// removeStaleTempDirs removes temp dirs of earlier runs whose owning process is
// gone, stopping a PostgreSQL still running from one (normally the
// parent-death signal has already stopped it).
func removeStaleTempDirs(logf func(string, ...any)) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || processAlive(owner) {
			continue
		}
		dataDir := filepath.Join(dir, "pg", "data")
		if pb, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid")); err == nil {
			first, _, _ := strings.Cut(string(pb), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(first)); err == nil && processAlive(pid) {
				if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(cl), dataDir) {
					_ = syscall.Kill(pid, syscall.SIGQUIT)
					time.Sleep(time.Second)
				}
			}
		}
		if err := os.RemoveAll(dir); err == nil {
			logf("removed stale %s (owner pid %d gone)", dir, owner)
		}
	}
}

// Started is when the harness began starting the server: a cluster job
// that runs as the plugin starts ran about then.
func (s *Server) Started() time.Time { return s.started }
