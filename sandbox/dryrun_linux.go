//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/internal/observe"
	"github.com/wardenhq/warden/internal/seqpacket"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// wrapDryRun is WrapDryRun on Linux.
func (p Policy) wrapDryRun(cmd *exec.Cmd, memory int64, o *observe.Observer) (func(string) (*os.File, error), error) {
	if cmd == nil {
		return nil, dryRunProbe()
	}
	if err := dryRunProbe(); err != nil {
		return nil, err
	}
	if err := unstarted(cmd); err != nil {
		return nil, err
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil {
		return nil, errors.New("sandbox: a dry run's command sets neither ExtraFiles nor SysProcAttr")
	}
	s, err := p.dryRunSpec(memory)
	if err != nil {
		return nil, err
	}
	// A new session without a controlling terminal; and when this
	// process dies, the helper (init of the dry run's PID namespace) and
	// so everything it ran die too, budget or not.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	receive, err := dryRunNamespaces(cmd, &s)
	if err != nil {
		return nil, err
	}
	s.Path = cmd.Path
	reexec(cmd, s, cmd.SysProcAttr)
	if o != nil {
		if err := observeCmd(cmd, o); err != nil {
			return nil, err
		}
	}
	return receive, nil
}

// dryRunSpec is the helper's spec for a dry run under p: the namespaces of
// every sandboxed command, the copy-on-write view instead of the read-only
// one, warden's state hidden, no Landlock (the command may write anywhere
// in its view), UNIX sockets refused and the network off whatever p says.
func (p Policy) dryRunSpec(memory int64) (spec, error) {
	s := spec{Mode: "dry-run", DryRun: true, Memory: memory, NoUnix: true, MountNS: true, PIDNS: true, Dev: confine.DevMinimal}
	if err := seccompAvailable(); err != nil {
		return s, fmt.Errorf("%w; a dry run refuses UNIX sockets", err)
	}
	s.UserNS, s.NetNS = namespaceIDs()
	q := p
	q.Mode = WorkspaceWrite
	s.Hidden = hiddenPaths(q.resolvedRoots())
	s.Watch = credentialStores()
	return s, nil
}

// credentialHomePaths are the credential stores under the home directory
// a dry run records the opening of (effect.Report's reads): files, and
// directories whose files are watched.
var credentialHomePaths = []string{
	".ssh", ".aws", ".gnupg", ".kube", ".azure", ".password-store", ".docker/config.json",
	".netrc", ".git-credentials", ".pgpass", ".vault-token", ".npmrc", ".pypirc",
	".config/gh", ".config/gcloud", ".local/share/keyrings",
}

// maxWatched bounds the paths a dry run watches (a fanotify group each;
// an unprivileged user may have 128 at once, across concurrent dry runs).
const maxWatched = 32

// credentialStores returns the credential stores of credentialHomePaths
// that exist, resolved, with the directories in a store directory down to
// two levels (~/.aws/sso/cache, ~/.config/gcloud/legacy_credentials/NAME):
// a directory's group records the files directly in it.
func credentialStores() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	var out []string
	add := func(p string) bool {
		if len(out) >= maxWatched || slices.Contains(out, p) {
			return false
		}
		out = append(out, p)
		return true
	}
	var subdirs func(dir string, depth int)
	subdirs = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth == 0 {
			return
		}
		for _, e := range entries {
			if e.IsDir() { // not a link: Lstat's type
				sub := filepath.Join(dir, e.Name())
				if add(sub) {
					subdirs(sub, depth-1)
				}
			}
		}
	}
	for _, p := range credentialHomePaths {
		real, err := filepath.EvalSymlinks(filepath.Join(home, p))
		if err != nil || !add(real) {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			subdirs(real, 2)
		}
	}
	return out
}

// dryRunNamespaces adds the namespaces of a dry run to cmd (an IPC
// namespace besides the sandbox's, so that System V objects stay the
// host's) and the socket over which the helper sends descriptors by name
// (confine.SendToParent); it returns the function that receives them.
func dryRunNamespaces(cmd *exec.Cmd, s *spec) (func(string) (*os.File, error), error) {
	if err := addNamespaces(cmd, cmd.SysProcAttr, s, true, true, true); err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWIPC
	ours, theirs, err := seqpacket.Pair("dry run view")
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket for the dry run's view: %w", err)
	}
	m := &helperMessages{ours: ours, theirs: theirs, got: map[string]*os.File{}}
	m.cond = sync.NewCond(&m.mu)
	s.ViewFD = 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, m.theirs)
	return m.receive, nil
}

// helperMessages are the descriptors a dry run's helper sent, by name.
type helperMessages struct {
	ours, theirs *os.File
	start        sync.Once
	mu           sync.Mutex
	cond         *sync.Cond
	got          map[string]*os.File
	done         bool // the helper closed its end: nothing more comes
}

// receive returns the descriptor the helper sent as name, waiting for it
// until the helper closed the socket (an error then). It is called once
// the command has started; each name is given once.
func (m *helperMessages) receive(name string) (*os.File, error) {
	m.start.Do(func() {
		m.theirs.Close() // the helper has its own copy
		go m.read()
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		if prefix, ok := strings.CutSuffix(name, "*"); ok {
			for k, f := range m.got {
				if strings.HasPrefix(k, prefix) {
					delete(m.got, k)
					return f, nil
				}
			}
		} else if f, ok := m.got[name]; ok {
			delete(m.got, name)
			return f, nil
		}
		if m.done {
			return nil, fmt.Errorf("sandbox: the dry run's helper sent no %s (its set-up failed)", name)
		}
		m.cond.Wait()
	}
}

// read collects the helper's messages until it closes its end.
func (m *helperMessages) read() {
	defer m.ours.Close()
	for {
		msg, fds, err := receiveFDs(m.ours)
		m.mu.Lock()
		if err != nil || len(msg) == 0 && len(fds) == 0 {
			m.done = true
			m.cond.Broadcast()
			m.mu.Unlock()
			return
		}
		if _, dup := m.got[string(msg)]; len(fds) == 1 && !dup {
			m.got[string(msg)] = os.NewFile(uintptr(fds[0]), string(msg))
		} else {
			for _, fd := range fds {
				syscall.Close(fd)
			}
		}
		m.cond.Broadcast()
		m.mu.Unlock()
	}
}

// dryRunProbe reports whether dry runs work here, by setting one up once
// per process (the kernel's features do not change while it runs).
var dryRunProbe = sync.OnceValue(func() error {
	if err := userNamespaces(); err != nil {
		return fmt.Errorf("sandbox: a dry run needs user namespaces: %w", err)
	}
	var p Policy
	s, err := p.dryRunSpec(0)
	if err != nil {
		return err
	}
	s.Probe, s.Hidden, s.Dev = true, nil, ""
	cmd := exec.Command("/proc/self/exe")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	receive, err := dryRunNamespaces(cmd, &s)
	if err != nil {
		return err
	}
	cmd.Args = append([]string{confine.Arg0}, s.Args()...)
	out, err := cmd.CombinedOutput()
	view, verr := receive("view")
	if view != nil {
		view.Close()
	}
	if err == nil {
		err = verr
	}
	if err != nil {
		return fmt.Errorf("sandbox: no copy-on-write view for dry runs (it needs overlayfs mounts in a user namespace, fsmount(2) and open_tree(2)): %v: %s: %w", err, strings.TrimSpace(string(out)), ErrUnsupported)
	}
	return nil
})
