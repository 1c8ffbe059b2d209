// Package observe records, during a dry run (SPEC G17), each program a
// command starts (path and argv, in order), each network destination it
// tries (connect(2), sendto(2), sendmsg(2), sendmmsg(2): family, address,
// port; UNIX socket paths) and each name it looks up, and keeps the dry
// run off the network. It is the parent's side; the sandbox's helper
// (sandbox/internal/confine, trace_linux.go) is the other.
//
// # Mechanism: seccomp user notification
//
// Right before it executes the command, the helper installs a seccomp
// filter with SECCOMP_FILTER_FLAG_NEW_LISTENER that sends execve(2),
// execveat(2), connect(2), sendmsg(2), sendmmsg(2) and sendto(2) with an
// address to this process (SECCOMP_RET_USER_NOTIF), and hands it the
// notification descriptor over a socket (SCM_RIGHTS). The Observer reads
// each call's arguments from /proc/PID/mem, checks that the notification
// is still valid (SECCOMP_IOCTL_NOTIF_ID_VALID, against a reused process
// ID), records, and answers. Chosen over ptrace(2), which would also see
// them: ptrace stops the traced process twice per system call of every
// kind unless filtered with seccomp anyway, takes the one tracer slot
// (a command that debugs its child would fail), and must follow every
// fork; the notification stops only the calls named, its filter is
// inherited by every descendant with nothing to follow, and the observer
// needs no privilege over the command beyond its own child's.
//
// Measured (sandbox's BenchmarkG17_Trace, `go test -run XXX -bench
// BenchmarkG17_Trace -benchtime 20x -count 4 ./sandbox`, 2 shared cores):
// a shell starting /bin/true 100 times took 161–203 ms observed against
// 228–272 ms sandboxed without the observer — the notification's cost
// per execution is below the noise of starting a program (about 2 ms
// here); 100 connects to a closed loopback port took 45–84 ms observed
// against 21–29 ms, about 0.3 ms more per connect (the observer takes
// the socket, connects it and answers).
//
// # Answers, with the agent as the adversary
//
// A notified call's arguments in memory can be changed by another thread
// of the command between the observer's read and the kernel's, so no
// answer depends on memory the command can change unless every outcome is
// harmless:
//
//   - execve/execveat: recorded and continued (SECCOMP_USER_NOTIF_FLAG_CONTINUE):
//     executing is the dry run's business. A program racing its own argv
//     can make the record differ from what runs; it runs in the view all
//     the same.
//   - connect: never continued. The observer takes the socket itself
//     (pidfd_getfd(2): the open file, not a number another thread can
//     re-point with dup2) and its copy of the address: an IPv4 or IPv6
//     socket is connected by the observer on the command's behalf, with
//     that copy (its network namespace has only a loopback interface, so
//     only the command's own servers and the resolver answer); a UNIX
//     socket (docker.sock, an agent's socket, D-Bus) is refused with
//     ECONNREFUSED, any other family with EACCES.
//   - sendto/sendmsg/sendmmsg: recorded and continued, because no socket
//     the command can hold reaches outside whatever address it names: IP
//     sockets live in the namespace, UNIX stream and seqpacket sockets
//     send only once connected (and every connect is refused), and UNIX
//     datagram sockets, which could send to any path, cannot be created
//     (confine.TracedSockets). A racing program can make these records lie
//     about a loopback destination, not reach another.
//   - Names: the helper binds a resolver file over /etc/resolv.conf
//     naming 127.0.0.1 and makes UDP and TCP sockets on 127.0.0.1:53 and
//     127.0.0.53:53 in the command's network namespace; the Observer
//     answers every query there NXDOMAIN (REFUSED for other operations)
//     and records the names (parsed with golang.org/x/net/dns/dnsmessage).
//
// Fail closed: when the observer is gone (stopped, or this process died),
// the kernel fails every notified call with ENOSYS, so the command can
// start no program and try no destination unobserved
// (TestG17_TraceFailsClosed). A call whose arguments cannot be read is
// refused, not continued.
package observe

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/wardenhq/warden/internal/effect"
)

// Caps on what one dry run records.
const (
	maxExecs = 2000 // distinct programs with their argv
	maxDests = 1000 // distinct destinations and names
	maxArgs  = 1024 // arguments of one program
	maxArg   = 4096 // bytes of one argument or path
)

// Effects are what an Observer saw: the programs started and the
// destinations tried, in order, each once.
type Effects struct {
	Execs   []effect.Exec
	Network []effect.Dest
}

// log collects the records, from the supervisor and the resolver.
type log struct {
	mu        sync.Mutex
	execs     []effect.Exec
	dests     []effect.Dest
	seen      map[string]bool
	moreExecs int
	moreDests int
}

// exec records a program started.
func (l *log) exec(e effect.Exec) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.admit(fmt.Sprintf("x%q%q", e.Path, e.Argv), len(l.execs) >= maxExecs, &l.moreExecs) {
		l.execs = append(l.execs, e)
	}
}

// dest records a destination tried or a name looked up, leaving out the
// resolver's own addresses (the names looked up stand for them).
func (l *log) dest(d effect.Dest) {
	if isResolver(d) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.admit(fmt.Sprintf("d%q%q%q%d%q", d.Op, d.Family, d.Address, d.Port, d.Name), len(l.dests) >= maxDests, &l.moreDests) {
		l.dests = append(l.dests, d)
	}
}

// admit reports whether a record of key is new and fits (not full),
// counting in more those that do not fit. l.mu is held.
func (l *log) admit(key string, full bool, more *int) bool {
	if l.seen[key] {
		return false
	}
	if full {
		*more++
		return false
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[key] = true
	return true
}

// lookup records a name looked up.
func (l *log) lookup(name string) { l.dest(effect.Dest{Op: "lookup", Name: name}) }

// effects returns what was recorded; a record cut at its cap ends with
// an entry that says how much more there was, so that nothing is dropped
// silently.
func (l *log) effects() Effects {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := Effects{Execs: append([]effect.Exec{}, l.execs...), Network: append([]effect.Dest{}, l.dests...)}
	if l.moreExecs > 0 {
		e.Execs = append(e.Execs, effect.Exec{Path: "...", Argv: []string{"(" + strconv.Itoa(l.moreExecs) + " more programs started, not recorded)"}})
	}
	if l.moreDests > 0 {
		e.Network = append(e.Network, effect.Dest{Op: "connect", Name: "(" + strconv.Itoa(l.moreDests) + " more destinations tried, not recorded)"})
	}
	return e
}

// isResolver reports whether d is the resolver of ResolverAddrs.
func isResolver(d effect.Dest) bool {
	if d.Family != "ip4" || d.Port != ResolverPort {
		return false
	}
	for _, a := range ResolverAddrs {
		if d.Address == fmt.Sprintf("%d.%d.%d.%d", a[0], a[1], a[2], a[3]) {
			return true
		}
	}
	return false
}
