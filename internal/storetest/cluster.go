package storetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvPostgresBin names the directory of PostgreSQL's server binaries
// (initdb, pg_ctl, postgres) that StartPostgres uses; unset, the newest
// /usr/lib/postgresql/*/bin (Debian's layout, as .ci/run finds it).
const EnvPostgresBin = "WARDEN_TEST_POSTGRES_BIN"

// Cluster is a throwaway PostgreSQL cluster of a test's own, so that the
// test may stop and resume its processes (a database blip) without
// touching the cluster other tests share.
type Cluster struct {
	// URL opens the cluster's database.
	URL  string
	dir  string
	bin  string
	user string
}

// PostgresBin returns the directory of PostgreSQL's server binaries, or ""
// when none is installed.
func PostgresBin() string {
	if d := os.Getenv(EnvPostgresBin); d != "" {
		return d
	}
	ds, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(ds, func(i, j int) bool { return pgVersion(ds[i]) < pgVersion(ds[j]) })
	for i := len(ds) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(ds[i], "initdb")); err == nil {
			return ds[i]
		}
	}
	return ""
}

// pgVersion is the major version in a /usr/lib/postgresql/N/bin path.
func pgVersion(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// StartPostgres starts a cluster as .ci/run does: initdb with trust
// authentication, run by an unprivileged user when the test runs as root,
// listening on a random loopback port, with a database warden_test. The
// cluster is stopped and removed when the test ends. It skips the test
// when PostgreSQL's binaries are not installed.
func StartPostgres(t testing.TB) *Cluster {
	t.Helper()
	bin := PostgresBin()
	if bin == "" {
		t.Skipf("PostgreSQL's server binaries are not installed (set %s or install postgresql)", EnvPostgresBin)
	}
	dir, err := os.MkdirTemp("", "warden-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{dir: dir, bin: bin}
	t.Cleanup(c.stop)
	if os.Geteuid() == 0 {
		c.user = "nobody"
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"data", "sock"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		if c.user != "" {
			u, err := user.Lookup(c.user)
			if err != nil {
				t.Fatal(err)
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			if err := os.Chown(filepath.Join(dir, d), uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "warden", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	var port int
	for try := 0; ; try++ {
		port = 20000 + rand.IntN(20000)
		out, err := c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(dir, "sock", "postgres.log"), "-w",
			"-o", fmt.Sprintf("-k %s -p %d -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off", filepath.Join(dir, "sock"), port), "start")
		if err == nil {
			break
		}
		if try == 3 {
			log, _ := os.ReadFile(filepath.Join(dir, "sock", "postgres.log"))
			t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
		}
	}
	if out, err := c.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "warden", "warden_test"); err != nil {
		t.Fatalf("createdb: %v\n%s", err, out)
	}
	c.URL = fmt.Sprintf("postgres://warden@127.0.0.1:%d/warden_test?sslmode=disable", port)
	return c
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// run runs one of PostgreSQL's programs as the cluster's user.
func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	name := filepath.Join(c.bin, prog)
	if c.user != "" {
		args = append([]string{"-u", c.user, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// stop stops the cluster at once and removes its files.
func (c *Cluster) stop() {
	c.Resume() // a stopped postmaster does not stop
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err == nil {
		c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop") //nolint:errcheck // best effort
	}
	os.RemoveAll(c.dir)
}

// Processes returns the ids of the cluster's processes: the postmaster
// first, then its children (the backends and the background workers).
func (c *Cluster) Processes() ([]int, error) {
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("the postmaster's pid: %w", err)
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	pm, err := strconv.Atoi(strings.TrimSpace(string(first)))
	if err != nil {
		return nil, fmt.Errorf("the postmaster's pid %q: %w", first, err)
	}
	pids := []int{pm}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so cut at the last ')'.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pm) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Pause stops every process of the cluster (SIGSTOP): connections stay
// open and queries hang until Resume, as in a database blip.
func (c *Cluster) Pause() error { return c.signal(syscall.SIGSTOP) }

// Resume continues the cluster's processes after Pause.
func (c *Cluster) Resume() error { return c.signal(syscall.SIGCONT) }

// signal sends sig to the postmaster first (a stopped postmaster starts no
// new backend), then to its children.
func (c *Cluster) signal(sig syscall.Signal) error {
	pids, err := c.Processes()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pids[0], sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("signalling the postmaster %d: %w", pids[0], err)
	}
	if pids, err = c.Processes(); err != nil {
		return err
	}
	for _, pid := range pids[1:] {
		if err := syscall.Kill(pid, sig); err != nil && err != syscall.ESRCH {
			return fmt.Errorf("signalling process %d: %w", pid, err)
		}
	}
	return nil
}

// Restart stops the cluster at once (pg_ctl -m immediate: every
// connection breaks, as in a crash) and starts it again on its port.
func (c *Cluster) Restart() error {
	if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "restart", "-l", filepath.Join(c.dir, "sock", "postgres.log")); err != nil {
		return fmt.Errorf("pg_ctl restart: %w\n%s", err, out)
	}
	return nil
}

// PauseFor pauses the cluster for d, then resumes it.
func (c *Cluster) PauseFor(d time.Duration) error {
	if err := c.Pause(); err != nil {
		c.Resume()
		return err
	}
	time.Sleep(d)
	return c.Resume()
}
