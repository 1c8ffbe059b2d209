//go:build linux

package dryrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/nettest"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
	"github.com/wardenhq/warden/sandbox"
	"golang.org/x/sys/unix"
)

// needDryRun skips a test where the kernel cannot do dry runs.
// It fails it where user namespaces work but dry runs do not: that is a
// regression, not a kernel that lacks something.
func needDryRun(t *testing.T) {
	t.Helper()
	if err := sandbox.Namespaces(); err != nil {
		t.Skipf("no user namespaces here: %v", err)
	}
	if err := Supported(); err != nil {
		t.Fatalf("user namespaces work, dry runs do not: %v", err)
	}
}

// fileState is what must not change of a real file.
type fileState struct {
	content string
	mode    fs.FileMode
	mtime   time.Time
	ino     uint64
}

// snapshot records every entry under dirs.
func snapshot(t *testing.T, dirs ...string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			st := fileState{mode: fi.Mode(), mtime: fi.ModTime(), ino: fi.Sys().(*syscall.Stat_t).Ino}
			switch {
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				st.content = string(b)
			case fi.Mode()&fs.ModeSymlink != 0:
				st.content, _ = os.Readlink(p)
			}
			out[p] = st
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// unchanged fails the test when anything under dirs differs from before.
func unchanged(t *testing.T, before map[string]fileState, dirs ...string) {
	t.Helper()
	after := snapshot(t, dirs...)
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s: deleted for real", p)
		case a != b:
			t.Errorf("%s: changed for real: %+v, was %+v", p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: created for real", p)
		}
	}
}

// writeFiles makes files (absolute path → content) as filetest.Write does.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, c := range files {
		filetest.Write(t, filepath.Dir(p), filepath.Base(p), c)
	}
}

// run dry-runs a shell script in dir.
func run(t *testing.T, dir, script string, req Request) effect.Report {
	t.Helper()
	req.Argv = []string{"/bin/sh", "-c", script}
	req.Dir = dir
	rep, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// outsideDir returns a new directory outside the temporary directories
// (/var/tmp), removed when the test ends.
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "warden-dryrun-outside-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestG17_FileEffectsReportedNothingRealChanges(t *testing.T) {
	needDryRun(t)
	work, out, home := t.TempDir(), outsideDir(t), hometest.InHome(t)
	for _, d := range []string{work, out, home} {
		writeFiles(t, map[string]string{
			d + "/write": "old\n", d + "/delete": "gone?\n", d + "/rename": "moved\n",
			d + "/chmod": "mode\n", d + "/truncate": "long contents\n", d + "/sub/deep": "deep\n",
			d + "/rmdir/x": "x\n", d + "/movedir/y": "y\n", d + "/movedir/z/w": "w\n",
		})
	}
	// Old times, so that a change of mtime would show.
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, d := range []string{work, out, home} {
		for _, n := range []string{"write", "delete", "rename", "chmod", "truncate"} {
			_ = os.Chtimes(d+"/"+n, past, past)
		}
	}
	before := snapshot(t, work, out, home)
	script := ""
	for _, d := range []string{work, out, home} {
		script += fmt.Sprintf(`cd %[1]s && echo new >> write && rm delete && mv rename renamed && chmod 0700 chmod && : > truncate && echo made > created && mkdir -p newdir/inner && echo x > newdir/inner/f && rm -r rmdir && touch -d '2001-01-01' sub/deep && mv movedir moveddir || exit 9
`, d)
	}
	rep := run(t, work, script, Request{})
	if rep.Exit != 0 {
		t.Fatalf("exit %d: %s", rep.Exit, rep.Output)
	}
	unchanged(t, before, work, out, home)
	for _, d := range []string{work, out, home} {
		for _, w := range []string{d + "/write", d + "/truncate"} {
			if !slices.Contains(rep.Writes, w) {
				t.Errorf("writes %v: no %s", rep.Writes, w)
			}
		}
		for _, c := range []string{d + "/created", d + "/newdir", d + "/newdir/inner", d + "/newdir/inner/f"} {
			if !slices.Contains(rep.Creates, c) {
				t.Errorf("creates %v: no %s", rep.Creates, c)
			}
		}
		for _, del := range []string{d + "/delete", d + "/rmdir"} {
			if !slices.Contains(rep.Deletes, del) {
				t.Errorf("deletes %v: no %s", rep.Deletes, del)
			}
		}
		for _, r := range []effect.Rename{{From: d + "/rename", To: d + "/renamed"}, {From: d + "/movedir", To: d + "/moveddir"}} {
			if !slices.Contains(rep.Renames, r) {
				t.Errorf("renames %v: no %s", rep.Renames, r.From)
			}
		}
		if slices.Contains(rep.Creates, d+"/moveddir/y") {
			t.Errorf("creates %v: the renamed directory's files", rep.Creates)
		}
		if !slices.ContainsFunc(rep.Chmods, func(c effect.Chmod) bool {
			return c.Path == d+"/chmod" && c.Mode == "0700" && c.Was == "0644"
		}) {
			t.Errorf("chmods %+v: no %s 0644 → 0700", rep.Chmods, d+"/chmod")
		}
		if slices.Contains(rep.Writes, d+"/chmod") || slices.Contains(rep.Writes, d+"/sub/deep") {
			t.Errorf("writes %v: a chmod or a touch reported as a write", rep.Writes)
		}
	}
}

