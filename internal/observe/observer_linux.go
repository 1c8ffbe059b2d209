//go:build linux

package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/seqpacket"
	"golang.org/x/sys/unix"
)

// Observer watches one traced command: it receives the helper's
// descriptors, answers the filter's notifications and the resolver's
// queries, and records what they show.
type Observer struct {
	ours, helper *os.File // the two ends of the socket to the helper
	dir          string   // holds the resolver file
	stop         int      // an eventfd: written to stop serving

	log  log
	res  *resolver
	done chan struct{}
	err  error // of serving, read after done

	inflight sync.WaitGroup // connects made on a command's behalf, under way

	startOnce sync.Once
	stopOnce  sync.Once
}

// New makes an Observer for one command, to be started with
// HelperFile among its extra files and ResolvConf as its resolver file
// (see sandbox's observed wrapping); Start it once the command has
// started, and Stop it once the command has ended.
func New() (*Observer, error) {
	ours, helper, err := seqpacket.Pair("observer")
	if err != nil {
		return nil, fmt.Errorf("observe: socket to the helper: %w", err)
	}
	o := &Observer{ours: ours, helper: helper, done: make(chan struct{})}
	o.res = newResolver(o.log.lookup)
	fail := func(err error) (*Observer, error) {
		o.ours.Close()
		o.helper.Close()
		if o.dir != "" {
			os.RemoveAll(o.dir)
		}
		return nil, err
	}
	if o.dir, err = os.MkdirTemp("", "warden-observe-"); err != nil {
		return fail(fmt.Errorf("observe: %w", err))
	}
	if err := os.WriteFile(o.ResolvConf(), []byte(ResolvConfText), 0o644); err != nil {
		return fail(fmt.Errorf("observe: %w", err))
	}
	if o.stop, err = unix.Eventfd(0, unix.EFD_CLOEXEC); err != nil {
		return fail(fmt.Errorf("observe: %w", err))
	}
	return o, nil
}

// HelperFile is the helper's end of the socket, for the command's extra
// files; Start closes this process's copy.
func (o *Observer) HelperFile() *os.File { return o.helper }

// ResolvConf is the path of the resolver file the helper binds over
// /etc/resolv.conf.
func (o *Observer) ResolvConf() string { return filepath.Join(o.dir, "resolv.conf") }

// Start begins observing, once the command has started.
func (o *Observer) Start() {
	o.startOnce.Do(func() {
		o.helper.Close()
		go func() {
			defer close(o.done)
			o.err = o.run()
		}()
	})
}

// Stop stops observing and returns what was seen: call it once the
// command has ended (the supervisor also ends by itself then). Calls the
// command makes after Stop fail (ENOSYS). The error is the observer's own
// failure, which a caller must treat as a failed dry run, not as a quiet
// one.
func (o *Observer) Stop() (Effects, error) {
	o.Start() // so that done closes
	o.stopOnce.Do(func() {
		var one [8]byte
		one[0] = 1
		_, _ = unix.Write(o.stop, one[:])
		o.ours.Close() // ends a receive still waiting for the helper
		<-o.done
		o.res.close()
		unix.Close(o.stop)
		os.RemoveAll(o.dir)
	})
	return o.log.effects(), o.err
}

// run receives the helper's descriptors and serves its notifications
// until the command's processes are gone or Stop is called.
func (o *Observer) run() error {
	for {
		tag, fds, err := o.receive()
		if err != nil || tag == 0 {
			return err // the helper ended without (more) tracing: nothing ran traced
		}
		switch tag {
		case TagResolver:
			if err := o.serveResolver(fds); err != nil {
				return err
			}
		case TagListener:
			if len(fds) != 1 {
				closeAll(fds)
				return errors.New("observe: the helper sent no notification descriptor")
			}
			defer func() {
				// Connects still under way answer on it: closed after
				// them, so that no answer goes to a reused number.
				go func() {
					o.inflight.Wait()
					unix.Close(fds[0])
				}()
			}()
			return o.supervise(fds[0])
		default:
			closeAll(fds)
			return fmt.Errorf("observe: unknown message %q from the helper", tag)
		}
	}
}

// receive reads one message of the helper: its tag (0 at the end) and
// descriptors.
func (o *Observer) receive() (byte, []int, error) {
	raw, err := o.ours.SyscallConn()
	if err != nil {
		return 0, nil, err
	}
	buf := make([]byte, 16)
	oob := make([]byte, syscall.CmsgSpace(8*4))
	var n, oobn int
	var rerr error
	err = raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	})
	if err != nil {
		if errors.Is(err, os.ErrClosed) {
			return 0, nil, nil
		}
		return 0, nil, fmt.Errorf("observe: %w", err)
	}
	if rerr != nil {
		return 0, nil, fmt.Errorf("observe: receiving from the helper: %w", rerr)
	}
	if n == 0 {
		return 0, nil, nil
	}
	var fds []int
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return 0, nil, fmt.Errorf("observe: %w", err)
	}
	for _, m := range msgs {
		got, err := syscall.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	return buf[0], fds, nil
}

// serveResolver answers DNS on the resolver's sockets: UDP, TCP for each
// address.
func (o *Observer) serveResolver(fds []int) error {
	if len(fds) != 2*len(ResolverAddrs) {
		closeAll(fds)
		return fmt.Errorf("observe: the helper sent %d resolver sockets", len(fds))
	}
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "resolver")
		if i%2 == 0 {
			c, err := net.FilePacketConn(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("observe: resolver: %w", err)
			}
			o.res.servePacket(c)
		} else {
			l, err := net.FileListener(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("observe: resolver: %w", err)
			}
			o.res.serveStream(l)
		}
	}
	return nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// Attach starts observing once the dry run's helper has started (the
// dry run's recorder interface; the observer has its own socket, so
// receive is not used).
func (o *Observer) Attach(ctx context.Context, pid int, receive func(name string) (*os.File, error)) error {
	o.Start()
	return nil
}

// Finish stops observing, once the command has ended, and adds what was
// seen to rep: the programs started and the destinations tried.
func (o *Observer) Finish(rep *effect.Report) error {
	fx, err := o.Stop()
	if err != nil {
		return fmt.Errorf("observing the command: %w", err)
	}
	rep.Execs = append(rep.Execs, fx.Execs...)
	rep.Network = append(rep.Network, fx.Network...)
	return nil
}
