//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// actEnv, when set, makes the test binary run the operations given as its
// arguments instead of the tests: it is the command the tests run under the
// sandbox, so that they can see the exact errno of each operation.
const actEnv = "WARDEN_SANDBOX_TEST_ACT"

func TestMain(m *testing.M) {
	if os.Getenv(actEnv) != "" {
		for _, op := range os.Args[1:] {
			fmt.Println(act(op))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// argAt returns field i of an operation, or "" where it has fewer.
func argAt(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// act performs one operation "name|arg|arg" and describes the outcome:
// "ok", or "errno=NAME" (e.g. errno=EACCES), or the error text.
func act(op string) string {
	f := strings.Split(op, "|")
	arg := func(i int) string { return argAt(f, i) }
	var err error
	switch f[0] {
	case "write": // create or truncate
		err = os.WriteFile(arg(1), []byte("x\n"), 0o644)
	case "append":
		var fh *os.File
		if fh, err = os.OpenFile(arg(1), os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = fh.WriteString("x\n")
			fh.Close()
		}
	case "read":
		_, err = os.ReadFile(arg(1))
	case "mkdir":
		err = os.Mkdir(arg(1), 0o755)
	case "remove":
		err = os.Remove(arg(1))
	case "rename":
		err = os.Rename(arg(1), arg(2))
	case "symlink":
		err = os.Symlink(arg(1), arg(2))
	case "chmod":
		err = os.Chmod(arg(1), 0o755)
	case "chmod000":
		err = os.Chmod(arg(1), 0)
	case "utime":
		old := time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)
		err = os.Chtimes(arg(1), old, old)
	case "setxattr":
		err = syscall.Setxattr(arg(1), "user.warden", []byte("x"), 0)
	case "chown":
		err = os.Lchown(arg(1), os.Getuid(), os.Getgid())
	case "link":
		err = os.Link(arg(1), arg(2))
	case "unixdial": // connect to a UNIX socket server, send ping, read the answer
		c, e := net.DialTimeout("unix", arg(1), 2*time.Second)
		if e != nil {
			err = e
			break
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err = c.Write([]byte("ping\n")); err == nil {
			buf := make([]byte, 16)
			n, e := c.Read(buf)
			if e != nil {
				err = e
				break
			}
			return "answer=" + strings.TrimSpace(string(buf[:n]))
		}
	case "unixserve": // serve on a UNIX socket of our own and reach it
		ln, e := net.Listen("unix", arg(1))
		if e != nil {
			err = e
			break
		}
		defer ln.Close()
		go func() {
			if c, e := ln.Accept(); e == nil {
				c.Write([]byte("pong\n"))
				c.Close()
			}
		}()
		c, e := net.DialTimeout("unix", arg(1), 2*time.Second)
		if e != nil {
			err = e
			break
		}
		c.Close()
	case "socketpair":
		fds, e := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err = e; e == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
	case "socketpair-dgram":
		fds, e := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
		if err = e; e == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
	case "iouring": // io_uring_setup with a null params pointer
		_, _, e := syscall.Syscall(425, 1, 0, 0)
		if e != 0 {
			err = e
		}
	case "pid":
		return strconv.Itoa(os.Getpid())
	case "connect":
		var c net.Conn
		if c, err = net.DialTimeout("tcp", arg(1), 2*time.Second); err == nil {
			c.Close()
		}
	case "dialmsg": // the error text of a connection, as a program would print it
		c, err := net.DialTimeout("tcp", arg(1), 2*time.Second)
		if err != nil {
			return err.Error()
		}
		c.Close()
		return "ok"
	case "selfloop": // serve and connect on this process's own loopback
		var ln net.Listener
		if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err == nil {
			var c net.Conn
			if c, err = net.DialTimeout("tcp", ln.Addr().String(), 2*time.Second); err == nil {
				c.Close()
			}
			ln.Close()
		}
	case "ifaces":
		ifs, err := net.Interfaces()
		if err != nil {
			return err.Error()
		}
		var names []string
		for _, i := range ifs {
			names = append(names, i.Name)
		}
		return strings.Join(names, ",")
	case "opentty":
		var fh *os.File
		if fh, err = os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
			fh.Close()
		}
	case "tiocsti": // type a character into the terminal on stdin
		c := byte('#')
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, 0, syscall.TIOCSTI, uintptr(unsafe.Pointer(&c))); e != 0 {
			err = e
		}
	case "ttyparent": // with a controlling terminal, run a sandboxed child on it
		fh, e := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if e != nil {
			return "parent has no terminal: " + e.Error()
		}
		fh.Close()
		exe, _ := os.Executable()
		cmd, e := (Policy{Mode: WorkspaceWrite, Workdir: arg(1)}).Command(context.Background(), exe, "opentty", "tiocsti")
		if e != nil {
			return e.Error()
		}
		cmd.Stdin = os.Stdin
		out, e := cmd.CombinedOutput()
		if e != nil {
			return e.Error() + ": " + string(out)
		}
		return strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", " ")
	case "caps": // the capability sets, as /proc/self/status shows them
		b, _ := os.ReadFile("/proc/self/status")
		var caps []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "Cap") || strings.HasPrefix(line, "NoNewPrivs") {
				caps = append(caps, strings.ReplaceAll(line, "\t", ""))
			}
		}
		return strings.Join(caps, " ")
	case "unroot": // try to make the mount at a path writable again
		attr := [4]uint64{0, 1, 0, 0} // clear MOUNT_ATTR_RDONLY
		p, _ := syscall.BytePtrFromString(arg(1))
		const sysMountSetattr = 442
		if _, _, e := syscall.Syscall6(sysMountSetattr, uintptr(0xffffffffffffff9c), uintptr(unsafe.Pointer(p)), 0, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0); e != 0 {
			err = e
		}
	case "umount":
		err = syscall.Unmount(arg(1), syscall.MNT_DETACH)
	case "unshare-user":
		cmd := exec.Command("unshare", "--user", "true")
		if out, e := cmd.CombinedOutput(); e != nil {
			return "failed: " + strings.TrimSpace(string(out))
		}
		return "ok"
	case "idmap": // this process's ID maps and effective IDs
		u, _ := os.ReadFile("/proc/self/uid_map")
		g, _ := os.ReadFile("/proc/self/gid_map")
		return strings.Join(strings.Fields(string(u)), " ") + "|" + strings.Join(strings.Fields(string(g)), " ") +
			"|" + strconv.Itoa(os.Geteuid()) + ":" + strconv.Itoa(os.Getegid())
	case "sandboxed": // run the remaining operations in a read-only sandboxed child
		exe, _ := os.Executable()
		cmd, e := (Policy{Mode: ReadOnly, Workdir: "/"}).Command(context.Background(), exe, f[1:]...)
		if e != nil {
			return e.Error()
		}
		out, e := cmd.CombinedOutput()
		if e != nil {
			return e.Error() + ": " + string(out)
		}
		return strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", " ")
	case "sockets": // the sockets among this process's descriptors
		names, _ := os.ReadDir("/proc/self/fd")
		var socks []string
		for _, n := range names {
			if l, e := os.Readlink("/proc/self/fd/" + n.Name()); e == nil && strings.HasPrefix(l, "socket:") {
				socks = append(socks, n.Name())
			}
		}
		return "sockets:" + strings.Join(socks, ",")
	case "setgroups":
		b, _ := os.ReadFile("/proc/self/setgroups")
		return strings.TrimSpace(string(b))
	case "env":
		return strings.Join(os.Environ(), " ")
	case "cmdline":
		b, _ := os.ReadFile("/proc/self/cmdline")
		return strings.ReplaceAll(string(b), "\x00", " ")
	default:
		if fn, ok := moreActs[f[0]]; ok {
			return fn(f[1:])
		}
		if out, ok := coverAct(f); ok {
			return out
		}
		return "unknown op " + f[0]
	}
	return outcome(err)
}

