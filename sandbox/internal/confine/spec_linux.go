//go:build linux

package confine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Arg0 is the argv[0] under which this package's init recognises a
// re-executed helper. The spec follows as "key=value" arguments, the
// first being Marker, up to a "--"; then the command's own argv.
const Arg0 = "[warden-sandbox]"

// specVersion is the version of the spec format.
const specVersion = 1

// Marker starts every spec, so that a stray argv[0] equal to
// Arg0 is not mistaken for a helper invocation.
var Marker = "warden_sandbox=" + strconv.Itoa(specVersion)

// Spec is what the parent hands the helper: everything resolved, so the
// helper only opens, mounts and restricts.
type Spec struct {
	Probe     bool
	Mode      string   // the policy's, passed on
	Path      string   // the program to execute
	Roots     []string // writable roots, resolved
	Protected []string // protected paths that exist, resolved
	Hidden    []string // warden's state, hidden from reads (needs MountNS)
	Network   bool
	// Landlock is the ABI to enforce; 0 enforces nothing (Unenforced).
	Landlock int
	// UserNS and NetNS name the parent's namespaces when the helper must
	// run in new ones; it refuses to go on in the parent's.
	UserNS string
	NetNS  string
	// IDMap is "UID:GID" when the helper must map these IDs of the
	// parent's user namespace to themselves in its new one (see
	// the sandbox package's addNamespaces); empty when the parent writes the maps.
	IDMap string
	// ParentMaps asks the helper to request root's maps from the parent
	// over descriptor 3 (see the sandbox package's serveRootMaps).
	ParentMaps bool
	// MountNS asks for a private mount namespace in which the protected
	// paths are bound read-only.
	MountNS bool
	// View asks for the read-only view of the file system, with the
	// writable roots bound writable again (needs MountNS).
	View bool
	// PIDNS asks for a new PID namespace, of which the helper is init.
	PIDNS bool
	// NoUnix asks for the seccomp filter refusing UNIX sockets.
	NoUnix bool
	// Contain asks only for the PID namespace, nothing else: see sandbox.Contain.
	Contain bool
	// Temps are the temporary directories the command gets private ones
	// at, in order, outer ones first (needs MountNS).
	Temps []Temp
	// Cover asks for the covered mode of a command run outside the
	// sandbox (see sandbox.Cover): the host's file system and network,
	// with warden's state (Hidden, and Protected bound read-only) covered
	// and a /dev of its own, the command in a user and mount namespace
	// nested in the helper's, where it cannot undo the covers.
	Cover bool
	// Dev asks for a /dev of the helper's own (needs MountNS): DevMinimal
	// or DevAll; empty keeps the host's.
	Dev string
	// TraceFD, when not 0, is the helper's descriptor of a socket to an
	// observer (package internal/observe): the command then runs under
	// the seccomp filter that notifies the observer of every program
	// started and every network destination tried (see trace_linux.go).
	TraceFD int
	// ResolvConf is the resolver file bound over /etc/resolv.conf when
	// tracing (it names the observer's resolver in the network
	// namespace).
	ResolvConf string

	// DryRun asks for the dry run's copy-on-write view of the whole file
	// system instead of the read-only one (see dryrun_linux.go; needs
	// MountNS), and no Landlock: the command may write anywhere in it.
	DryRun bool
	// ViewFD is the descriptor of the socket over which a dry run's
	// helper sends the parent its staging tmpfs.
	ViewFD int
	// Memory is a dry run's memory budget in bytes (0: none).
	Memory int64
	// Watch are the credential stores a dry run records the opening of
	// (files, and directories whose files are watched).
	Watch []string

	// covered are the temporary directories the helper covered (or made
	// inside a cover), writable for Landlock; not passed.
	covered []string
}

