//go:build linux

package dryrun

import (
	"fmt"
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
	"github.com/wardenhq/warden/internal/nettest"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
	"golang.org/x/sys/unix"
)

// The attacks of SPEC G17's "what the dry run must never do" that the
// tests of dryrun_linux_test.go leave out: every kind of socket to a
// listener on the host, metadata of real files, the person's terminal by
// ioctl, other processes by ptrace, a fork bomb and a daemon. Each checks
// the effect outside, not the command's own account of it.

// python is the interpreter the attacks are written in; a test is skipped
// where the system has none.
func python(t *testing.T) string {
	t.Helper()
	const p = "/usr/bin/python3"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s: %v", p, err)
	}
	return p
}

// pyScript writes a Python program into a new directory and returns its
// path.
func pyScript(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "attack.py")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostListener is a server on the host that counts what reaches it.
type hostListener struct {
	arrived chan string
	addr    string // as the attack names it: "127.0.0.1 PORT", "PATH", "@NAME"
}

// listenHost starts a server of network ("tcp4", "tcp6", "udp4", "udp6",
// "unix", "unixgram", "unix-abstract", "unixgram-abstract") on the host,
// closed when the test ends.
func listenHost(t *testing.T, network string) *hostListener {
	t.Helper()
	h := &hostListener{arrived: make(chan string, 8)}
	dir := outsideDir(t)
	abstract := "@warden-g17-" + strconv.Itoa(os.Getpid()) + "-" + network
	// Where each network listens: the network as net names it, and the
	// address.
	at := map[string][2]string{
		"tcp4": {"tcp4", "127.0.0.1:0"}, "tcp6": {"tcp6", "[::1]:0"},
		"unix": {"unix", filepath.Join(dir, "s.sock")}, "unix-abstract": {"unix", abstract},
		"udp4": {"udp4", "127.0.0.1:0"}, "udp6": {"udp6", "[::1]:0"},
		"unixgram": {"unixgram", filepath.Join(dir, "d.sock")}, "unixgram-abstract": {"unixgram", abstract},
	}[network]
	switch at[0] {
	case "tcp4", "tcp6", "unix":
		ln, err := net.Listen(at[0], at[1])
		if err != nil {
			t.Skipf("%s: %v", network, err)
		}
		h.addr = nettest.Accept(t, ln, func(net.Conn) { h.arrived <- "connection" })
	default:
		pc, err := net.ListenPacket(at[0], at[1])
		if err != nil {
			t.Skipf("%s: %v", network, err)
		}
		t.Cleanup(func() { pc.Close() })
		go func() {
			buf := make([]byte, 512)
			for {
				n, _, err := pc.ReadFrom(buf)
				if err != nil {
					return
				}
				h.arrived <- "datagram " + string(buf[:n])
			}
		}()
		h.addr = pc.LocalAddr().String()
	}
	if host, port, err := net.SplitHostPort(h.addr); err == nil && !strings.HasPrefix(network, "unix") {
		h.addr = host + " " + port
	}
	return h
}

// nothing fails the test if anything reached h within d.
func (h *hostListener) nothing(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case what := <-h.arrived:
		t.Errorf("the host's listener received a %s from the dry run", what)
	case <-time.After(d):
	}
}

