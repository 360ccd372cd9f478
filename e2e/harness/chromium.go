package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumCandidates are where Debian's chromium package (and a few other
// distributions) put the browser.
var chromiumCandidates = []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}

func findChromium() string {
	for _, p := range chromiumCandidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

var (
	chromiumOnce sync.Once
	chromiumPath string
	chromiumErr  error
)

// EnsureChromium returns the path of the system Chromium, installing
// Debian's chromium package with apt-get when it is missing (a fresh CI
// machine has none), under the same lock as the other system packages.
func EnsureChromium(logf func(string, ...any)) (string, error) {
	chromiumOnce.Do(func() {
		chromiumPath, chromiumErr = ensureChromium(logf)
	})
	return chromiumPath, chromiumErr
}

func ensureChromium(logf func(string, ...any)) (string, error) {
	if p := findChromium(); p != "" {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	err = withFileLock(filepath.Join(root, ".cache", "mattermost", "apt.lock"), func() error {
		if findChromium() != "" {
			return nil
		}
		logf("installing chromium with apt-get")
		start := time.Now()
		if err := aptGet("update"); err != nil {
			return err
		}
		if err := aptGet("install", "-y", "--no-install-recommends", "chromium"); err != nil {
			return err
		}
		logf("installed chromium in %s", time.Since(start).Round(100*time.Millisecond))
		return nil
	})
	if err != nil {
		return "", err
	}
	if p := findChromium(); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("no chromium at %s even after installing it", strings.Join(chromiumCandidates, ", "))
}

func aptGet(args ...string) error {
	args = append([]string{"apt-get"}, args...)
	if os.Geteuid() != 0 {
		args = append([]string{"sudo", "-n", "--preserve-env=DEBIAN_FRONTEND"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, tail(out.String(), 30))
	}
	return nil
}

// Browser starts a headless Chromium (installed when missing) with a fresh
// profile in a temp dir, and returns a chromedp context for one tab and the
// function that closes the browser and removes the profile.
func (s *Server) Browser(ctx context.Context) (context.Context, func(), error) {
	bin, err := EnsureChromium(s.logf)
	if err != nil {
		return nil, nil, err
	}
	profile, err := os.MkdirTemp(s.tmpDir, "chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", "new"),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(1200, 900),
	}
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	// Start the browser now, so a failure to start is reported here.
	if err := chromedp.Do(tab); err != nil {
		cancelTab()
		cancelAlloc()
		_ = os.RemoveAll(profile)
		return nil, nil, fmt.Errorf("start chromium %s: %w", bin, err)
	}
	closeAll := func() {
		cancelTab()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	}
	return tab, closeAll, nil
}
