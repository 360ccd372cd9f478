// Package pluginproc finds the plugin's process under a harness server and
// measures its memory from /proc while the benchmark commands load it.
package pluginproc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcp-server/mattermost-plugin-mcp/e2e/harness"
)

// Proc is one running plugin process.
type Proc struct{ PID int }

// Find finds the plugin's process: a child of a Mattermost node this harness
// started, running the plugin's executable. The parent check keeps plugins of
// other Mattermost servers on the machine out.
func Find(mm *harness.Server) (Proc, error) {
	parents := map[int]bool{}
	for _, p := range mm.PIDs() {
		parents[p] = true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return Proc{}, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !parents[parent(pid)] {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmd), "plugin-linux-amd64") {
			return Proc{PID: pid}, nil
		}
	}
	return Proc{}, fmt.Errorf("no plugin process among the children of %v", mm.PIDs())
}

// parent is a process's parent, 0 when it is gone.
func parent(pid int) int {
	fields := statFields(pid)
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}

// statFields is /proc/<pid>/stat after the command (nil when the process is
// gone): the command in parentheses may hold spaces, so the fields are read
// after the last ")", the state first.
func statFields(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(raw)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// KiB reads one VmXXX line of /proc/<pid>/status (VmRSS, VmHWM, ...), in
// KiB; 0 when the process is gone.
func (p Proc) KiB(field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.PID))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// ResetPeak sets the process's VmHWM back to its current resident set; false
// when the kernel does not let this process write clear_refs.
func (p Proc) ResetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.PID), []byte("5"), 0) == nil
}

// Peak runs f while sampling the process's resident set at each interval,
// and returns the highest seen, in KiB. Sampling catches peaks that a VmHWM
// reset cannot (when clear_refs is not writable).
func (p Proc) Peak(every time.Duration, f func() error) (peakKiB int64, err error) {
	peakKiB, _, err = p.watch(every, 0, f)
	return peakKiB, err
}

// PeakOrKill is Peak that kills the process once it passes limitKiB, as the
// kernel would on a smaller host, so a build without a bound cannot take the
// machine running the benchmark; killed says whether it did.
func (p Proc) PeakOrKill(every time.Duration, limitKiB int64, f func()) (peakKiB int64, killed bool) {
	peakKiB, killed, _ = p.watch(every, limitKiB, func() error { f(); return nil })
	return peakKiB, killed
}

func (p Proc) watch(every time.Duration, limitKiB int64, f func() error) (int64, bool, error) {
	var peak atomic.Int64
	var hit atomic.Bool
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			v := p.KiB("VmRSS")
			if v > peak.Load() {
				peak.Store(v)
			}
			if limitKiB > 0 && v > limitKiB && !hit.Load() {
				hit.Store(true)
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
			select {
			case <-stop:
				return
			case <-time.After(every):
			}
		}
	}()
	err := f()
	close(stop)
	<-done
	return peak.Load(), hit.Load(), err
}

// AtOnce runs f(0..n-1) each on its own goroutine, the load the memory
// measures are taken under, and returns the first error by index.
func AtOnce(n int, f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = f(i) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Median is the middle of the figures of a benchmark's rounds (the upper
// one of an even count).
func Median[T int64 | time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
