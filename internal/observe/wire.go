package observe

// What the sandbox's helper and the observer say to each other over the
// socket the helper inherits (confine's TraceFD): two messages, each one
// tag byte with descriptors attached (SCM_RIGHTS), then the helper closes
// its end before the command runs.
const (
	// TagResolver carries the resolver's listening sockets, created by the
	// helper in the command's network namespace: for each address of
	// ResolverAddrs in order, a UDP socket then a TCP one.
	TagResolver = 'R'
	// TagListener carries the seccomp user notification descriptor of the
	// filter installed right before the command's execution.
	TagListener = 'N'
)

// ResolverPort is the port the resolver listens on.
const ResolverPort = 53

// ResolverAddrs are the IPv4 addresses of the resolver inside the
// command's network namespace, on its loopback interface: the usual stub
// addresses of glibc (127.0.0.1) and systemd-resolved (127.0.0.53), so that
// a program that ignores /etc/resolv.conf and asks either is still heard.
var ResolverAddrs = [][4]byte{{127, 0, 0, 1}, {127, 0, 0, 53}}

// ResolvConfText is the /etc/resolv.conf the traced command sees: the
// resolver first, one attempt, no search domains (the names recorded are
// the names asked).
const ResolvConfText = "# warden dry run: names are recorded and answered with NXDOMAIN\nnameserver 127.0.0.1\noptions attempts:1 timeout:1\n"