func TestG17_LinksLeadNowhereReal(t *testing.T) {
	needDryRun(t)
	work, out := t.TempDir(), outsideDir(t)
	writeFiles(t, map[string]string{out + "/target": "precious\n", out + "/hard": "hard\n", out + "/made": "made\n"})
	// Links the agent made earlier, in the workspace, to files outside.
	if err := os.Symlink(out+"/target", work+"/link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(out+"/hard", work+"/hardlink"); err != nil {
		t.Skip(err) // another file system
	}
	if err := os.Symlink(out, work+"/dirlink"); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, work, out)
	rep := run(t, work, `echo evil > link; echo evil >> hardlink; rm dirlink/made; ln -s `+out+`/target new; echo evil2 > new; chmod 777 dirlink/target`, Request{})
	unchanged(t, before, work, out)
	for _, w := range []string{out + "/target", work + "/hardlink"} {
		if !slices.Contains(rep.Writes, w) {
			t.Errorf("writes %v: no %s", rep.Writes, w)
		}
	}
	if !slices.Contains(rep.Deletes, out+"/made") {
		t.Errorf("deletes %v: no %s", rep.Deletes, out+"/made")
	}
	if !slices.Contains(rep.Creates, work+"/new") {
		t.Errorf("creates %v: no %s", rep.Creates, work+"/new")
	}
}

func TestG17_WardenStateCovered(t *testing.T) {
	needDryRun(t)
	home := outsideDir(t)
	t.Setenv("WARDEN_HOME", home)
	t.Setenv("WARDEN_TOKEN", "TOKEN-G17")
	writeFiles(t, map[string]string{home + "/keys/override.key": "SECRET-KEY-123\n", home + "/config.toml": "x\n"})
	work := t.TempDir()
	before := snapshot(t, home)
	rep := run(t, work, `cat `+home+`/keys/override.key; ls -la `+home+`; echo forged > `+home+`/keys/override.key; echo new > `+home+`/planted; env; exit 0`, Request{})
	unchanged(t, before, home)
	if strings.Contains(rep.Output, "SECRET-KEY-123") || strings.Contains(rep.Output, "config.toml") || strings.Contains(rep.Output, "TOKEN-G17") {
		t.Errorf("the dry run read warden's state: %q", rep.Output)
	}
	for _, l := range [][]string{rep.Writes, rep.Creates} {
		for _, p := range l {
			if strings.HasPrefix(p, home) {
				t.Errorf("the dry run wrote warden's state: %s", p)
			}
		}
	}
}

