//go:build linux

package sandbox

import (
	"context"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/nettest"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/wardenhome"
	"golang.org/x/sys/unix"
)

// coverAct performs the operations of the G16 tests (see act).
func coverAct(f []string) (string, bool) {
	arg := func(i int) string { return argAt(f, i) }
	var err error
	switch f[0] {
	case "readdir": // the names a directory lists
		var ents []os.DirEntry
		if ents, err = os.ReadDir(arg(1)); err == nil {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			return "ok:" + strings.Join(names, ","), true
		}
	case "stat":
		_, err = os.Stat(arg(1))
	case "content": // what a file holds
		var b []byte
		if b, err = os.ReadFile(arg(1)); err == nil {
			return "content:" + strings.TrimSpace(string(b)), true
		}
	case "umount-attached": // unmount without detaching
		err = syscall.Unmount(arg(1), 0)
	case "mountmove": // move the mount at arg 1 to arg 2
		if err = os.MkdirAll(arg(2), 0o700); err == nil {
			err = syscall.Mount(arg(1), arg(2), "", syscall.MS_MOVE, "")
		}
	case "remountrw": // make the bind at a path writable again
		err = syscall.Mount("none", arg(1), "", syscall.MS_REMOUNT|syscall.MS_BIND, "")
	case "bindnorec": // bind a directory without its submounts (the covers), then read through the bind
		if err = os.MkdirAll(arg(2), 0o700); err == nil {
			if err = syscall.Mount(arg(1), arg(2), "", syscall.MS_BIND, ""); err == nil {
				var b []byte
				if b, err = os.ReadFile(filepath.Join(arg(2), arg(3))); err == nil {
					return "read:" + strings.TrimSpace(string(b)), true
				}
			}
		}
	case "overmount": // mount a tmpfs of its own over a path (allowed: it hides, never shows)
		err = syscall.Mount("tmpfs", arg(1), "tmpfs", 0, "size=4k")
	case "byhandle": // open a file by the handle given in hex (for the mount of /) and read it
		raw, e := hex.DecodeString(arg(2))
		if e != nil {
			return e.Error(), true
		}
		typ, _ := strconv.Atoi(arg(1))
		h := unix.NewFileHandle(int32(typ), raw)
		mfd, e := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if e != nil {
			return e.Error(), true
		}
		defer unix.Close(mfd)
		fd, e := unix.OpenByHandleAt(mfd, h, unix.O_RDONLY)
		if err = e; e == nil {
			b := make([]byte, 256)
			n, _ := unix.Read(fd, b)
			unix.Close(fd)
			return "read:" + strings.TrimSpace(string(b[:n])), true
		}
	case "setns-mnt": // enter the helper's mount namespace
		fd, e := unix.Open(arg(1), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err = e; e == nil {
			err = unix.Setns(fd, unix.CLONE_NEWNS)
			unix.Close(fd)
		}
	case "mknod": // make a block device node with the given major and minor
		maj, _ := strconv.Atoi(arg(2))
		mnr, _ := strconv.Atoi(arg(3))
		err = unix.Mknod(arg(1), unix.S_IFBLK|0o600, int(unix.Mkdev(uint32(maj), uint32(mnr))))
	case "mountblk": // mount the file system of a block device, by number, through a node made in a tmpfs
		dir, e := os.MkdirTemp("", "blk")
		if e != nil {
			return e.Error(), true
		}
		maj, _ := strconv.Atoi(arg(1))
		mnr, _ := strconv.Atoi(arg(2))
		node := filepath.Join(dir, "node")
		if err = unix.Mknod(node, unix.S_IFBLK|0o600, int(unix.Mkdev(uint32(maj), uint32(mnr)))); err == nil {
			err = syscall.Mount(node, dir, arg(3), syscall.MS_RDONLY, "")
		}
	case "ptmx": // make a pty of its own and pass bytes through it
		m, s, e := ptytest.Pair()
		if err = e; e != nil {
			break
		}
		defer m.Close()
		defer s.Close()
		if _, err = s.WriteString("hi\n"); err == nil {
			b := make([]byte, 16)
			var k int
			if k, err = m.Read(b); err == nil && !strings.Contains(string(b[:k]), "hi") {
				return "pty passed " + strconv.Quote(string(b[:k])), true
			}
		}
	case "devscan": // what of /dev a covered or sandboxed command should not have
		var bad []string
		_ = filepath.WalkDir("/dev", func(p string, d fs.DirEntry, e error) error {
			if p == "/dev/pts" {
				return filepath.SkipDir // listed below
			}
			if e != nil {
				return nil
			}
			fi, e := os.Lstat(p)
			if e != nil {
				return nil
			}
			st := fi.Sys().(*syscall.Stat_t)
			switch fi.Mode().Type() {
			case fs.ModeDevice: // block
				bad = append(bad, p)
			case fs.ModeDevice | fs.ModeCharDevice:
				if personTerminal(st.Rdev) {
					bad = append(bad, p)
				}
			}
			return nil
		})
		ents, _ := os.ReadDir("/dev/pts")
		for _, e := range ents {
			if e.Name() != "ptmx" {
				bad = append(bad, "/dev/pts/"+e.Name())
			}
		}
		if len(bad) == 0 {
			return "clean", true
		}
		return "unclean:" + strings.Join(bad, ","), true
	case "unshare-umount": // a mount namespace of its own, the cover unmounted there, then read
		runtime.LockOSThread() // the thread leaves the namespace; it is not reused
		if err = unix.Unshare(unix.CLONE_NEWNS); err != nil {
			break
		}
		if err = syscall.Unmount(arg(1), syscall.MNT_DETACH); err != nil {
			break
		}
		var b []byte
		if b, err = os.ReadFile(arg(2)); err == nil {
			return "read:" + strings.TrimSpace(string(b)), true
		}
	default:
		return "", false
	}
	return outcome(err), true
}

// personTerminal reports whether rdev is a terminal device other than
// /dev/tty: consoles, serial ports, screen memory, BSD and Unix98 ptys.
func personTerminal(rdev uint64) bool {
	maj, mnr := unix.Major(rdev), unix.Minor(rdev)
	return maj == 4 || maj == 7 || maj == 2 || maj == 3 || (maj == 5 && mnr != 0) || (maj >= 136 && maj <= 143)
}

// covered runs the operations in one child through Cover, in dir, and
// returns their outcomes.
func covered(t *testing.T, dir string, ops ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, ops...)
	cmd.Dir = dir
	cmd.Env = childEnv()
	if err := Cover(cmd); err != nil {
		t.Fatalf("Cover: %v", err)
	}
	return childResults(t, cmd, "covered", ops)
}

