package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// mmServerPackage is the main package of the Mattermost server, built from a
// tiny module that pins exact pseudo-versions: e2e/mmserver for the main
// version, e2e/mmserver-<version> for any other (see MattermostVersion).
const (
	mmServerModule  = "github.com/mattermost/mattermost/server/v8"
	mmServerPackage = mmServerModule + "/cmd/mattermost"
)

// MainMattermostVersion is the version e2e/mmserver builds, which CI runs.
const MainMattermostVersion = "11.4"

// VersionEnv chooses the Mattermost version the harness builds and runs
// (`make e2e-test MM_VERSION=9.11` sets it); empty means the main version.
const VersionEnv = "MCP_MM_VERSION"

// MattermostVersion is the version chosen by $MCP_MM_VERSION.
func MattermostVersion() string {
	if v := strings.TrimSpace(os.Getenv(VersionEnv)); v != "" {
		return v
	}
	return MainMattermostVersion
}

// mmServerDirs are the module directory that builds the chosen version and
// the directory its binary is cached in.
func mmServerDirs(repoRoot string) (modDir, binDir string, err error) {
	v := MattermostVersion()
	if v == MainMattermostVersion {
		return filepath.Join(repoRoot, "e2e", "mmserver"), filepath.Join(repoRoot, ".cache", "mattermost", "bin"), nil
	}
	modDir = filepath.Join(repoRoot, "e2e", "mmserver-"+v)
	if _, err := os.Stat(filepath.Join(modDir, "go.mod")); err != nil {
		return "", "", fmt.Errorf("harness: %s=%s but there is no module to build it (%s/go.mod): versions are %s and those of e2e/mmserver-*", VersionEnv, v, modDir, MainMattermostVersion)
	}
	return modDir, filepath.Join(repoRoot, ".cache", "mattermost", v, "bin"), nil
}

// RepoRoot walks up from the working directory to the directory holding plugin.json.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "plugin.json")); err == nil && !st.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("harness: no plugin.json found in the working directory or any parent")
		}
		dir = parent
	}
}

// goTool returns the go command to use for building the server.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// goEnv is the environment for go commands run in e2e/mmserver*: Mattermost
// is built as it ships, without this repository's flags or experiment.
func goEnv() []string {
	env := filteredEnv(func(k string) bool { return k == "GOFLAGS" || k == "GOWORK" || k == "CGO_ENABLED" || k == "GOEXPERIMENT" })
	return append(env, "GOFLAGS=-mod=readonly", "GOWORK=off")
}

// filteredEnv returns os.Environ() without the variables for which drop returns true.
func filteredEnv(drop func(key string) bool) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop(k) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// withFileLock runs fn while holding an exclusive flock on path, so that test
// packages running in parallel do not build or install the same thing twice.
func withFileLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN) //nolint:errcheck
	return fn()
}

// mmServerStamp is the sha256 of the module's go.mod and go.sum: the binary is
// rebuilt when it changes.
func mmServerStamp(modDir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"go.sum", "go.mod"} {
		b, err := os.ReadFile(filepath.Join(modDir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EnsureMattermostBinary returns the path of the cached Mattermost server binary
// of the chosen version (<repo>/.cache/mattermost/bin/mattermost for the main
// one, <repo>/.cache/mattermost/<version>/bin/mattermost for others), building
// it when missing or when its module's go.sum (or go.mod) changed since the
// last build.
func EnsureMattermostBinary(repoRoot string, logf func(string, ...any)) (string, error) {
	modDir, binDir, err := mmServerDirs(repoRoot)
	if err != nil {
		return "", err
	}
	cacheDir := filepath.Join(repoRoot, ".cache", "mattermost")
	bin := filepath.Join(binDir, "mattermost")
	stampFile := filepath.Join(binDir, "mattermost.stamp")

	err = withFileLock(filepath.Join(cacheDir, "build.lock"), func() error {
		want, err := mmServerStamp(modDir)
		if err != nil {
			return fmt.Errorf("read the module %s: %w", modDir, err)
		}
		if have, err := os.ReadFile(stampFile); err == nil && strings.TrimSpace(string(have)) == want {
			if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				return nil
			}
		}
		if err := os.MkdirAll(binDir, 0o755); err != nil {
			return err
		}
		logf("building the Mattermost server %s (%s) into %s; the first build takes a few minutes", MattermostVersion(), mmServerPackage, bin)
		start := time.Now()
		tmp := bin + ".tmp"
		cmd := exec.Command(goTool(), "build", "-o", tmp, mmServerPackage)
		cmd.Dir = modDir
		cmd.Env = goEnv()
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		if err := cmd.Run(); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("go build %s in %s: %v\n%s", mmServerPackage, modDir, err, tail(out.String(), 40))
		}
		if err := os.Rename(tmp, bin); err != nil {
			return err
		}
		if err := os.WriteFile(stampFile, []byte(want+"\n"), 0o644); err != nil {
			return err
		}
		logf("built the Mattermost server in %s", time.Since(start).Round(100*time.Millisecond))
		return nil
	})
	if err != nil {
		return "", err
	}
	return bin, nil
}

// mattermostResourceDir returns the module cache directory of the Mattermost
// server module, which holds i18n/, templates/ and fonts/.
func mattermostResourceDir(repoRoot string) (string, error) {
	modDir, _, err := mmServerDirs(repoRoot)
	if err != nil {
		return "", err
	}
	list := func() (string, error) {
		cmd := exec.Command(goTool(), "list", "-m", "-f", "{{.Dir}}", mmServerModule)
		cmd.Dir = modDir
		cmd.Env = goEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go list -m %s: %v: %s", mmServerModule, err, stderr.String())
		}
		return strings.TrimSpace(string(out)), nil
	}
	dir, err := list()
	if err != nil {
		return "", err
	}
	if dir == "" {
		// Not in the module cache (e.g. the binary is cached but the module cache was cleaned).
		cmd := exec.Command(goTool(), "mod", "download", mmServerModule)
		cmd.Dir = modDir
		cmd.Env = goEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go mod download %s: %v: %s", mmServerModule, err, out)
		}
		if dir, err = list(); err != nil {
			return "", err
		}
	}
	for _, sub := range []string{"i18n", "templates", "fonts"} {
		if _, err := os.Stat(filepath.Join(dir, sub)); err != nil {
			return "", fmt.Errorf("mattermost resources: %w", err)
		}
	}
	return dir, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tailFile returns the last n lines of a file (reading at most its last 256 KiB).
func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	const max = 256 << 10
	off := int64(0)
	if st.Size() > max {
		off = st.Size() - max
	}
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && len(buf) > 0 {
		return err.Error()
	}
	return tail(string(buf), n)
}