func TestG17_ProcessesOutsideUntouched(t *testing.T) {
	needDryRun(t)
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	pid := strconv.Itoa(sleep.Process.Pid)
	rep := run(t, t.TempDir(), `kill -9 `+pid+`; kill -9 -1; pkill -9 sleep; exit 0`, Request{})
	time.Sleep(50 * time.Millisecond)
	if err := sleep.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process outside was killed: %v (output %q)", err, rep.Output)
	}
	if _, err := os.Stat("/proc/" + pid); err != nil {
		t.Fatalf("the process outside is gone: %v", err)
	}
}

func TestG17_TerminalUntouched(t *testing.T) {
	needDryRun(t)
	controller, term := ptytest.Open(t)
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(term.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, t.TempDir(), `echo OWNED > /dev/tty; echo OWNED > `+name+`; printf '\033]0;OWNED\007' > /dev/console; tty; exit 0`, Request{})
	ptytest.Quiet(t, controller, 300*time.Millisecond)
	if !strings.Contains(rep.Output, "not a tty") {
		t.Errorf("the dry run had a terminal: %q", rep.Output)
	}
}

func TestG17_BudgetsEndEverything(t *testing.T) {
	needDryRun(t)
	for _, tc := range []struct {
		name, script string
		memory       int64
		timedOut     bool
	}{
		{"sleep", `exec sleep 100.4242`, 0, true},
		{"background", `for i in 1 2 3 4 5 6 7 8; do (setsid sleep 100.4242 &) ; done; nohup sleep 100.4242 & sleep 100.4242`, 0, true},
		{"forks", `while :; do sleep 100.4242 & done`, 0, true},
		{"memory", `exec perl -e '$x = "a" x (512*1024*1024); print length($x)'`, MinMemory * 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			rep := run(t, t.TempDir(), tc.script, Request{Timeout: time.Second, Memory: tc.memory})
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("the budget of 1s took %v", took)
			}
			if rep.TimedOut != tc.timedOut {
				t.Errorf("timed_out %v, want %v (exit %d, %q)", rep.TimedOut, tc.timedOut, rep.Exit, rep.Output)
			}
			if !tc.timedOut && (rep.Exit == 0 || strings.Contains(rep.Output, "536870912")) {
				t.Errorf("the memory hog got its memory: exit %d, %q", rep.Exit, rep.Output)
			}
			time.Sleep(100 * time.Millisecond)
			if left := sandboxtest.Processes("100.4242"); len(left) > 0 {
				t.Errorf("processes left behind: %v", left)
			}
		})
	}
}

func TestG17_NetworkNeverReached(t *testing.T) {
	needDryRun(t)
	arrived := make(chan struct{}, 8)
	addr := nettest.Serve(t, "tcp4", "127.0.0.1:0", func(net.Conn) { arrived <- struct{}{} })
	host, port, _ := strings.Cut(addr, ":")
	rep := run(t, t.TempDir(), `exec 3<>/dev/tcp/`+host+`/`+port+` && echo CONNECTED; perl -MIO::Socket::INET -e 'IO::Socket::INET->new("`+addr+`") and print "CONNECTED\n"'; exit 0`, Request{})
	_ = rep
	select {
	case <-arrived:
		t.Fatal("a connection from the dry run arrived")
	case <-time.After(200 * time.Millisecond):
	}
	if strings.Contains(rep.Output, "CONNECTED") {
		t.Fatalf("the dry run connected: %q", rep.Output)
	}
}

func TestG17_UnsupportedRunsNothing(t *testing.T) {
	// Run refuses without a command, and reports a missing program as
	// exit 127 without starting anything.
	if _, err := Run(context.Background(), Request{}); err == nil {
		t.Fatal("no error without a command")
	}
	needDryRun(t)
	rep, err := Run(context.Background(), Request{Argv: []string{"warden-no-such-program-g17"}})
	if err != nil || rep.Exit != 127 {
		t.Fatalf("got %+v, %v; want exit 127", rep, err)
	}
	if errors.Is(Supported(), nil) && rep.Writes == nil {
		t.Fatal("lists print as null")
	}
}