// netAttack is a Python program that tries to reach ADDR (argv[1], and
// argv[2] the port of an IP address) every way a socket of its family
// allows: connect, sendto, sendmsg, and a connected datagram socket's
// send. It says which attempts the kernel let through.
const netAttack = `import socket, sys
kind, addr = sys.argv[1], sys.argv[2:]
def ip(fam, typ):
    a = (addr[0], int(addr[1]))
    for how in ("connect", "sendto", "sendmsg", "connected-send"):
        try:
            s = socket.socket(fam, typ)
            s.settimeout(1)
            if how == "connect":
                s.connect(a); s.send(b"x"); print("SENT", how)
            elif how == "sendto":
                s.sendto(b"sendto", a); print("SENT", how)
            elif how == "sendmsg":
                s.sendmsg([b"sendmsg"], [], 0, a); print("SENT", how)
            else:
                s.connect(a); s.send(b"connected"); print("SENT", how)
        except OSError as e:
            print("refused", how, e)
def local(typ, name):
    if name.startswith("@"):
        name = "\0" + name[1:]
    for how in ("connect", "sendto", "sendmsg"):
        try:
            s = socket.socket(socket.AF_UNIX, typ)
            s.settimeout(1)
            if how == "connect":
                s.connect(name); s.send(b"x"); print("SENT", how)
            elif how == "sendto":
                s.sendto(b"sendto", name); print("SENT", how)
            else:
                s.sendmsg([b"sendmsg"], [], 0, name); print("SENT", how)
        except OSError as e:
            print("refused", how, e)
{
    "tcp4": lambda: ip(socket.AF_INET, socket.SOCK_STREAM),
    "tcp6": lambda: ip(socket.AF_INET6, socket.SOCK_STREAM),
    "udp4": lambda: ip(socket.AF_INET, socket.SOCK_DGRAM),
    "udp6": lambda: ip(socket.AF_INET6, socket.SOCK_DGRAM),
    "unix": lambda: local(socket.SOCK_STREAM, addr[0]),
    "unixgram": lambda: local(socket.SOCK_DGRAM, addr[0]),
    "unix-abstract": lambda: local(socket.SOCK_STREAM, addr[0]),
    "unixgram-abstract": lambda: local(socket.SOCK_DGRAM, addr[0]),
}[kind]()
`

