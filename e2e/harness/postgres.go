package harness

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// findPostgresBin returns the newest /usr/lib/postgresql/<v>/bin holding initdb, or "".
func findPostgresBin() string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return ""
	}
	version := func(p string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		return v
	}
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	return filepath.Dir(matches[0])
}

// ensureSystemPackages installs PostgreSQL (when no initdb is found under
// /usr/lib/postgresql/*/bin) and poppler-utils (when pdftotext is not on PATH)
// with apt-get, as a fresh CI machine needs.
func ensureSystemPackages(lockPath string, logf func(string, ...any)) (pgBin string, err error) {
	err = withFileLock(lockPath, func() error {
		var pkgs []string
		if findPostgresBin() == "" {
			pkgs = append(pkgs, "postgresql")
		}
		if _, err := exec.LookPath("pdftotext"); err != nil {
			pkgs = append(pkgs, "poppler-utils")
		}
		if len(pkgs) == 0 {
			return nil
		}
		logf("installing %s with apt-get", strings.Join(pkgs, ", "))
		start := time.Now()
		if err := aptGet("update"); err != nil {
			return err
		}
		if err := aptGet(append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)...); err != nil {
			return err
		}
		logf("installed %s in %s", strings.Join(pkgs, ", "), time.Since(start).Round(100*time.Millisecond))
		return nil
	})
	if err != nil {
		return "", err
	}
	pgBin = findPostgresBin()
	if pgBin == "" {
		return "", fmt.Errorf("no initdb under /usr/lib/postgresql/*/bin even after installing postgresql")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		return "", fmt.Errorf("pdftotext not on PATH even after installing poppler-utils")
	}
	return pgBin, nil
}

// postgres is a private PostgreSQL cluster: its own data dir, port and socket dir.
type postgres struct {
	bin     string
	dir     string // owned by the postgres user when running as root
	dataDir string
	sockDir string
	logFile string
	port    int
	cred    *syscall.Credential // nil when not root
	proc    *proc
}

const (
	pgUser     = "mmuser"
	pgPassword = "mostest"
	pgDatabase = "mattermost"
)

func (pg *postgres) dsn() string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=10", pgUser, pgPassword, pg.port, pgDatabase)
}

func (pg *postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(pg.bin, name), args...)
	cmd.Dir = pg.dir
	cmd.Env = append(filteredEnv(func(k string) bool { return strings.HasPrefix(k, "PG") || k == "HOME" }),
		"HOME="+pg.dir, "LC_ALL=C", "LANG=C")
	if pg.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	}
	return cmd
}

// startPostgres creates and starts a cluster under dir (which must not exist).
// With statementStats it loads pg_stat_statements, planning times included.
func startPostgres(bin, dir string, logf func(string, ...any), statementStats bool) (*postgres, error) {
	pg := &postgres{
		bin:     bin,
		dir:     dir,
		dataDir: filepath.Join(dir, "data"),
		sockDir: filepath.Join(dir, "run"),
		logFile: filepath.Join(dir, "postgres.log"),
	}
	for _, d := range []string{dir, pg.sockDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: run it as the postgres user.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		pg.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
		for _, d := range []string{dir, pg.sockDir} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	pwFile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwFile, []byte(pgPassword+"\n"), 0o600); err != nil {
		return nil, err
	}
	if pg.cred != nil {
		_ = os.Chown(pwFile, int(pg.cred.Uid), int(pg.cred.Gid))
	}
	initdb := pg.command("initdb", "-D", pg.dataDir, "-U", pgUser, "--pwfile", pwFile,
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, tail(string(out), 30))
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pg.port = port
	logOut, err := os.OpenFile(pg.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logOut.Close()
	args := []string{"-D", pg.dataDir,
		"-p", strconv.Itoa(port),
		"-k", pg.sockDir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
	}
	if statementStats {
		args = append(args, "-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track_planning=on")
	}
	cmd := pg.command("postgres", args...)
	cmd.Stdout, cmd.Stderr = logOut, logOut
	// SIGINT is PostgreSQL's "fast shutdown".
	pg.proc, err = startProc("postgres", cmd, syscall.SIGINT)
	if err != nil {
		return nil, err
	}
	// Create the database; this also waits until the server accepts connections.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := pg.command("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", pgUser, pgDatabase).CombinedOutput()
		if err == nil {
			break
		}
		if pg.proc.exited() || time.Now().After(deadline) {
			pg.stop()
			return nil, fmt.Errorf("postgres did not come up (createdb: %v: %s); postgres log:\n%s", err, strings.TrimSpace(string(out)), tailFile(pg.logFile, 30))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if statementStats {
		if err := pg.exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
			pg.stop()
			return nil, err
		}
	}
	logf("postgres %s listening on 127.0.0.1:%d (pid %d)", filepath.Base(filepath.Dir(bin)), port, pg.proc.pid())
	return pg, nil
}

// stop shuts the cluster down with pg_ctl stop -m fast (as the postgres user),
// falling back to signals.
func (pg *postgres) stop() error {
	if pg == nil || pg.proc == nil || pg.proc.exited() {
		return nil
	}
	cmd := pg.command("pg_ctl", "-D", pg.dataDir, "stop", "-m", "fast", "-w", "-t", "30")
	out, ctlErr := cmd.CombinedOutput()
	if pg.proc.wait(5 * time.Second) {
		return nil
	}
	err := pg.proc.stop(syscall.SIGQUIT, 10*time.Second)
	if ctlErr != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s; %v", ctlErr, strings.TrimSpace(string(out)), err)
	}
	return err
}