// Args encodes s as helper arguments, ending with "--".
func (s Spec) Args() []string {
	a := []string{Marker}
	add := func(k, v string) { a = append(a, k+"="+v) }
	for _, f := range s.flags() {
		if *f.v {
			add(f.name, "1")
		}
	}
	add("mode", s.Mode)
	add("path", s.Path)
	for _, r := range s.Roots {
		add("root", r)
	}
	for _, p := range s.Protected {
		add("protected", p)
	}
	for _, p := range s.Hidden {
		add("hidden", p)
	}
	add("landlock", strconv.Itoa(s.Landlock))
	add("userns", s.UserNS)
	add("netns", s.NetNS)
	if s.IDMap != "" {
		add("idmap", s.IDMap)
	}
	for _, t := range s.Temps {
		add("temp", t.Path)
		add("tempsrc", t.Source)
	}
	if s.Dev != "" {
		add("dev", s.Dev)
	}
	if s.ViewFD != 0 {
		add("viewfd", strconv.Itoa(s.ViewFD))
	}
	if s.Memory != 0 {
		add("memory", strconv.FormatInt(s.Memory, 10))
	}
	for _, w := range s.Watch {
		add("watch", w)
	}
	if s.TraceFD != 0 {
		add("tracefd", strconv.Itoa(s.TraceFD))
		add("resolvconf", s.ResolvConf)
	}
	return append(a, "--")
}

// flag is a boolean of a Spec and the name of its helper argument, given
// as "name=1" when true.
type flag struct {
	name string
	v    *bool
}

// flags are the booleans of s.
func (s *Spec) flags() []flag {
	return []flag{
		{"probe", &s.Probe}, {"network", &s.Network}, {"parentmaps", &s.ParentMaps}, {"mountns", &s.MountNS},
		{"view", &s.View}, {"pidns", &s.PIDNS}, {"nounix", &s.NoUnix}, {"contain", &s.Contain}, {"cover", &s.Cover}, {"dryrun", &s.DryRun},
	}
}

// Parse decodes what args encoded and returns the arguments after
// the "--".
func Parse(args []string) (Spec, []string, error) {
	var s Spec
	if len(args) == 0 || args[0] != Marker {
		return s, nil, errors.New("helper arguments of another format (a different warden executable?)")
	}
	flags := s.flags()
	// The descriptors the helper is given, past stdin, stdout and stderr.
	fds := map[string]*int{"viewfd": &s.ViewFD, "tracefd": &s.TraceFD}
	for i, a := range args[1:] {
		if a == "--" {
			return s, args[i+2:], nil
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return s, nil, fmt.Errorf("bad helper argument %q", a)
		}
		if f := slices.IndexFunc(flags, func(f flag) bool { return f.name == k }); f >= 0 {
			*flags[f].v = v == "1"
			continue
		}
		if fd, ok := fds[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 3 {
				return s, nil, fmt.Errorf("bad helper argument %q", a)
			}
			*fd = n
			continue
		}
		switch k {
		case "mode":
			s.Mode = v
		case "path":
			s.Path = v
		case "root":
			s.Roots = append(s.Roots, v)
		case "protected":
			s.Protected = append(s.Protected, v)
		case "hidden":
			s.Hidden = append(s.Hidden, v)
		case "landlock":
			n, err := strconv.Atoi(v)
			if err != nil {
				return s, nil, fmt.Errorf("bad helper argument %q", a)
			}
			s.Landlock = n
		case "userns":
			s.UserNS = v
		case "netns":
			s.NetNS = v
		case "idmap":
			s.IDMap = v
		case "temp":
			s.Temps = append(s.Temps, Temp{Path: v})
		case "tempsrc":
			if len(s.Temps) == 0 {
				return s, nil, fmt.Errorf("bad helper argument %q: no temp before it", a)
			}
			s.Temps[len(s.Temps)-1].Source = v
		case "dev":
			s.Dev = v
		case "watch":
			s.Watch = append(s.Watch, v)
		case "memory":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return s, nil, fmt.Errorf("bad helper argument %q", a)
			}
			s.Memory = n
		case "resolvconf":
			s.ResolvConf = v
		default:
			return s, nil, fmt.Errorf("unknown helper argument %q", a)
		}
	}
	return s, nil, errors.New("helper arguments without \"--\"")
}