// moreActs are operations that act performs besides its own, by name,
// given the arguments after the name (registered by other test files).
var moreActs = map[string]func(args []string) string{}

var errnoNames = map[syscall.Errno]string{
	syscall.EACCES: "EACCES", syscall.EROFS: "EROFS", syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT",
	syscall.EXDEV: "EXDEV", syscall.EBUSY: "EBUSY", syscall.ECONNREFUSED: "ECONNREFUSED",
	syscall.ENETUNREACH: "ENETUNREACH", syscall.EEXIST: "EEXIST", syscall.ENOTEMPTY: "ENOTEMPTY",
	syscall.ENXIO: "ENXIO", syscall.ENOTTY: "ENOTTY", syscall.ENOSYS: "ENOSYS", syscall.EFAULT: "EFAULT",
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if n, ok := errnoNames[errno]; ok {
			return "errno=" + n
		}
	}
	return err.Error()
}

// childEnv is the environment of a test child: this one, asking for act
// mode, and without the race detector's one-second pause at exit.
func childEnv() []string {
	env := append(os.Environ(), actEnv+"=1")
	if os.Getenv("GORACE") == "" {
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	return env
}

// run runs the operations in one sandboxed child under p and returns their
// outcomes, in order.
func run(t testing.TB, p Policy, ops ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := p.Command(context.Background(), exe, ops...)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	cmd.Dir = p.Workdir
	cmd.Env = childEnv()
	return childResults(t, cmd, "sandboxed", ops)
}

// childResults runs cmd, a child (what: sandboxed or covered) that performs
// ops, and returns the line it printed for each.
func childResults(t testing.TB, cmd *exec.Cmd, what string, ops []string) []string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s child: %v\n%s", what, err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(ops) {
		t.Fatalf("child printed %d lines for %d operations:\n%s", len(got), len(ops), out)
	}
	return got
}

// expect runs ops (operation → wanted outcome) in one child and reports
// every mismatch.
func expect(t *testing.T, p Policy, cases [][2]string) {
	t.Helper()
	ops := make([]string, len(cases))
	for i, c := range cases {
		ops[i] = c[0]
	}
	got := run(t, p, ops...)
	for i, c := range cases {
		if got[i] != c[1] {
			t.Errorf("%s: got %s, want %s", c[0], got[i], c[1])
		}
	}
}
