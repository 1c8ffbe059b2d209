//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/nettest"

	"golang.org/x/sys/unix"
)

func init() {
	moreActs["sock"] = actSocket
	moreActs["unixreach"] = actUnixReach
}

// actSocket performs "sock|CALL|FAMILY|TYPE|PROTOCOL" (CALL socket or
// socketpair, numbers in decimal, negative ones as the int they are) and
// describes the outcome, closing what it made.
func actSocket(args []string) string {
	if len(args) != 4 {
		return "bad sock arguments"
	}
	var n [3]int
	for i, a := range args[1:] {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return "bad number " + a
		}
		n[i] = int(int32(v))
	}
	switch args[0] {
	case "socket":
		fd, err := unix.Socket(n[0], n[1], n[2])
		if err == nil {
			unix.Close(fd)
		}
		return outcome(err)
	case "socketpair":
		fds, err := unix.Socketpair(n[0], n[1], n[2])
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return outcome(err)
	}
	return "bad call " + args[0]
}

// unixWays are the socket types a command might try to reach a UNIX socket
// outside with: every type the kernel knows for AF_UNIX, SOCK_RAW (which it
// turns into a datagram socket) included.
var unixWays = []int{unix.SOCK_STREAM, unix.SOCK_DGRAM, unix.SOCK_RAW, unix.SOCK_SEQPACKET}

// actUnixReach tries every way to send "leak" to each UNIX socket path in
// args: a socket of each type from socket(2) and from socketpair(2),
// connected to the path and written to, or sent to it with sendto(2). It
// returns the ways that sent something, or "sent=none".
func actUnixReach(args []string) string {
	var sent []string
	for _, path := range args {
		addr := &unix.SockaddrUnix{Name: path}
		for _, typ := range unixWays {
			var fds []int
			// Non-blocking, so that a full queue outside cannot hang it.
			if fd, err := unix.Socket(unix.AF_UNIX, typ|unix.SOCK_NONBLOCK, 0); err == nil {
				fds = append(fds, fd)
			}
			if pair, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_NONBLOCK, 0); err == nil {
				fds = append(fds, pair[0], pair[1])
			}
			for _, fd := range fds {
				if err := unix.Connect(fd, addr); err == nil {
					if err := unix.Sendto(fd, []byte("leak"), unix.MSG_DONTWAIT, nil); err == nil {
						sent = append(sent, fmt.Sprintf("connect(type %d)→%s", typ, filepath.Base(path)))
					}
				}
				if err := unix.Sendto(fd, []byte("leak"), unix.MSG_DONTWAIT, addr); err == nil {
					sent = append(sent, fmt.Sprintf("sendto(type %d)→%s", typ, filepath.Base(path)))
				}
				unix.Close(fd)
			}
		}
	}
	if len(sent) == 0 {
		return "sent=none"
	}
	return "sent=" + strings.Join(sent, ",")
}

// unixListener is a UNIX socket of one type bound outside every sandbox,
// non-blocking, to see what reached it.
type unixListener struct {
	typ  int
	path string
	fd   int
}

