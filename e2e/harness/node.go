package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// mmNode is one `mattermost server` process.
type mmNode struct {
	name       string
	dir        string // working dir: config.json, logs/, plugins/, client/plugins, i18n etc. symlinks
	url        string // http://127.0.0.1:PORT (its own listen address)
	configPath string
	logDir     string
	stdoutPath string
	proc       *proc
}

func (n *mmNode) logPath() string { return filepath.Join(n.logDir, "mattermost.log") }

func (n *mmNode) auditLogPath() string { return filepath.Join(n.logDir, "audit.log") }

// freePort returns a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portFree reports whether 127.0.0.1:port can be listened on.
func portFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

type nodeConfig struct {
	name       string
	dir        string
	port       int
	siteURL    string
	dsn        string
	filesDir   string
	localMode  bool
	resources  string // dir holding i18n/, templates/, fonts/
	configFrom string // copy this config.json instead of starting from "{}"
	extraEnv   []string
}

// mattermostEnv is the MM_* configuration of a node. Every setting comes from the
// environment (which overrides config.json and cannot be changed through the
// API) except those tests change through the API: PluginSettings.Plugins, and
// the OAuth settings, which start on from initialConfig.
func mattermostEnv(c nodeConfig, n *mmNode) []string {
	env := []string{
		"MM_SQLSETTINGS_DRIVERNAME=postgres",
		"MM_SQLSETTINGS_DATASOURCE=" + c.dsn,
		"MM_SQLSETTINGS_MAXOPENCONNS=50",
		"MM_SERVICESETTINGS_SITEURL=" + c.siteURL,
		fmt.Sprintf("MM_SERVICESETTINGS_LISTENADDRESS=127.0.0.1:%d", c.port),
		"MM_SERVICESETTINGS_ENABLEUSERACCESSTOKENS=true",
		"MM_SERVICESETTINGS_ENABLEDEVELOPER=false",
		"MM_SERVICESETTINGS_ENABLEDIAGNOSTICS=false",
		"MM_SERVICESETTINGS_ENABLESECURITYFIXALERT=false",
		"MM_SERVICESETTINGS_ENABLELOCALMODE=" + fmt.Sprint(c.localMode),
		"MM_TEAMSETTINGS_ENABLEOPENSERVER=true",
		// The suite's tests each add people of their own to the team; the
		// default of 50 members per team is reached by the whole suite.
		"MM_TEAMSETTINGS_MAXUSERSPERTEAM=10000",
		"MM_EMAILSETTINGS_SENDEMAILNOTIFICATIONS=false",
		"MM_EMAILSETTINGS_REQUIREEMAILVERIFICATION=false",
		"MM_PLUGINSETTINGS_ENABLE=true",
		"MM_PLUGINSETTINGS_ENABLEUPLOADS=true",
		"MM_PLUGINSETTINGS_AUTOMATICPREPACKAGEDPLUGINS=false",
		"MM_PLUGINSETTINGS_ENABLEMARKETPLACE=false",
		"MM_PLUGINSETTINGS_ENABLEREMOTEMARKETPLACE=false",
		"MM_PLUGINSETTINGS_DIRECTORY=" + filepath.Join(n.dir, "plugins"),
		"MM_PLUGINSETTINGS_CLIENTDIRECTORY=" + filepath.Join(n.dir, "client", "plugins"),
		"MM_FILESETTINGS_DIRECTORY=" + c.filesDir + "/",
		"MM_FILESETTINGS_EXTRACTCONTENT=true",
		"MM_LOGSETTINGS_ENABLECONSOLE=false",
		"MM_LOGSETTINGS_ENABLEFILE=true",
		"MM_LOGSETTINGS_FILELOCATION=" + n.logDir,
		// Mattermost's own audit log, in a file a test reads back (the plugin
		// writes its audit entries there on 10.10 and later).
		"MM_EXPERIMENTALAUDITSETTINGS_FILEENABLED=true",
		"MM_EXPERIMENTALAUDITSETTINGS_FILENAME=" + n.auditLogPath(),
		"MM_LOGSETTINGS_ENABLEDIAGNOSTICS=false",
		"MM_LOGSETTINGS_ENABLESENTRY=false",
		"MM_RATELIMITSETTINGS_ENABLE=false",
		"MM_ANNOUNCEMENTSETTINGS_ADMINNOTICESENABLED=false",
		"MM_ANNOUNCEMENTSETTINGS_USERNOTICESENABLED=false",
		"MM_METRICSSETTINGS_ENABLE=false",
	}
	if c.localMode {
		env = append(env, "MM_SERVICESETTINGS_LOCALMODESOCKETLOCATION="+filepath.Join(n.dir, "local.sock"))
	}
	return env
}