// TestG17_NetworkNeverReachedAnySocket tries, from a dry run, to reach a
// listener on the host's loopback of every kind (TCP and UDP over IPv4 and
// IPv6, UNIX stream and datagram sockets by path and in the abstract
// namespace) by connect, sendto and sendmsg: nothing arrives, and the
// connects and sends to an IP address are in the report's network.
func TestG17_NetworkNeverReachedAnySocket(t *testing.T) {
	needDryRun(t)
	py := python(t)
	attack := pyScript(t, netAttack)
	for _, network := range []string{"tcp4", "tcp6", "udp4", "udp6", "unix", "unixgram", "unix-abstract", "unixgram-abstract"} {
		t.Run(network, func(t *testing.T) {
			h := listenHost(t, network)
			argv := append([]string{py, attack, network}, strings.Fields(h.addr)...)
			rep, err := Run(t.Context(), Request{Argv: argv, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			h.nothing(t, 300*time.Millisecond)
			if rep.Exit != 0 {
				t.Fatalf("the attack did not run: exit %d, %q", rep.Exit, rep.Output)
			}
			// Sent to the view's own loopback, a datagram goes nowhere
			// real; the check that counts is the listener's.
			t.Logf("%s: %s", network, strings.ReplaceAll(strings.TrimSpace(rep.Output), "\n", "; "))
			if !strings.HasPrefix(network, "tcp") && !strings.HasPrefix(network, "udp") {
				return
			}
			host, port, _ := strings.Cut(h.addr, " ")
			p, _ := strconv.Atoi(port)
			ops := []string{"connect"}
			if strings.HasPrefix(network, "udp") {
				ops = append(ops, "sendto")
			}
			for _, op := range ops {
				if !slices.ContainsFunc(rep.Network, func(d effect.Dest) bool {
					return d.Op == op && d.Address == host && d.Port == p
				}) {
					t.Errorf("no %s to %s in the report's network %+v", op, h.addr, rep.Network)
				}
			}
		})
	}
}

// inodeState is what must not change of a real file's inode: its owner,
// mode, times of change and modification, flags and extended attributes.
type inodeState struct {
	uid, gid uint32
	mode     uint32
	mtime    unix.Timespec
	ctime    unix.Timespec
	flags    int
	xattrs   string
}

func statInode(t *testing.T, p string) inodeState {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	s := inodeState{uid: st.Uid, gid: st.Gid, mode: st.Mode, mtime: st.Mtim, ctime: st.Ctim}
	if f, err := os.Open(p); err == nil {
		s.flags, _ = unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		f.Close()
	}
	buf := make([]byte, 4096)
	if n, err := unix.Llistxattr(p, buf); err == nil {
		names := strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00")
		slices.Sort(names)
		for _, name := range names {
			v := make([]byte, 4096)
			m, _ := unix.Lgetxattr(p, name, v)
			s.xattrs += name + "=" + string(v[:max(m, 0)]) + ";"
		}
	}
	return s
}

// TestG17_MetadataUntouched changes the metadata of real files from a dry
// run every way a program can (mode, owner, group, times, extended
// attributes including a file capability, inode flags, a hard link): the
// real inodes' change times, owners, modes, flags and attributes stay as
// they were, and the report names the mode changes and the attributes set.
func TestG17_MetadataUntouched(t *testing.T) {
	needDryRun(t)
	py := python(t)
	work, out, home := t.TempDir(), outsideDir(t), hometest.InHome(t)
	var files []string
	for _, d := range []string{work, out, home} {
		p := filepath.Join(d, "victim")
		writeFiles(t, map[string]string{p: "victim\n"})
		files = append(files, p)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range files {
		_ = os.Chtimes(p, past, past)
	}
	// The change time moves on every change of an inode: wait for the
	// clock to pass it, so that a change in the dry run would show.
	time.Sleep(20 * time.Millisecond)
	before := map[string]inodeState{}
	for _, p := range files {
		before[p] = statInode(t, p)
	}
	attack := pyScript(t, `import os, sys, fcntl, struct, array
for p in sys.argv[1:]:
    for name, f in (
        ("chmod", lambda: os.chmod(p, 0o4777)),
        ("chown", lambda: os.chown(p, 0, 0)),
        ("chown-nobody", lambda: os.chown(p, 65534, 65534)),
        ("chgrp", lambda: os.chown(p, -1, os.getgid())),
        ("utime", lambda: os.utime(p, (0, 0))),
        ("xattr", lambda: os.setxattr(p, "user.warden", b"planted")),
        ("trusted-xattr", lambda: os.setxattr(p, "trusted.warden", b"planted")),
        # cap_setuid+ep: a version 2 file capability.
        ("setcap", lambda: os.setxattr(p, "security.capability", struct.pack("<IIIII", 0x02000001, 1 << 7, 0, 0, 0))),
        ("link", lambda: os.link(p, p + ".link")),
    ):
        try:
            f(); print("done", name, p)
        except OSError as e:
            print("refused", name, p, e)
    try:
        fd = os.open(p, os.O_RDONLY)
        fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0x10 | 0x20))  # FS_IOC_SETFLAGS: immutable, append-only
        print("done flags", p)
    except OSError as e:
        print("refused flags", p, e)
`)
	rep, err := Run(t.Context(), Request{Argv: append([]string{py, attack}, files...), Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Exit != 0 {
		t.Fatalf("the attack did not run: exit %d, %q", rep.Exit, rep.Output)
	}
	for _, p := range files {
		if now := statInode(t, p); now != before[p] {
			t.Errorf("%s: changed for real:\n now %+v\n was %+v", p, now, before[p])
		}
		if _, err := os.Lstat(p + ".link"); err == nil {
			t.Errorf("%s.link: linked for real", p)
		}
		if !strings.Contains(rep.Output, "done chmod "+p) {
			continue // the view refused it: nothing to report
		}
		// The chown after it clears the set-user-ID bit, as the kernel
		// does on a real file.
		if !slices.ContainsFunc(rep.Chmods, func(c effect.Chmod) bool { return c.Path == p && c.Mode == "0777" && c.Was == "0644" }) {
			t.Errorf("chmods %+v: no %s 0644 → 0777", rep.Chmods, p)
		}
		if strings.Contains(rep.Output, "done xattr "+p) && !slices.ContainsFunc(rep.Chmods, func(c effect.Chmod) bool {
			return c.Path == p && slices.Equal(c.Xattrs, []string{"user.warden"})
		}) {
			t.Errorf("chmods %+v: no attribute user.warden set on %s", rep.Chmods, p)
		}
	}
	t.Logf("output: %q", rep.Output)
	t.Logf("chmods %+v, writes %v, creates %v", rep.Chmods, rep.Writes, rep.Creates)
}

// termState is what must not change of the person's terminal.
type termState struct {
	termios unix.Termios
	winsize unix.Winsize
	pgrp    int
}

func readTermState(t *testing.T, term *os.File) termState {
	t.Helper()
	fd := int(term.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		t.Fatal(err)
	}
	pgrp, _ := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return termState{termios: *tio, winsize: *ws, pgrp: pgrp}
}

// ttyAttack types a command into a terminal (TIOCSTI), changes its size
// and modes and takes it as a controlling terminal, by the name given and
// by /dev/tty.
const ttyAttack = `import os, sys, fcntl, termios, struct
for name in ("fd0", "fd1", "fd2", sys.argv[1], "/dev/tty", "/dev/console"):
    try:
        fd = int(name[2:]) if name.startswith("fd") else os.open(name, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        print("no open", name, e); continue
    for what, f in (
        ("sti", lambda: [fcntl.ioctl(fd, termios.TIOCSTI, bytes([c])) for c in b"echo OWNED\n"]),
        ("winsz", lambda: fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 1, 2, 0, 0))),
        ("raw", lambda: termios.tcsetattr(fd, termios.TCSANOW, [0, 0, 0, 0, 0, 0, [b"\0"] * 32])),
        ("sctty", lambda: fcntl.ioctl(fd, termios.TIOCSCTTY, 1)),
        ("write", lambda: os.write(fd, b"\x1b]0;OWNED\x07")),
    ):
        try:
            f(); print("done", what, name)
        except (OSError, termios.error) as e:
            print("refused", what, name, e)
`

// TestG17_TerminalUntouchedByIoctl attacks the person's terminal, named
// to the dry run, by ioctl: typing a command into it (TIOCSTI), resizing
// it, changing its modes and stealing it as a controlling terminal.
// Nothing reaches the terminal's screen or its input, and its modes, size
// and foreground group stay as they were. The same program run for real
// on another terminal shows that the attack works where nothing stops it.
func TestG17_TerminalUntouchedByIoctl(t *testing.T) {
	needDryRun(t)
	py := python(t)
	attack := pyScript(t, ttyAttack)
	name := func(term *os.File) string {
		n, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(term.Fd())))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The control, on a terminal of its own.
	_, ctlTerm := ptytest.Open(t)
	ctlBefore := readTermState(t, ctlTerm)
	if out, err := exec.Command(py, attack, name(ctlTerm)).CombinedOutput(); err != nil {
		t.Fatalf("the control: %v %s", err, out)
	}
	if readTermState(t, ctlTerm) == ctlBefore {
		t.Fatal("the control: run for real, the attack changed nothing: it cannot show anything")
	}
	if n, _ := unix.IoctlGetInt(int(ctlTerm.Fd()), unix.TIOCINQ); n == 0 {
		t.Log("the control: TIOCSTI typed nothing here, even for real (dev.tty.legacy_tiocsti = 0)")
	}

	controller, term := ptytest.Open(t)
	before := readTermState(t, term)
	rep, err := Run(t.Context(), Request{Argv: []string{py, attack, name(term)}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ptytest.Quiet(t, controller, 300*time.Millisecond)
	if now := readTermState(t, term); now != before {
		t.Errorf("the terminal's state changed:\n now %+v\n was %+v", now, before)
	}
	// Typed input would wait in the terminal's input queue for its
	// reader.
	if n, err := unix.IoctlGetInt(int(term.Fd()), unix.TIOCINQ); err != nil || n != 0 {
		t.Errorf("the terminal's input holds %d bytes typed by the dry run (%v)", n, err)
	}
	t.Logf("output: %q", rep.Output)
}

// TestG17_ProcessesOutsideUntouchedByPtrace attaches to processes outside
// the dry run with ptrace (attach, seize), writes their memory through
// /proc and sends them signals by the numbers a process outside has: they
// are not traced, not stopped, and still run.
func TestG17_ProcessesOutsideUntouchedByPtrace(t *testing.T) {
	needDryRun(t)
	py := python(t)
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	pids := []int{victim.Process.Pid, os.Getpid(), os.Getppid(), 1}
	attack := pyScript(t, `import ctypes, os, sys, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
for pid in map(int, sys.argv[1:]):
    for name, req in (("attach", 16), ("seize", 0x4206)):
        r = libc.ptrace(req, pid, None, None)
        print("ptrace", name, pid, r, os.strerror(ctypes.get_errno()))
    try:
        with open("/proc/%d/mem" % pid, "r+b") as f:
            f.write(b"\0"); print("wrote mem", pid)
    except OSError as e:
        print("refused mem", pid, e)
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(pid, sig); print("signalled", pid, sig)
        except OSError as e:
            print("refused kill", pid, e)
`)
	args := []string{py, attack}
	for _, p := range pids {
		args = append(args, strconv.Itoa(p))
	}
	rep, err := Run(t.Context(), Request{Argv: args, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	for _, pid := range []int{victim.Process.Pid, os.Getpid()} {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatalf("process %d is gone: %v (%q)", pid, err, rep.Output)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "TracerPid:"); ok && strings.TrimSpace(v) != "0" {
				t.Errorf("process %d is traced by %s", pid, strings.TrimSpace(v))
			}
			if v, ok := strings.CutPrefix(line, "State:"); ok && (strings.Contains(v, "stopped") || strings.Contains(v, "tracing")) {
				t.Errorf("process %d is %s", pid, strings.TrimSpace(v))
			}
		}
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process outside: %v", err)
	}
	t.Logf("output: %q", rep.Output)
}

// TestG17_ForkBombAndDaemonEndWithTheBudget runs a fork bomb, and a
// daemon that forks twice, leaves the session, ignores the signals that
// end a session and closes its descriptors: the dry run ends at its time
// budget and leaves no process behind.
func TestG17_ForkBombAndDaemonEndWithTheBudget(t *testing.T) {
	needDryRun(t)
	const mark = "100.4545"
	for _, tc := range []struct {
		name, script string
		budget       time.Duration
	}{
		// The mark in the shell's command line names every process it
		// forks. Run as root (as CI runs), the dry run's RLIMIT_NPROC does
		// not bound the bomb (the kernel exempts root), so what the
		// machine must tear down at the budget doubles with every round
		// of forks: a short budget keeps that within the 6 s below on a
		// loaded machine (1s took 10.9 s once with every package's tests
		// running at once).
		{"forkbomb", `: ` + mark + `; b() { b | b & }; b; sleep ` + mark, 300 * time.Millisecond},
		{"daemon", `/usr/bin/perl -e 'use POSIX; exit 0 if fork; POSIX::setsid(); $SIG{HUP} = $SIG{TERM} = "IGNORE"; exit 0 if fork; chdir "/"; POSIX::close($_) for 0..63; exec "sleep", "` + mark + `"' ; sleep 0.2; exit 0`, time.Second},
		{"daemon-outlives-the-command", `setsid -f sh -c 'trap "" HUP TERM INT; exec sleep ` + mark + `' </dev/null >/dev/null 2>&1; exit 0`, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			rep := run(t, t.TempDir(), tc.script, Request{Timeout: tc.budget})
			took := time.Since(start)
			// A fork bomb's processes end with its namespace; on a loaded
			// machine that takes a moment.
			deadline := time.Now().Add(5 * time.Second)
			var left []string
			for {
				left = sandboxtest.Processes(mark)
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, p := range left {
				if pid, err := strconv.Atoi(p[:strings.IndexByte(p, ':')]); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if len(left) > 0 {
				t.Fatalf("%d processes outlived the dry run's budget, such as %s", len(left), left[0])
			}
			if took > 6*time.Second {
				t.Errorf("the budget of %v took %v", tc.budget, took)
			}
			if tc.name == "forkbomb" && !rep.TimedOut {
				t.Errorf("the fork bomb was not stopped at its budget: exit %d, %q", rep.Exit, rep.Output)
			}
			t.Logf("took %v, exit %d, timed out %v", took, rep.Exit, rep.TimedOut)
		})
	}
}
