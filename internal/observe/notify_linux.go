//go:build linux

package observe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/wardenhq/warden/internal/effect"
	"golang.org/x/sys/unix"
)

// seccompData, seccompNotif and seccompNotifResp are the kernel's struct
// seccomp_data, seccomp_notif and seccomp_notif_resp (linux/seccomp.h).
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Data  seccompData
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// call is what a notified system call is, whatever its architecture's
// number.
type call int

const (
	callOther call = iota
	callExecve
	callExecveat
	callConnect
	callSendto
	callSendmsg
	callSendmmsg
)

// i386 system call numbers (the filter's, in confine).
var i386Calls = map[int32]call{11: callExecve, 358: callExecveat, 362: callConnect, 369: callSendto, 370: callSendmsg, 345: callSendmmsg}

var nativeCalls = map[int32]call{
	unix.SYS_EXECVE: callExecve, unix.SYS_EXECVEAT: callExecveat, unix.SYS_CONNECT: callConnect,
	unix.SYS_SENDTO: callSendto, unix.SYS_SENDMSG: callSendmsg, unix.SYS_SENDMMSG: callSendmmsg,
}

// supervise answers the notifications of listener until the command's
// processes are all gone (the descriptor hangs up) or Stop is called.
func (o *Observer) supervise(listener int) error {
	for {
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}, {Fd: int32(o.stop), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return fmt.Errorf("observe: poll: %w", err)
		}
		if fds[1].Revents != 0 {
			return nil
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return nil // hung up: no process left under the filter
		}
		var req seccompNotif
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.ENOENT) {
				continue // interrupted, or the caller is gone already
			}
			return fmt.Errorf("observe: receiving a notification: %w", err)
		}
		o.handle(listener, &req)
	}
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// target is the process a notification came from.
type target struct {
	listener int
	id       uint64
	pid      int
	ptr      int // pointer size: 8, or 4 for a 32-bit program
	mem      *os.File
}