// initialConfig is node 1's config.json: OAuth sign-in for MCP clients on
// (on a server without dynamic client registration, before 11.4, that key is
// ignored), in the file rather than the environment so that tests can switch
// it off and on through the config API.
const initialConfig = `{"ServiceSettings": {"EnableOAuthServiceProvider": true, "EnableDynamicClientRegistration": true}}` + "\n"

// startNode prepares the node's directory and starts `mattermost server`. It
// does not wait for it to answer; see waitPing.
func startNode(bin string, c nodeConfig) (*mmNode, error) {
	n := &mmNode{
		name:       c.name,
		dir:        c.dir,
		url:        fmt.Sprintf("http://127.0.0.1:%d", c.port),
		configPath: filepath.Join(c.dir, "config.json"),
		logDir:     filepath.Join(c.dir, "logs"),
		stdoutPath: filepath.Join(c.dir, "stdout.log"),
	}
	for _, d := range []string{n.dir, n.logDir, filepath.Join(n.dir, "plugins"), filepath.Join(n.dir, "client", "plugins")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for _, sub := range []string{"i18n", "templates", "fonts"} {
		if err := os.Symlink(filepath.Join(c.resources, sub), filepath.Join(n.dir, sub)); err != nil {
			return nil, err
		}
	}
	cfg := []byte(initialConfig)
	if c.configFrom != "" {
		b, err := os.ReadFile(c.configFrom)
		if err != nil {
			return nil, fmt.Errorf("copy config of node 1: %w", err)
		}
		cfg = b
	}
	if err := os.WriteFile(n.configPath, cfg, 0o600); err != nil {
		return nil, err
	}
	out, err := os.OpenFile(n.stdoutPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()

	cmd := exec.Command(bin, "server", "--config", n.configPath)
	cmd.Dir = n.dir
	// Inherit the environment (PATH matters: pdftotext) minus any MM_* of the caller.
	cmd.Env = filteredEnv(func(k string) bool { return strings.HasPrefix(k, "MM_") })
	cmd.Env = append(cmd.Env, mattermostEnv(c, n)...)
	cmd.Env = append(cmd.Env, c.extraEnv...)
	cmd.Stdout, cmd.Stderr = out, out
	n.proc, err = startProc("mattermost "+c.name, cmd, syscall.SIGTERM)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// logTail is the end of the node's log and stdout, for error messages.
func (n *mmNode) logTail(lines int) string {
	return fmt.Sprintf("--- %s (last %d lines) ---\n%s\n--- %s ---\n%s",
		n.logPath(), lines, tailFile(n.logPath(), lines), n.stdoutPath, tailFile(n.stdoutPath, 15))
}

// waitPing polls GET /api/v4/system/ping until it answers status OK.
func (n *mmNode) waitPing(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 5 * time.Second}
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.url+"/api/v4/system/ping", nil)
		resp, err := client.Do(req)
		if err == nil {
			var body struct {
				Status string `json:"status"`
			}
			derr := json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if derr == nil && resp.StatusCode == http.StatusOK && body.Status == "OK" {
				return nil
			}
			last = fmt.Sprintf("HTTP %d status %q", resp.StatusCode, body.Status)
		} else {
			last = err.Error()
		}
		if n.proc.exited() {
			return fmt.Errorf("mattermost %s exited before answering ping (%v)\n%s", n.name, n.proc.err, n.logTail(40))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("mattermost %s did not answer ping at %s within %s (last: %s)\n%s", n.name, n.url, timeout, last, n.logTail(40))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (n *mmNode) stop() error {
	if n == nil || n.proc == nil {
		return nil
	}
	return n.proc.stop(syscall.SIGTERM, 20*time.Second)
}
