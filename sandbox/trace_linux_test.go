//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/observe"
)

// observed is one command run traced: what the observer saw and what the
// command did.
type observed struct {
	fx   observe.Effects
	out  string
	exit int
}

// runObserved runs argv under a workspace-write policy on work with the
// network off, observed, and returns what was seen.
func runObserved(t testing.TB, work string, argv ...string) observed {
	t.Helper()
	return runTraced(t, work, true, argv...)
}

// runTraced is runObserved, or with observe false the same sandboxed run
// without the observer.
func runTraced(t testing.TB, work string, observing bool, argv ...string) observed {
	t.Helper()
	var o *observe.Observer
	if observing {
		var err error
		if o, err = observe.New(); err != nil {
			t.Fatal(err)
		}
	}
	cmd, out := startTraced(t, work, o, argv...)
	_ = cmd.Wait()
	r := observed{out: out.String(), exit: cmd.ProcessState.ExitCode()}
	if o != nil {
		var err error
		if r.fx, err = o.Stop(); err != nil {
			t.Fatalf("observer: %v", err)
		}
	}
	return r
}

// startTraced starts argv under a workspace-write policy on work with the
// network off, observed by o unless it is nil, and returns it with its
// output (stdout and stderr).
func startTraced(t testing.TB, work string, o *observe.Observer, argv ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	requireNamespaces(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: work}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	cmd, err := p.Command(ctx, argv[0], argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	if o != nil {
		if err := observeCmd(cmd, o); err != nil {
			t.Fatal(err)
		}
	}
	cmd.Dir = work
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if o != nil {
		o.Start()
	}
	return cmd, &out
}

// hasExec reports whether fx recorded a program whose argv is argv.
func hasExec(fx observe.Effects, argv ...string) bool {
	return slices.ContainsFunc(fx.Execs, func(e effect.Exec) bool { return slices.Equal(e.Argv, argv) })
}

func hasDest(fx observe.Effects, want effect.Dest) bool {
	return slices.Contains(fx.Network, want)
}

func TestG17_TraceExecs(t *testing.T) {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "x"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := "odd\x01arg with spaces\ttab\xff"
	r := runObserved(t, work, "/bin/sh", "-c", `ls >/dev/null; cat x | wc -l; /bin/echo "$0"`, odd)
	if r.exit != 0 || !strings.Contains(r.out, "3") {
		t.Fatalf("exit %d, output %q", r.exit, r.out)
	}
	if len(r.fx.Execs) == 0 || r.fx.Execs[0].Path != "/bin/sh" || r.fx.Execs[0].Argv[0] != "/bin/sh" {
		t.Fatalf("the command's own execution is not recorded first: %+v", r.fx.Execs)
	}
	t.Logf("execs: %q", r.fx.Execs)
	for _, argv := range [][]string{{"ls"}, {"cat", "x"}, {"wc", "-l"}, {"/bin/echo", odd}} {
		if !hasExec(r.fx, argv...) {
			t.Errorf("no exec of %q recorded: %+v", argv, r.fx.Execs)
		}
	}
	// execveat(2) of a descriptor (fexecve): the path it names.
	r2 := runObserved(t, work, "/usr/bin/python3", "-c", "import os; fd = os.open('/usr/bin/echo', os.O_RDONLY); os.execve(fd, ['echo', 'via-fd'], {})")
	if !slices.ContainsFunc(r2.fx.Execs, func(e effect.Exec) bool {
		return e.Path == "/usr/bin/echo" && slices.Equal(e.Argv, []string{"echo", "via-fd"})
	}) {
		t.Errorf("execveat not recorded: %q\n%s", r2.fx.Execs, r2.out)
	}
	// In order: ls before cat and wc (which run side by side), echo last.
	pos := func(name string) int {
		return slices.IndexFunc(r.fx.Execs, func(e effect.Exec) bool { return len(e.Argv) > 0 && e.Argv[0] == name })
	}
	if !(pos("ls") < pos("cat") && pos("ls") < pos("wc") && pos("wc") < pos("/bin/echo")) {
		t.Errorf("execs out of order: %+v", r.fx.Execs)
	}
	for _, e := range r.fx.Execs[1:] {
		if !filepath.IsAbs(e.Path) {
			t.Errorf("exec path %q is not absolute", e.Path)
		}
	}
}

// netScript tries destinations and lookups, printing each outcome.
const netScript = `
import socket, sys
def attempt(name, f):
    try:
        f()
        print(name, "ok")
    except OSError as e:
        print(name, "errno", e.errno)
def tcp4():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.settimeout(3); s.connect(("10.1.2.3", 443))
def tcp6():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); s.settimeout(3); s.connect(("::1", 9))
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("10.9.8.7", 5353))
def udpmsg():
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.sendmsg([b"x"], [], 0, ("2001:db8::7", 123))
def unix():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1]); s.sendall(b"secret")
def unixdgram():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"secret", sys.argv[2])
def unixseq():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[3]); s.send(b"secret")
def lookup():
    socket.gethostbyname("py.example")
attempt("tcp4", tcp4); attempt("tcp6", tcp6); attempt("udp", udp); attempt("udpmsg", udpmsg); attempt("unix", unix)
attempt("unixdgram", unixdgram); attempt("unixseq", unixseq); attempt("lookup", lookup)
`

func TestG17_TraceNetwork(t *testing.T) {
	work := t.TempDir()
	ls := listenUnix(t, scratch(t)) // stream, datagram, seqpacket
	sock := ls[0].path
	script := filepath.Join(work, "net.py")
	if err := os.WriteFile(script, []byte(netScript), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runObserved(t, work, "/usr/bin/python3", script, ls[0].path, ls[1].path, ls[2].path)
	t.Logf("output:\n%s\nnetwork: %+v", r.out, r.fx.Network)
	for _, want := range []string{"tcp4 errno 101", "tcp6 errno 111", "unix errno 111", "unixdgram errno 13", "unixseq errno 111", "lookup errno -2"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, want := range []effect.Dest{
		{Op: "connect", Family: "ip4", Address: "10.1.2.3", Port: 443},
		{Op: "connect", Family: "ip6", Address: "::1", Port: 9},
		{Op: "sendto", Family: "ip4", Address: "10.9.8.7", Port: 5353},
		{Op: "sendto", Family: "ip6", Address: "2001:db8::7", Port: 123},
		{Op: "connect", Family: "unix", Address: sock},
		{Op: "connect", Family: "unix", Address: ls[2].path},
		{Op: "lookup", Name: "py.example"},
	} {
		if !hasDest(r.fx, want) {
			t.Errorf("not recorded: %+v", want)
		}
	}
	for _, d := range r.fx.Network {
		if d.Port == 53 {
			t.Errorf("the resolver's own address is reported: %+v", d)
		}
	}
	for _, l := range ls {
		if n := l.received(); n != 0 {
			t.Errorf("the UNIX socket outside (type %d) was reached %d times", l.typ, n)
		}
	}
}

func TestG17_TraceLookups(t *testing.T) {
	work := t.TempDir()
	// The resolver file the command sees names the observer's resolver,
	// and is read-only (it is the observer's, outside any view).
	r := runObserved(t, work, "/bin/sh", "-c", "cat /etc/resolv.conf; echo nameserver 6.6.6.6 > /etc/resolv.conf && echo WROTE")
	if !strings.Contains(r.out, "nameserver 127.0.0.1") || strings.Contains(r.out, "WROTE") {
		t.Errorf("resolver file: %s", r.out)
	}
	cmds := [][]string{
		{"/usr/bin/getent", "hosts", "exfil.example"},
		{"/usr/bin/python3", "-c", "import socket; socket.gethostbyname('py.example')"},
	}
	if _, err := os.Stat("/usr/bin/curl"); err == nil {
		cmds = append(cmds, []string{"/usr/bin/curl", "-sS", "--max-time", "5", "http://curl.example/"})
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(lookupEnv, "go.example")
	cmds = append(cmds, []string{exe, "go.example"})
	for _, argv := range cmds {
		t.Run(filepath.Base(argv[0]), func(t *testing.T) {
			r := runObserved(t, work, argv...)
			if r.exit == 0 {
				t.Errorf("the lookup succeeded: %q", r.out)
			}
			if argv[0] == "/usr/bin/getent" && r.exit != 2 {
				t.Errorf("getent exit %d, want 2 (not found: NXDOMAIN)", r.exit)
			}
			name := strings.TrimSuffix(strings.TrimPrefix(argv[len(argv)-1], "http://"), "/")
			if strings.HasPrefix(name, "import") {
				name = "py.example"
			}
			if !hasDest(r.fx, effect.Dest{Op: "lookup", Name: name}) {
				t.Errorf("lookup of %s not recorded: %+v\n%s", name, r.fx.Network, r.out)
			}
		})
	}
}

// raceEnv, when set, makes the test binary race a connect's address and
// descriptor against the observer (raceConnects) instead of testing.
const raceEnv = "WARDEN_TRACE_TEST_RACE"

// connectsEnv, when set to N, makes the test binary connect N times to a
// closed loopback port instead of testing (BenchmarkG17_Trace).
const connectsEnv = "WARDEN_TRACE_TEST_CONNECTS"

// lookupEnv, when set to a name, makes the test binary look it up with
// Go's own resolver instead of testing.
const lookupEnv = "WARDEN_TRACE_TEST_LOOKUP"

func init() {
	if os.Getenv(raceEnv) != "" {
		raceConnects(os.Args[1], os.Args[2])
		os.Exit(0)
	}
	if name := os.Getenv(lookupEnv); name != "" {
		if _, err := net.LookupHost(name); err != nil {
			fmt.Println("lookup:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if n, err := strconv.Atoi(os.Getenv(connectsEnv)); err == nil {
		for range n {
			fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				panic(err)
			}
			if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: 9, Addr: [4]byte{127, 0, 0, 1}}); err != syscall.ECONNREFUSED {
				panic(fmt.Sprint("connect: ", err))
			}
			syscall.Close(fd)
		}
		os.Exit(0)
	}
}

// raceConnects tries, for a second, to make the observer connect a UNIX
// socket to target (a stream socket's path) or send a datagram to dgram:
// one thread calls connect(2) and sendto(2) on a descriptor with an
// address, others keep rewriting the address between an IPv4 one and the
// UNIX paths, and re-pointing the descriptor between an IPv4 and a UNIX
// socket (dup2), so that what the observer read is not what the kernel
// would.
func raceConnects(target, dgram string) {
	runtime.GOMAXPROCS(4)
	var addr [128]byte
	in4 := func() {
		clear(addr[:])
		binary.LittleEndian.PutUint16(addr[0:], syscall.AF_INET)
		binary.BigEndian.PutUint16(addr[2:], 9)
		copy(addr[4:], []byte{127, 0, 0, 1})
	}
	un := func(p string) {
		clear(addr[:])
		binary.LittleEndian.PutUint16(addr[0:], syscall.AF_UNIX)
		copy(addr[2:], p)
	}
	const fd = 100
	stop := make(chan struct{})
	var wg sync.WaitGroup
	flip := func(f func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				f(i)
			}
		}()
	}
	flip(func(i int) {
		switch i % 3 {
		case 0:
			in4()
		case 1:
			un(target)
		default:
			un(dgram)
		}
	})
	flip(func(i int) {
		typ, fam := syscall.SOCK_STREAM, syscall.AF_INET
		if i%2 == 1 {
			fam = syscall.AF_UNIX
		}
		if s, err := syscall.Socket(fam, typ, 0); err == nil {
			syscall.Dup2(s, fd)
			syscall.Close(s)
		}
	})
	deadline := time.Now().Add(time.Second)
	n := 0
	for time.Now().Before(deadline) {
		syscall.Syscall(syscall.SYS_CONNECT, fd, uintptr(unsafe.Pointer(&addr[0])), 110)
		syscall.Syscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&addr[0])), 1, 0, uintptr(unsafe.Pointer(&addr[0])), 110)
		n++
	}
	close(stop)
	wg.Wait()
	fmt.Println("tries", n)
}