// fakeRecorder is a Recorder that checks it is called in order.
type fakeRecorder struct {
	pid      int
	fail     error
	finished bool
}

func (f *fakeRecorder) Attach(ctx context.Context, pid int, receive func(string) (*os.File, error)) error {
	f.pid = pid
	return f.fail
}

func (f *fakeRecorder) Finish(rep *effect.Report) error {
	f.finished = true
	rep.Execs = append(rep.Execs, effect.Exec{Path: "/recorded"})
	return nil
}

func TestG17_RecordersAttachAndFailClosed(t *testing.T) {
	needDryRun(t)
	ok := &fakeRecorder{}
	rep := run(t, t.TempDir(), "true", Request{Recorders: []Recorder{ok}})
	if ok.pid <= 0 || !ok.finished || !slices.ContainsFunc(rep.Execs, func(e effect.Exec) bool { return e.Path == "/recorded" }) {
		t.Errorf("recorder not attached or finished: %+v, execs %v", ok, rep.Execs)
	}
	dir := t.TempDir()
	bad := &fakeRecorder{fail: errors.New("no observer")}
	_, err := Run(context.Background(), Request{Argv: []string{"/bin/sh", "-c", "sleep 0.3; echo x > made"}, Dir: dir, Recorders: []Recorder{bad}})
	if err == nil || bad.finished {
		t.Fatalf("a recorder that failed to attach: err %v, finished %v", err, bad.finished)
	}
}

func TestG17_KeyringsUntouched(t *testing.T) {
	needDryRun(t)
	const name = "warden-g17-key"
	tested := 0
	for _, ring := range []int{unix.KEY_SPEC_SESSION_KEYRING, unix.KEY_SPEC_USER_KEYRING, unix.KEY_SPEC_USER_SESSION_KEYRING} {
		// add_key(2) through perl: the key named name in each keyring.
		script := fmt.Sprintf(`perl -e 'my ($t, $n, $p) = ("user", "%s", "planted"); syscall(%d, $t, $n, $p, 7, %d) > 0 and print "ADDED\n"'`, name, unix.SYS_ADD_KEY, ring)
		// The control: run for real, the key lands where the test sees it.
		if out, err := exec.Command("/bin/sh", "-c", script).CombinedOutput(); err != nil || string(out) != "ADDED\n" {
			t.Logf("keyring %d: add_key: %v %s", ring, err, out)
			continue
		}
		id, err := unix.KeyctlSearch(ring, "user", name, 0)
		if err != nil {
			// The test process has no such keyring to share (a session
			// keyring is made for the child alone).
			continue
		}
		_, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, ring, 0, 0)
		tested++
		rep := run(t, t.TempDir(), script, Request{})
		if id, err := unix.KeyctlSearch(ring, "user", name, 0); err == nil {
			_, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, ring, 0, 0)
			t.Errorf("keyring %d: the dry run added a key to warden's (output %q)", ring, rep.Output)
		}
	}
	if tested == 0 {
		t.Skip("no keyring shared with child processes here")
	}
}