// valid reports whether the notification still waits for an answer: the
// process that sent it is the one its ID named (not a reused ID).
func (t *target) valid() bool {
	id := t.id
	return ioctl(t.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// answer ends the notified call: continued, or with val or errno.
func (t *target) answer(val int64, errno syscall.Errno, cont bool) {
	r := seccompNotifResp{ID: t.id, Val: val, Error: -int32(errno)}
	if cont {
		r = seccompNotifResp{ID: t.id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	}
	_ = ioctl(t.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r)) // ENOENT: gone meanwhile
}

// handle reads, records and answers one notified call.
func (o *Observer) handle(listener int, req *seccompNotif) {
	t := &target{listener: listener, id: req.ID, pid: int(req.PID), ptr: 8}
	kind := nativeCalls[req.Data.Nr]
	if req.Data.Arch == unix.AUDIT_ARCH_I386 {
		kind, t.ptr = i386Calls[req.Data.Nr], 4
	}
	mem, err := os.Open("/proc/" + strconv.Itoa(t.pid) + "/mem")
	if err != nil || !t.valid() {
		if mem != nil {
			mem.Close()
		}
		// Unreadable: refused, never continued unrecorded.
		t.answer(0, syscall.EACCES, false)
		return
	}
	t.mem = mem
	defer mem.Close()
	a := req.Data.Args
	switch kind {
	case callExecve:
		o.exec(t, -100, a[0], a[1], 0)
	case callExecveat:
		o.exec(t, int32(a[0]), a[1], a[2], int(a[4]))
	case callConnect:
		o.connect(t, int(int32(a[0])), a[1], a[2])
	case callSendto:
		o.sendAddr(t, a[4], a[5])
		t.answer(0, 0, true)
	case callSendmsg:
		o.sendMsgs(t, a[1], 1, 0)
		t.answer(0, 0, true)
	case callSendmmsg:
		o.sendMsgs(t, a[1], min(a[2], 64), 1)
		t.answer(0, 0, true)
	default:
		t.answer(0, syscall.ENOSYS, false)
	}
}

// exec records a program started and lets it start.
func (o *Observer) exec(t *target, dirfd int32, pathAddr, argvAddr uint64, flags int) {
	p, err := t.readString(pathAddr)
	if err != nil {
		t.answer(0, syscall.EFAULT, false)
		return
	}
	if e := t.missing(dirfd, p, flags); e != 0 {
		// A program that is not there (a search of PATH tries many):
		// refused as the kernel would, and not recorded. Answered here
		// rather than continued, so that a file made after this look
		// cannot run unrecorded.
		t.answer(0, e, false)
		return
	}
	switch {
	case p == "" && flags&unix.AT_EMPTY_PATH != 0:
		p, _ = os.Readlink(t.proc("fd/" + strconv.Itoa(int(dirfd))))
	case !path.IsAbs(p):
		base := "cwd"
		if dirfd != unix.AT_FDCWD {
			base = "fd/" + strconv.Itoa(int(dirfd))
		}
		if dir, err := os.Readlink(t.proc(base)); err == nil {
			p = path.Join(dir, p)
		}
	}
	argv, err := t.readArgv(argvAddr)
	if err != nil {
		t.answer(0, syscall.EFAULT, false)
		return
	}
	o.log.exec(effect.Exec{Path: p, Argv: argv})
	t.answer(0, 0, true)
}

// connect records a destination and connects on the command's behalf: an
// IP socket with the observer's copy of the address, in the command's
// network namespace; a UNIX socket never (ECONNREFUSED).
func (o *Observer) connect(t *target, fd int, addr, size uint64) {
	if size > 128 {
		t.answer(0, syscall.EINVAL, false)
		return
	}
	raw, err := t.read(addr, int(size))
	if err != nil {
		t.answer(0, syscall.EFAULT, false)
		return
	}
	if d, ok := sockaddrDest("connect", raw, t.cwd()); ok {
		o.log.dest(d)
	}
	pidfd, err := t.pidfd()
	if err != nil {
		t.answer(0, syscall.EACCES, false)
		return
	}
	defer unix.Close(pidfd)
	if !t.valid() {
		return
	}
	sock, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		if errors.Is(err, syscall.EBADF) {
			t.answer(0, syscall.EBADF, false)
		} else {
			t.answer(0, syscall.EACCES, false)
		}
		return
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	switch {
	case errors.Is(err, syscall.ENOTSOCK):
		unix.Close(sock)
		t.answer(0, syscall.ENOTSOCK, false)
	case err != nil:
		unix.Close(sock)
		t.answer(0, syscall.EACCES, false)
	case domain == unix.AF_UNIX:
		unix.Close(sock)
		t.answer(0, syscall.ECONNREFUSED, false)
	case domain == unix.AF_INET || domain == unix.AF_INET6:
		// A blocking connect waits for the peer: not on the loop.
		o.inflight.Add(1)
		go func() {
			defer o.inflight.Done()
			defer unix.Close(sock)
			var p unsafe.Pointer
			if len(raw) > 0 {
				p = unsafe.Pointer(&raw[0])
			}
			_, _, e := syscall.Syscall(syscall.SYS_CONNECT, uintptr(sock), uintptr(p), uintptr(len(raw)))
			t.answer(0, e, false)
		}()
	default:
		unix.Close(sock)
		t.answer(0, syscall.EACCES, false)
	}
}

// sendAddr records the destination of a datagram, when it names one.
func (o *Observer) sendAddr(t *target, addr, size uint64) {
	if addr == 0 || size == 0 || size > 128 {
		return
	}
	if raw, err := t.read(addr, int(size)); err == nil {
		if d, ok := sockaddrDest("sendto", raw, t.cwd()); ok {
			o.log.dest(d)
		}
	}
}

// sendMsgs records the destinations of n messages from addr: struct
// msghdr (mmsg 0) or struct mmsghdr (mmsg 1), of the target's size.
func (o *Observer) sendMsgs(t *target, addr, n uint64, mmsg int) {
	// struct msghdr: name, namelen, iov, iovlen, control, controllen,
	// flags; pointers and size_t of the target's width.
	hdr := 7 * t.ptr
	if t.ptr == 8 {
		hdr = 56
	}
	stride := hdr
	if mmsg == 1 {
		stride = hdr + 8 // msg_len, padded
		if t.ptr == 4 {
			stride = hdr + 4
		}
	}
	for i := uint64(0); i < n; i++ {
		b, err := t.read(addr+i*uint64(stride), 2*t.ptr)
		if err != nil {
			return
		}
		var name, size uint64
		if t.ptr == 8 {
			name, size = binary.LittleEndian.Uint64(b), uint64(binary.LittleEndian.Uint32(b[8:]))
		} else {
			name, size = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[4:]))
		}
		o.sendAddr(t, name, size)
	}
}