// listenUnix binds a socket of each type in unixWays' kinds (stream,
// datagram, seqpacket) in dir.
func listenUnix(t *testing.T, dir string) []unixListener {
	t.Helper()
	var out []unixListener
	for _, typ := range []int{unix.SOCK_STREAM, unix.SOCK_DGRAM, unix.SOCK_SEQPACKET} {
		fd, err := unix.Socket(unix.AF_UNIX, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		path := filepath.Join(dir, "s"+strconv.Itoa(typ))
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
			t.Fatal(err)
		}
		if typ != unix.SOCK_DGRAM {
			if err := unix.Listen(fd, 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, unixListener{typ, path, fd})
	}
	return out
}

// received drains l and returns how many connections or datagrams reached
// it.
func (l unixListener) received() int {
	n := 0
	buf := make([]byte, 64)
	for {
		var err error
		if l.typ == unix.SOCK_DGRAM {
			_, _, err = unix.Recvfrom(l.fd, buf, 0)
		} else {
			var c int
			if c, _, err = unix.Accept(l.fd); err == nil {
				unix.Close(c)
			}
		}
		if err != nil {
			return n
		}
		n++
	}
}

// TestG16_SocketAllowList enumerates, under the network-off filter, every
// AF_UNIX socket type 0 to 15 and a few bogus values, each with every
// combination of SOCK_NONBLOCK and SOCK_CLOEXEC, for both socket(2) and
// socketpair(2): only stream socketpairs succeed. Other families are
// allowed only as AllowedSockets lists them. The same calls outside the
// sandbox show that the refused ones are real (socketpair with SOCK_RAW
// gives a datagram socket there).
func TestG16_SocketAllowList(t *testing.T) {
	requireSandbox(t)
	if err := seccompAvailable(); err != nil {
		t.Skipf("no seccomp filters: %v", err)
	}
	type call struct {
		name              string
		family, typ, prot int
		want              string // inside the sandbox
	}
	var calls []call
	flagSets := []int{0, unix.SOCK_NONBLOCK, unix.SOCK_CLOEXEC, unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC}
	types := []int{}
	for typ := range 16 {
		types = append(types, typ)
	}
	bogus := []int{0x7fffffff, -1, unix.SOCK_STREAM | 0x100, unix.SOCK_STREAM | 1<<20, unix.SOCK_STREAM | 0x40000000,
		unix.SOCK_STREAM | 0x10, unix.SOCK_DGRAM | 0x800000}
	for _, base := range append(types, bogus...) {
		for _, fl := range flagSets {
			typ := base | fl
			want := "errno=EACCES"
			calls = append(calls, call{"socket", unix.AF_UNIX, typ, 0, want})
			if base == unix.SOCK_STREAM {
				want = "ok"
			}
			calls = append(calls, call{"socketpair", unix.AF_UNIX, typ, 0, want})
		}
	}
	// Other families, each with every flag combination.
	others := []struct {
		family, typ, prot int
		ok                bool
	}{
		{unix.AF_INET, unix.SOCK_STREAM, 0, true},
		{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP, true},
		{unix.AF_INET, unix.SOCK_DGRAM, 0, true},
		{unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDP, true},
		{unix.AF_INET6, unix.SOCK_STREAM, 0, true},
		{unix.AF_INET6, unix.SOCK_DGRAM, 0, true},
		{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE, true},
		{unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_ROUTE, true},
		{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP, false},
		{unix.AF_INET, unix.SOCK_SEQPACKET, unix.IPPROTO_SCTP, false},
		{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP, false},
		{unix.AF_INET, unix.SOCK_DCCP, unix.IPPROTO_DCCP, false},
		{unix.AF_INET, unix.SOCK_STREAM | 0x100, 0, false},
		{unix.AF_INET, 15, 0, false},
		{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_KOBJECT_UEVENT, false},
		{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT, false},
		{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_SOCK_DIAG, false},
		{unix.AF_PACKET, unix.SOCK_RAW, 0, false},
		{unix.AF_PACKET, unix.SOCK_DGRAM, 0, false},
		{unix.AF_VSOCK, unix.SOCK_STREAM, 0, false},
		{unix.AF_VSOCK, unix.SOCK_DGRAM, 0, false},
		{unix.AF_ALG, unix.SOCK_SEQPACKET, 0, false},
		{unix.AF_KEY, unix.SOCK_RAW, 2, false},
		{unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0, false},
		{0, unix.SOCK_STREAM, 0, false},
		{unix.AF_MAX, unix.SOCK_STREAM, 0, false},
		{255, unix.SOCK_STREAM, 0, false},
		{-1, unix.SOCK_STREAM, 0, false},
		{unix.AF_INET | 0x10000, unix.SOCK_STREAM, 0, false},
	}
	for _, o := range others {
		for _, fl := range flagSets {
			want := "errno=EACCES"
			if o.ok {
				want = "ok"
			}
			calls = append(calls, call{"socket", o.family, o.typ | fl, o.prot, want})
			calls = append(calls, call{"socketpair", o.family, o.typ | fl, o.prot, "errno=EACCES"})
		}
	}
	ops := make([]string, len(calls))
	for i, c := range calls {
		ops[i] = fmt.Sprintf("sock|%s|%d|%d|%d", c.name, c.family, c.typ, c.prot)
	}

	// Outside: the refused calls are real ones.
	ipv6 := actSocket([]string{"socket", strconv.Itoa(unix.AF_INET6), strconv.Itoa(unix.SOCK_STREAM), "0"}) == "ok"
	for _, c := range []string{
		fmt.Sprintf("socketpair|%d|%d|0", unix.AF_UNIX, unix.SOCK_RAW),
		fmt.Sprintf("socketpair|%d|%d|0", unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC),
		fmt.Sprintf("socketpair|%d|%d|0", unix.AF_UNIX, unix.SOCK_SEQPACKET),
		fmt.Sprintf("socket|%d|%d|0", unix.AF_UNIX, unix.SOCK_STREAM),
		fmt.Sprintf("socket|%d|%d|0", unix.AF_UNIX, unix.SOCK_RAW),
	} {
		if got := actSocket(strings.Split(c, "|")); got != "ok" {
			t.Fatalf("outside the sandbox, %s: %s (the test would prove nothing)", c, got)
		}
	}

	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(m), func(t *testing.T) {
			w := repo(t)
			got := run(t, Policy{Mode: m, Workdir: w}, ops...)
			bad := 0
			for i, c := range calls {
				if c.family == unix.AF_INET6 && !ipv6 && c.want == "ok" {
					continue // no IPv6 in this kernel
				}
				if got[i] != c.want {
					bad++
					if bad <= 20 {
						t.Errorf("%s(%d, %#x, %d) = %s, want %s", c.name, c.family, uint32(c.typ), c.prot, got[i], c.want)
					}
				}
			}
			if bad > 20 {
				t.Errorf("... %d mismatches in all", bad)
			}
			// The network on lifts the filter: every UNIX socket again.
			got = run(t, Policy{Mode: m, Workdir: w, NetworkAccess: true},
				fmt.Sprintf("sock|socketpair|%d|%d|0", unix.AF_UNIX, unix.SOCK_RAW),
				fmt.Sprintf("sock|socket|%d|%d|0", unix.AF_UNIX, unix.SOCK_DGRAM))
			if got[0] != "ok" || got[1] != "ok" {
				t.Errorf("network on: %v, want UNIX sockets allowed", got)
			}
		})
	}
}