// coveredState makes warden's state for a G16 test: a home holding a key,
// a token, a transcript and a store with its write-ahead log, and a
// person's home apart. It returns both.
func coveredState(t *testing.T) (state, home string) {
	t.Helper()
	state = filepath.Join(scratch(t), "state")
	home = mkdir(t, scratch(t), "home")
	t.Setenv(wardenhome.EnvHome, state)
	t.Setenv("HOME", home)
	t.Setenv(wardenhome.EnvManagedConfig, filepath.Join(scratch(t), "managed.toml"))
	writeFile(t, filepath.Join(state, "keys", "override.key"), "SECRET-KEY\n")
	writeFile(t, filepath.Join(state, "token"), "SECRET-TOKEN\n")
	writeFile(t, filepath.Join(state, "runs", "r1.jsonl"), "SECRET-TRANSCRIPT\n")
	writeFile(t, filepath.Join(state, "warden.db"), "SECRET-DB\n")
	writeFile(t, filepath.Join(state, "warden.db-wal"), "SECRET-WAL\n")
	return state, home
}

// stateSnapshot lists every file under dir with its content.
func stateSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(b)
		} else {
			out[p] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func requireCover(t *testing.T) {
	t.Helper()
	if err := Namespaces(); err != nil {
		t.Skipf("no user namespaces: %v", err)
	}
}

// TestG16_CoveredCommandCannotReachState: a command run outside the
// sandbox (full access, an approved escalation, a task without a sandbox)
// reads and writes what it likes, but warden's state — keys, token,
// transcripts, the store and its -wal — is neither readable nor writable,
// and none of the ways root in its namespaces could take the cover away
// works: unmounting it (detached or not, also from a namespace of its
// own), moving it, making it writable, binding its parent without it,
// entering the helper's namespace, reading through /proc/1/root, opening
// the files by handle, or mounting the disk below it.
func TestG16_CoveredCommandCannotReachState(t *testing.T) {
	requireCover(t)
	state, home := coveredState(t)
	before := stateSnapshot(t, state)
	token := filepath.Join(state, "token")
	fh, _, err := unix.NameToHandleAt(unix.AT_FDCWD, token, 0)
	if err != nil {
		t.Fatalf("name_to_handle_at: %v", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(token, &st); err != nil {
		t.Fatal(err)
	}
	// The disk that holds the state, by number, and its file system.
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	fstype := "ext4"
	ops := []string{
		"read|" + token,
		"read|" + filepath.Join(state, "keys", "override.key"),
		"read|" + filepath.Join(state, "runs", "r1.jsonl"),
		"read|" + filepath.Join(state, "warden.db"),
		"read|" + filepath.Join(state, "warden.db-wal"),
		"readdir|" + state,
		"write|" + filepath.Join(state, "config.toml"),
		"write|" + token,
		"mkdir|" + filepath.Join(state, "new"),
		"umount|" + state,
		"umount-attached|" + state,
		"mountmove|" + state + "|" + filepath.Join(home, "moved"),
		"remountrw|" + state,
		"unroot|" + state,
		"bindnorec|/|" + filepath.Join(home, "root") + "|" + strings.TrimPrefix(token, "/"),
		"bindnorec|" + filepath.Dir(state) + "|" + filepath.Join(home, "parent") + "|" + filepath.Base(state) + "/token",
		"setns-mnt|/proc/1/ns/mnt",
		"read|/proc/1/root" + token,
		"byhandle|" + strconv.Itoa(int(fh.Type())) + "|" + hex.EncodeToString(fh.Bytes()),
		"mknod|" + filepath.Join(home, "disk") + "|" + strconv.Itoa(int(major)) + "|" + strconv.Itoa(int(minor)),
		"mountblk|" + strconv.Itoa(int(major)) + "|" + strconv.Itoa(int(minor)) + "|" + fstype,
		"unshare-umount|" + state + "|" + token,
		"read|" + token, // once more, after every attempt
	}
	got := covered(t, home, ops...)
	for i, g := range got {
		t.Logf("%s: %s", ops[i], g)
		if strings.Contains(g, "SECRET") || strings.HasPrefix(g, "read:") || (g == "ok" && !strings.HasPrefix(ops[i], "mkdir")) {
			t.Errorf("%s: %s", ops[i], g)
		}
		if strings.HasPrefix(ops[i], "mkdir") && g == "ok" {
			t.Errorf("%s: created a directory in warden's state", ops[i])
		}
	}
	if got[5] != "errno=EACCES" && got[5] != "ok:" {
		t.Errorf("listing the state: %s, want nothing", got[5])
	}
	// The effect: the state is what it was.
	if after := stateSnapshot(t, state); !maps.Equal(before, after) {
		t.Errorf("warden's state changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(filepath.Join(home, "moved", "token")); err == nil {
		t.Error("the state was moved out")
	}
}

// TestG16_CoveredCommandKeepsFullAccess: the cover takes nothing else away:
// the command writes in the person's home and elsewhere, reaches the
// host's network (a server the test listens on), makes ptys of its own,
// and keeps the character devices people use.
func TestG16_CoveredCommandKeepsFullAccess(t *testing.T) {
	requireCover(t)
	_, home := coveredState(t)
	addr := nettest.Listen(t)
	elsewhere := mkdir(t, scratch(t), "elsewhere")
	managed := os.Getenv(wardenhome.EnvManagedConfig)
	ops := []string{
		"write|" + filepath.Join(home, ".bashrc"),
		"mkdir|" + filepath.Join(home, ".cache"),
		"write|" + filepath.Join(elsewhere, "out"),
		"connect|" + addr,
		"ptmx",
		"write|/dev/null",
		"append|/dev/zero",
		"overmount|" + elsewhere,
		"caps",
		"write|" + managed, // planted where there was none: swept after
	}
	var keep []string
	for _, d := range []string{"/dev/kvm", "/dev/fuse", "/dev/net/tun"} {
		if fi, err := os.Stat(d); err == nil && fi.Mode()&fs.ModeCharDevice != 0 {
			keep = append(keep, d)
			ops = append(ops, "stat|"+d)
		}
	}
	watch := WatchState()
	got := covered(t, home, ops...)
	for i, g := range got[:8] {
		if g != "ok" {
			t.Errorf("%s: %s", ops[i], g)
		}
	}
	if strings.Contains(got[8], "CapEff:0000000000000000") && os.Geteuid() == 0 {
		t.Errorf("root lost its capabilities in its namespace: %s", got[8])
	}
	for i, d := range keep {
		if got[10+i] != "ok" {
			t.Errorf("%s: %s, want the device kept", d, got[10+i])
		}
	}
	moved, err := watch.Sweep()
	if err != nil || len(moved) != 1 || moved[0].Path != managed {
		t.Errorf("Sweep = %v, %v; want the planted managed configuration moved", moved, err)
	}
	if _, err := os.Stat(managed); err == nil {
		t.Errorf("%s stays planted", managed)
	}
	for _, f := range []string{filepath.Join(home, ".bashrc"), filepath.Join(elsewhere, "out")} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "x\n" {
			t.Errorf("%s: %q, %v: the write did not reach the host", f, b, err)
		}
	}
	// Its own mounts stay its own.
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Errorf("%s holds %v after the command's tmpfs went", elsewhere, ents)
	}
}

// openPersonTerminal opens a pty pair of the host's, as the person's
// terminal: it returns the master and the slave's path.
func openPersonTerminal(t *testing.T) (*os.File, string) {
	t.Helper()
	m, term := ptytest.Open(t) // the person's shell holds the terminal open
	return m, term.Name()
}

// received returns what the person's terminal (its master) received.
func received(t *testing.T, m *os.File) string {
	t.Helper()
	fd := int(m.Fd()) // once: Fd makes the descriptor blocking
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4096)
	n, err := syscall.Read(fd, b)
	if n <= 0 || errors.Is(err, syscall.EAGAIN) {
		return ""
	}
	return string(b[:n])
}

// hostBlockDevices lists the block devices in the host's /dev.
func hostBlockDevices() []string {
	var out []string
	ents, _ := os.ReadDir("/sys/block")
	for _, e := range ents {
		p := "/dev/" + e.Name()
		if fi, err := os.Stat(p); err == nil && fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0 {
			out = append(out, p)
		}
	}
	return out
}

// TestG16_NoTerminalNoBlockDevice: in every mode, sandboxed or not, a
// command cannot open the person's terminal by its /dev/pts path (an
// attack drew a fake approval prompt there) nor any other terminal, and
// no block device exists for it to read past the covers; it still makes
// ptys of its own.
func TestG16_NoTerminalNoBlockDevice(t *testing.T) {
	requireCover(t)
	_, home := coveredState(t)
	m, slave := openPersonTerminal(t)
	blocks := hostBlockDevices()
	ops := []string{"write|" + slave, "append|" + slave, "devscan", "ptmx", "write|/dev/null"}
	for _, b := range blocks {
		ops = append(ops, "read|"+b)
	}
	want := func(t *testing.T, got []string) {
		t.Helper()
		for i, g := range got {
			switch {
			case i < 2 && g == "ok":
				t.Errorf("%s: wrote to the person's terminal", ops[i])
			case i == 2 && g != "clean":
				t.Errorf("devscan: %s", g)
			case (i == 3 || i == 4) && g != "ok":
				t.Errorf("%s: %s", ops[i], g)
			case i >= 5 && g != "errno=ENOENT":
				t.Errorf("%s: %s, want no such device", ops[i], g)
			}
		}
		if r := received(t, m); r != "" {
			t.Errorf("the person's terminal received %q", r)
		}
	}
	t.Run("covered", func(t *testing.T) { want(t, covered(t, home, ops...)) })
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			requireNamespaces(t)
			want(t, run(t, Policy{Mode: mode, Workdir: home}, ops...))
		})
	}
	// The test can fail: the host's /dev has the terminal.
	if err := os.WriteFile(slave, []byte("x"), 0); err != nil {
		t.Fatalf("the person's terminal is not writable here: %v", err)
	}
	if r := received(t, m); r != "x" {
		t.Fatalf("the person's terminal received %q from the test itself", r)
	}
}