// pidfdThread is PIDFD_THREAD (O_EXCL): a pidfd of the thread itself
// (Linux 6.9), whose descriptor table pidfd_getfd(2) then reads.
const pidfdThread = unix.O_EXCL

// pidfd opens a pidfd of the target thread, or, before Linux 6.9, of its
// process (a thread with a descriptor table of its own then gets the
// answer for the process's descriptor: a wrong answer, never a connect
// the observer did not check, since the observer connects its own copy).
func (t *target) pidfd() (int, error) {
	fd, err := unix.PidfdOpen(t.pid, pidfdThread)
	if err == nil || !errors.Is(err, syscall.EINVAL) {
		return fd, err
	}
	status, err := os.ReadFile(t.proc("status"))
	if err != nil {
		return -1, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			tgid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1, err
			}
			return unix.PidfdOpen(tgid, 0)
		}
	}
	return -1, syscall.ESRCH
}

// missing returns ENOENT or ENOTDIR when the program p (relative to
// dirfd) is not there in the target's view of the file system, and 0
// otherwise (there, or the look failed otherwise: the kernel decides).
// An absolute path is resolved in the target's root, links included.
func (t *target) missing(dirfd int32, p string, flags int) syscall.Errno {
	if p == "" {
		return 0 // AT_EMPTY_PATH, or the kernel's ENOENT
	}
	base, how := t.proc("root"), unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT}
	if !path.IsAbs(p) {
		base, how.Resolve = t.proc("cwd"), 0
		if dirfd != unix.AT_FDCWD {
			base = t.proc("fd/" + strconv.Itoa(int(dirfd)))
		}
	}
	dir, err := unix.Open(base, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, p, &how)
	if err == nil {
		unix.Close(fd)
		return 0
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
		return err.(syscall.Errno)
	}
	return 0
}

func (t *target) proc(name string) string { return "/proc/" + strconv.Itoa(t.pid) + "/" + name }

// cwd is the target's working directory, for relative socket paths.
func (t *target) cwd() string {
	dir, _ := os.Readlink(t.proc("cwd"))
	return dir
}

// read reads n bytes of the target's memory at addr.
func (t *target) read(addr uint64, n int) ([]byte, error) {
	b := make([]byte, n)
	if n == 0 {
		return b, nil
	}
	if _, err := t.mem.ReadAt(b, int64(addr)); err != nil {
		return nil, err
	}
	return b, nil
}

// readString reads the NUL-terminated string at addr, cut at maxArg bytes,
// reading no further than each page it needs.
func (t *target) readString(addr uint64) (string, error) {
	if addr == 0 {
		return "", syscall.EFAULT
	}
	var out []byte
	for len(out) < maxArg {
		chunk := 4096 - int(addr%4096)
		b := make([]byte, min(chunk, maxArg-len(out)))
		n, err := t.mem.ReadAt(b, int64(addr))
		if n == 0 && err != nil {
			return "", err
		}
		b = b[:n]
		for i, c := range b {
			if c == 0 {
				return string(append(out, b[:i]...)), nil
			}
		}
		out = append(out, b...)
		addr += uint64(n)
	}
	return string(out) + "...", nil
}

// readArgv reads the NULL-terminated array of strings at addr.
func (t *target) readArgv(addr uint64) ([]string, error) {
	argv := []string{}
	if addr == 0 {
		return argv, nil // execve(path, NULL, ...) runs with no arguments
	}
	for i := 0; ; i++ {
		if i == maxArgs {
			return append(argv, "..."), nil
		}
		b, err := t.read(addr+uint64(i*t.ptr), t.ptr)
		if err != nil {
			return nil, err
		}
		var p uint64
		if t.ptr == 8 {
			p = binary.LittleEndian.Uint64(b)
		} else {
			p = uint64(binary.LittleEndian.Uint32(b))
		}
		if p == 0 {
			return argv, nil
		}
		s, err := t.readString(p)
		if err != nil {
			return nil, err
		}
		argv = append(argv, s)
	}
}
