//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"weak"

	"github.com/wardenhq/warden/internal/seqpacket"
	"golang.org/x/sys/unix"
)

// Root's ID maps, written on the helper's request.
//
// Root's helper maps every ID of this process's user namespace, which
// only a process with CAP_SETUID here may write (and only a process that
// had it when it opened the map file): this one. When os/exec writes the
// maps (SysProcAttr.UidMappings), the child waits for them before it
// executes, so Go copies this whole process to start it instead of
// borrowing its memory until the execution (vfork(2) semantics). Instead,
// the helper starts like any command, without maps, and asks for them
// itself over a socket it inherits as descriptor 3 (confine.MapsFD):
//
//  1. the helper sends a descriptor of its /proc/self directory, which
//     names it without a process ID that could be reused;
//  2. a goroutine of this process, started with the command, checks that
//     the process is its child, writes uid_map, setgroups ("allow", as
//     os/exec does for root) and gid_map in the order os/exec does, and
//     answers with a zero byte, or with a non-zero byte and what failed;
//  3. the helper closes the socket and checks that its user and group IDs
//     are mapped (they are the overflow IDs until then) before any other
//     setup; anything else (an error, no answer, IDs still unmapped) ends
//     it with confine.ExitSetup: the command never runs unmapped.
//
// Without the maps, the helper's execution does not make root's
// capabilities in the new namespace effective (uid 0 is not mapped yet),
// so it keeps all of them as ambient ones, as if they had been: the full
// set it would have had, dropped before the command runs.
//
// The goroutine ends when it has answered, or when the socket has no
// other end left: the helper died, or never started. Its copy of the
// helper's end (in the command's ExtraFiles) is closed as soon as the
// helper asks; if the helper never asks (Start failed, or the helper was
// killed first), it is closed with the command, when that is garbage:
// the goroutine holds it only weakly.

// allCaps lists every capability the kernel knows, for the ambient set of
// root's helper (the bounding set answers EINVAL past the last one).
var allCaps = sync.OnceValue(func() []uintptr {
	var caps []uintptr
	for c := uintptr(0); c < 64; c++ {
		if _, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, c, 0, 0, 0); err != nil {
			break
		}
		caps = append(caps, c)
	}
	return caps
})

// serveRootMaps prepares cmd, to be started with the helper in a new user
// namespace without ID maps, so that this process writes m there when the
// helper asks (see above): it adds the helper's end of a new socket as
// cmd's only extra file and starts the goroutine that answers.
func serveRootMaps(cmd *exec.Cmd, m idMaps) error {
	ours, theirs, err := seqpacket.Pair("sandbox ID maps")
	if err != nil {
		return fmt.Errorf("sandbox: socket for the ID maps: %w", err)
	}
	cmd.ExtraFiles = []*os.File{theirs}
	go answerMaps(ours, weak.Make(theirs), m)
	return nil
}

// answerMaps waits for the helper's request on ours and writes m into its
// user namespace; theirs is this process's copy of the helper's end.
func answerMaps(ours *os.File, theirs weak.Pointer[os.File], m idMaps) {
	defer ours.Close()
	dir, err := receiveRequest(ours)
	// The helper has its own copy by now, or is gone: this one must not
	// keep the socket open. os/exec read its number before forking, under
	// syscall.ForkLock: the lock orders that before this close.
	syscall.ForkLock.RLock()
	syscall.ForkLock.RUnlock()
	if f := theirs.Value(); f != nil {
		f.Close()
	}
	if err == errNoRequest {
		return
	}
	if err == nil {
		err = writeRootMaps(dir, m)
		syscall.Close(dir)
	}
	answer := []byte{0}
	if err != nil {
		answer = append([]byte{1}, err.Error()...)
	}
	_, _ = ours.Write(answer) // a helper gone does not need it
}

// errNoRequest is receiveRequest's error when the socket was closed at the
// other end without a request.
var errNoRequest = errors.New("no request")

// receiveRequest returns the directory descriptor the helper sent on f.
func receiveRequest(f *os.File) (int, error) {
	msg, fds, err := receiveFDs(f)
	if err != nil {
		return -1, fmt.Errorf("receiving the request: %w", err)
	}
	if len(msg) == 0 && len(fds) == 0 {
		return -1, errNoRequest
	}
	if len(fds) != 1 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return -1, errors.New("a request without exactly one descriptor")
	}
	return fds[0], nil
}

// receiveFDs reads one message from the helper on f, a socket, with the
// descriptors it carries (close-on-exec); an empty message without
// descriptors when the helper closed its end.
func receiveFDs(f *os.File) ([]byte, []int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, 16+unix.PathMax) // a name and a path
	oob := make([]byte, syscall.CmsgSpace(4*4))
	var n, oobn int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	}); err != nil {
		return nil, nil, err
	}
	if rerr != nil {
		return nil, nil, rerr
	}
	var fds []int
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, msg := range msgs {
			if r, err := syscall.ParseUnixRights(&msg); err == nil {
				fds = append(fds, r...)
			}
		}
	}
	return buf[:n], fds, nil
}

// writeRootMaps writes m as the ID maps of the process whose /proc
// directory dir is, once it checked the process is this one's child (the
// kernel checks that its user namespace is a child of this one's and that
// its maps are still empty). The order and contents are os/exec's for
// SysProcAttr.UidMappings, GidMappings and GidMappingsEnableSetgroups.
func writeRootMaps(dir int, m idMaps) error {
	stat, err := readAt(dir, "stat")
	if err != nil {
		return err
	}
	// pid (comm) state ppid ...: comm may contain anything but ends at
	// the last parenthesis.
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	if i < 0 || len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
		return errors.New("the process asking for ID maps is not this one's child")
	}
	for _, w := range []struct {
		name string
		data string
	}{
		{"uid_map", formatIDMap(m.uid)},
		{"setgroups", "allow"},
		{"gid_map", formatIDMap(m.gid)},
	} {
		err := writeAt(dir, w.name, w.data)
		if w.name == "setgroups" && errors.Is(err, syscall.ENOENT) {
			continue // a kernel before 3.19, which has no such file
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// formatIDMap is m as a uid_map or gid_map file's contents.
func formatIDMap(m []syscall.SysProcIDMap) string {
	var b strings.Builder
	for _, e := range m {
		fmt.Fprintf(&b, "%d %d %d\n", e.ContainerID, e.HostID, e.Size)
	}
	return b.String()
}

// readAt returns the contents of the file name in the directory dir.
func readAt(dir int, name string) (string, error) {
	fd, err := syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	defer syscall.Close(fd)
	buf := make([]byte, 4096)
	n, err := syscall.Read(fd, buf)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return string(buf[:n]), nil
}

// writeAt writes data, in one write, to the file name in the directory
// dir.
func writeAt(dir int, name, data string) error {
	fd, err := syscall.Openat(dir, name, syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	n, err := syscall.Write(fd, []byte(data))
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err == nil && n != len(data) {
		err = syscall.EIO
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