// TestG16_CoverUnsupportedSaysWhy: where user namespaces are missing, Cover
// refuses (escalations then fail closed) and says what it cannot protect.
func TestG16_CoverUnsupportedSaysWhy(t *testing.T) {
	saved := userNamespaces
	defer func() { userNamespaces = saved }()
	userNamespaces = func() error { return errors.New("user.max_user_namespaces is 0") }
	cmd := exec.Command("/bin/true")
	err := Cover(cmd)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Cover = %v, want ErrUnsupported", err)
	}
	for _, want := range []string{"max_user_namespaces", "warden's state", "terminal", "block devices"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if cmd.Path != "/bin/true" || cmd.SysProcAttr != nil || !slices.Equal(cmd.Args, []string{"/bin/true"}) {
		t.Errorf("Cover changed the command it refused: %v %v", cmd.Path, cmd.Args)
	}
}

// TestG16_CoverRefusesTamperedCommands: the helper refuses to run a
// command whose namespaces were taken away after Cover.
func TestG16_CoverRefusesTamperedCommands(t *testing.T) {
	requireCover(t)
	coveredState(t)
	cmd := exec.CommandContext(context.Background(), "/bin/true")
	if err := Cover(cmd); err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = nil
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "warden: sandbox:") {
		t.Errorf("tampered covered command: %v, %s", err, out)
	}
}

// TestG16_CoveredInsideStateHome: a command that runs in a directory inside
// warden's home still starts there, and still cannot read the secrets
// beside it.
func TestG16_CoveredInsideStateHome(t *testing.T) {
	requireCover(t)
	state, _ := coveredState(t)
	work := mkdir(t, state, "work")
	got := covered(t, work, "write|"+filepath.Join(work, "f"), "content|"+filepath.Join(state, "token"),
		"content|"+filepath.Join(state, "keys", "override.key"), "content|"+filepath.Join(state, "warden.db-wal"))
	if got[0] != "ok" {
		t.Errorf("writing in its own directory: %s", got[0])
	}
	for i, g := range got[1:] {
		if g != "content:" && strings.HasPrefix(g, "content:") || strings.Contains(g, "SECRET") {
			t.Errorf("read %d of warden's state: %s", i+1, g)
		}
	}
}