func TestG17_CredentialStoreReadsReported(t *testing.T) {
	needDryRun(t)
	home := outsideDir(t)
	t.Setenv("HOME", home)
	writeFiles(t, map[string]string{
		home + "/.ssh/id_ed25519": "KEY\n", home + "/.aws/credentials": "AWS\n", home + "/.netrc": "machine x\n",
		home + "/.docker/config.json": "{}\n", home + "/.aws/sso/cache/token.json": "{}\n",
	})
	rep := run(t, t.TempDir(), `cat ~/.ssh/id_ed25519 ~/.netrc ~/.aws/sso/cache/token.json >/dev/null; ls ~/.aws; echo hi > ~/.docker/other`, Request{})
	want := []string{home + "/.aws/sso/cache/token.json", home + "/.netrc", home + "/.ssh/id_ed25519"}
	if !slices.Equal(rep.Reads, want) {
		t.Errorf("reads %v, want %v (a listing and a write beside a store are not reads)", rep.Reads, want)
	}
	rep = run(t, t.TempDir(), `true`, Request{})
	if len(rep.Reads) != 0 || rep.Reads == nil {
		t.Errorf("reads %#v, want []", rep.Reads)
	}
}

func TestG17_BudgetsTooSmallRefused(t *testing.T) {
	for _, req := range []Request{
		{Argv: []string{"true"}, Memory: MinMemory - 1},
		{Argv: []string{"true"}, Timeout: -time.Second},
	} {
		if _, err := Run(context.Background(), req); err == nil {
			t.Errorf("%+v: no error", req)
		}
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func TestG17_NoDescriptorLeftOpen(t *testing.T) {
	needDryRun(t)
	home := outsideDir(t)
	t.Setenv("HOME", home)
	writeFiles(t, map[string]string{home + "/.netrc": "x\n", home + "/.ssh/id_rsa": "k\n"})
	run(t, t.TempDir(), "true", Request{}) // warm up: the probe, the runtime's own descriptors
	before := openFDs(t)
	run(t, t.TempDir(), "cat ~/.netrc", Request{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Run(ctx, Request{Argv: []string{"sleep", "10"}, Dir: t.TempDir()}); err == nil {
		t.Fatal("a cancelled dry run gave no error")
	}
	run(t, t.TempDir(), "sleep 10", Request{Timeout: 200 * time.Millisecond})
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open after three dry runs, %d before", after, before)
	}
}

func TestG17_ViewCannotBeLeft(t *testing.T) {
	needDryRun(t)
	work := t.TempDir()
	writeFiles(t, map[string]string{work + "/f": "real\n"})
	before := snapshot(t, work)
	// Undo the overlays, remount, make a namespace of one's own, leave
	// the root: each fails, and the write after lands in the view.
	script := `cd ` + work + `
umount -l ` + work + ` ; umount -l / ; umount -l /tmp
mount -o remount,rw / ; mount --bind /proc/1/root /mnt
unshare -Urm sh -c 'echo escaped > ` + work + `/f'
chroot /proc/1/root sh -c 'echo escaped > ` + work + `/f'
perl -e 'chroot("/proc/1/root") or print "no chroot\n"'
echo escaped > f; exit 0`
	rep := run(t, work, script, Request{})
	unchanged(t, before, work)
	if !slices.Contains(rep.Writes, work+"/f") {
		t.Errorf("writes %v: no %s (%q)", rep.Writes, work+"/f", rep.Output)
	}
}

func TestG17_ConcurrentDryRunsEachSeeTheirOwn(t *testing.T) {
	needDryRun(t)
	home := outsideDir(t)
	t.Setenv("HOME", home)
	writeFiles(t, map[string]string{home + "/.ssh/id_rsa": "k\n", home + "/.aws/credentials": "a\n", home + "/.aws/sso/cache/t": "t\n"})
	const n = 4
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			dir := t.TempDir()
			rep, err := Run(context.Background(), Request{Argv: []string{"/bin/sh", "-c", fmt.Sprintf("cat ~/.ssh/id_rsa >/dev/null; echo %d > mine", i)}, Dir: dir})
			switch {
			case err != nil:
				errs <- err
			case !slices.Equal(rep.Creates, []string{dir + "/mine"}) || !slices.Equal(rep.Reads, []string{home + "/.ssh/id_rsa"}):
				errs <- fmt.Errorf("dry run %d: creates %v, reads %v", i, rep.Creates, rep.Reads)
			default:
				errs <- nil
			}
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