// The agent is the adversary: a program that races the address and the
// descriptor of its connects against the observer never reaches a UNIX
// socket outside the sandbox (checked at the sockets: nothing arrives).
func TestG17_TraceRaceNeverReachesOutside(t *testing.T) {
	ls := listenUnix(t, scratch(t)) // stream, datagram, seqpacket
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(raceEnv, "1")
	r := runObserved(t, t.TempDir(), exe, ls[0].path, ls[1].path)
	t.Logf("%s; %d destinations recorded", strings.TrimSpace(r.out), len(r.fx.Network))
	if !strings.HasPrefix(r.out, "tries ") {
		t.Fatalf("the racer did not run: exit %d, %q", r.exit, r.out)
	}
	for _, l := range ls {
		if n := l.received(); n != 0 {
			t.Errorf("the UNIX socket outside (type %d) was reached %d times", l.typ, n)
		}
	}
	if !hasDest(r.fx, effect.Dest{Op: "connect", Family: "unix", Address: ls[0].path}) {
		t.Errorf("the racer's UNIX connects were not recorded: %+v", r.fx.Network)
	}
}

// Fail closed: once the observer is gone (stopped here; a dead warden
// closes the descriptor the same way), the command can start no program:
// the kernel fails the notified calls with ENOSYS.
func TestG17_TraceFailsClosed(t *testing.T) {
	work := t.TempDir()
	o, err := observe.New()
	if err != nil {
		t.Fatal(err)
	}
	cmd, out := startTraced(t, work, o, "/bin/sh", "-c", `while [ ! -e go ]; do :; done; /bin/touch made`)
	time.Sleep(200 * time.Millisecond) // the shell runs, looping
	fx, err := o.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !hasExec(fx, "/bin/sh", "-c", `while [ ! -e go ]; do :; done; /bin/touch made`) {
		t.Fatalf("the shell's start was not observed: %+v\n%s", fx.Execs, out.String())
	}
	if err := os.WriteFile(filepath.Join(work, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if _, serr := os.Stat(filepath.Join(work, "made")); serr == nil {
		t.Fatalf("a program ran unobserved after the observer stopped: %v\n%s", err, out.String())
	}
	if err == nil {
		t.Errorf("the command succeeded without its program: %s", out.String())
	}
	t.Logf("%v: %s", err, out.String())
}

// BenchmarkG17_Trace compares a sandboxed run with the network off to the
// same run observed, side by side: a shell starting /bin/true 100 times
// (101 notified executions), and a program making 100 connects to a
// closed loopback port (each done by the observer on its behalf).
func BenchmarkG17_Trace(b *testing.B) {
	work := b.TempDir()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	loads := []struct {
		name string
		env  string
		argv []string
	}{
		{"100_execs", "", []string{"/bin/sh", "-c", "i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done"}},
		{"100_connects", connectsEnv + "=100", []string{exe}},
	}
	for _, l := range loads {
		for _, observing := range []bool{false, true} {
			name := l.name + "/sandboxed"
			if observing {
				name = l.name + "/observed"
			}
			b.Run(name, func(b *testing.B) {
				if l.env != "" {
					k, v, _ := strings.Cut(l.env, "=")
					b.Setenv(k, v)
				}
				for b.Loop() {
					if r := runTraced(b, work, observing, l.argv...); r.exit != 0 {
						b.Fatalf("exit %d: %s", r.exit, r.out)
					}
				}
			})
		}
	}
}

// A search of PATH tries many directories; only the program that ran is
// recorded, and a program that is not there is not either.
func TestG17_TraceRecordsWhatRuns(t *testing.T) {
	work := t.TempDir()
	r := runObserved(t, work, "/usr/bin/env", "PATH=/nonexistent/bin:/also/not:/usr/bin", "sh", "-c", "/no/such/program; true")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.out)
	}
	for _, e := range r.fx.Execs {
		if strings.HasPrefix(e.Path, "/nonexistent") || strings.HasPrefix(e.Path, "/also") || strings.HasPrefix(e.Path, "/no/") {
			t.Errorf("a program that is not there is recorded: %+v", e)
		}
	}
	if !slices.ContainsFunc(r.fx.Execs, func(e effect.Exec) bool { return e.Path == "/usr/bin/sh" }) {
		t.Errorf("the shell found in PATH is not recorded: %+v", r.fx.Execs)
	}
}
