package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// proc is a child process started in its own process group, with a parent-death
// signal so that it does not outlive a test binary that is killed outright.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's result, valid once done is closed
}

// startProc starts cmd in a new process group. deathSig is sent to the child by
// the kernel if this process dies without stopping it.
func startProc(name string, cmd *exec.Cmd, deathSig syscall.Signal) (*proc, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = deathSig
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits up to d for the process to exit.
func (p *proc) wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// stop sends sig to the process, waits up to grace, then SIGKILLs the whole
// process group (which also catches grandchildren such as plugin processes).
func (p *proc) stop(sig syscall.Signal, grace time.Duration) error {
	if p == nil {
		return nil
	}
	var err error
	if !p.exited() {
		_ = p.cmd.Process.Signal(sig)
		if !p.wait(grace) {
			err = fmt.Errorf("%s (pid %d) did not exit within %s after %v; killed", p.name, p.pid(), grace, sig)
		}
	}
	// Kill whatever is left in the group (grandchildren included).
	if kerr := syscall.Kill(-p.pid(), syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) && err == nil {
		err = fmt.Errorf("kill process group of %s: %w", p.name, kerr)
	}
	if !p.wait(10 * time.Second) {
		return fmt.Errorf("%s (pid %d) still running after SIGKILL", p.name, p.pid())
	}
	return err
}

// processAlive reports whether a process with this pid exists (and is not a zombie).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Format: pid (comm) state ...; a zombie has state Z.
	s := string(b)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			if i+2 < len(s) && s[i+2] == 'Z' {
				return false
			}
			break
		}
	}
	return true
}