// TestG16_UnixSocketsOutsideReceiveNothing is the attack: with the network
// off, a command tries every type of UNIX socket, from socket(2) and from
// socketpair(2) (SOCK_RAW and SOCK_DGRAM pairs included), connected or
// with sendto(2), against stream, datagram and seqpacket sockets listening
// outside the sandbox. Nothing reaches them. The same attempts from
// outside the sandbox do, so the listeners can tell.
func TestG16_UnixSocketsOutsideReceiveNothing(t *testing.T) {
	requireSandbox(t)
	if err := seccompAvailable(); err != nil {
		t.Skipf("no seccomp filters: %v", err)
	}
	ls := listenUnix(t, scratch(t))
	var paths []string
	for _, l := range ls {
		paths = append(paths, l.path)
	}
	// Control: outside, every listener is reached.
	if got := actUnixReach(paths); got == "sent=none" {
		t.Fatal("outside the sandbox nothing reached the listeners: the test would prove nothing")
	}
	for _, l := range ls {
		if l.received() == 0 {
			t.Fatalf("outside the sandbox, the type %d listener received nothing", l.typ)
		}
	}
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		w := repo(t)
		got := run(t, Policy{Mode: m, Workdir: w}, "unixreach|"+strings.Join(paths, "|"))
		if got[0] != "sent=none" {
			t.Errorf("%s: the command says %s", m, got[0])
		}
		time.Sleep(50 * time.Millisecond)
		for _, l := range ls {
			if n := l.received(); n != 0 {
				t.Errorf("%s: the type %d listener outside received %d connections or datagrams", m, l.typ, n)
			}
		}
	}
}

// serveUnix starts a UNIX socket server at addr (a path, or "@name" for an
// abstract socket) in the test process, outside every sandbox, answering
// "pong" to every connection.
func serveUnix(t *testing.T, addr string) {
	t.Helper()
	nettest.Serve(t, "unix", addr, func(c net.Conn) {
		buf := make([]byte, 16)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(buf); err == nil {
			c.Write([]byte("pong\n"))
		}
	})
	// The server answers outside the sandbox: the attack is real.
	c, err := net.Dial("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("ping\n"))
	buf := make([]byte, 16)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "pong\n" {
		t.Fatalf("server at %s does not answer: %v", addr, err)
	}
	c.Close()
}

// With the network off, no UNIX socket server outside the sandbox answers:
// not one outside the writable roots, not one in a temporary directory
// (where SSH agents and X11 keep theirs), not an abstract one. The
// network on restores them.
func TestG1_NetworkOffBlocksUnixSockets(t *testing.T) {
	requireSandbox(t)
	if err := seccompAvailable(); err != nil {
		t.Skipf("no seccomp filters: %v", err)
	}
	w := repo(t)
	outside := filepath.Join(scratch(t), "docker.sock")
	serveUnix(t, outside)
	tmp, err := os.MkdirTemp("", "warden-agent-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	inTemp := filepath.Join(tmp, "agent.sock")
	serveUnix(t, inTemp)
	abstract := "@warden-test-" + filepath.Base(tmp)
	serveUnix(t, abstract)

	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		t.Run(string(m), func(t *testing.T) {
			p := Policy{Mode: m, Workdir: w}
			got := run(t, p, "unixdial|"+outside, "unixdial|"+inTemp, "unixdial|"+abstract, "socketpair", "socketpair-dgram", "iouring")
			for i, addr := range []string{outside, inTemp, abstract} {
				if got[i] != "errno=EACCES" {
					t.Errorf("network off, %s: %s, want errno=EACCES", addr, got[i])
				}
			}
			if got[3] != "ok" {
				t.Errorf("socketpair: %s", got[3])
			}
			if got[4] != "errno=EACCES" {
				t.Errorf("datagram socketpair (re-connectable): %s", got[4])
			}
			if got[5] != "errno=ENOSYS" {
				t.Errorf("io_uring_setup: %s", got[5])
			}
			p.NetworkAccess = true
			got = run(t, p, "unixdial|"+outside, "unixdial|"+abstract, "iouring")
			if got[0] != "answer=pong" || got[1] != "answer=pong" {
				t.Errorf("network on: %v, want answers", got[:2])
			}
			if got[2] == "errno=ENOSYS" {
				t.Errorf("network on: io_uring refused")
			}
		})
	}
	// A server of the command's own inside the workspace is refused too:
	// nothing tells it apart soundly from one outside.
	got := run(t, Policy{Mode: WorkspaceWrite, Workdir: w}, "unixserve|"+filepath.Join(w, "test.sock"))
	if got[0] != "errno=EACCES" {
		t.Errorf("own server in the workspace: %s", got[0])
	}
	got = run(t, Policy{Mode: WorkspaceWrite, Workdir: w, NetworkAccess: true}, "unixserve|"+filepath.Join(w, "test2.sock"))
	if got[0] != "ok" {
		t.Errorf("own server in the workspace, network on: %s", got[0])
	}
	if kind, ok := (Policy{Mode: WorkspaceWrite}).deniedKind("dial unix "+outside+": connect: permission denied", nil); !ok || kind != KindNetwork {
		t.Errorf("deniedKind(unix dial) = %s, %v", kind, ok)
	}
}
