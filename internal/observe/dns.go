package observe

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// maxNames bounds the names one resolver records: a program asking
// without end cannot grow the report without end.
const maxNames = 1024

// answerQuery parses msg, a DNS query, and returns the names it asks
// (without the final dot, lower-cased as DNS compares them) and the
// answer: NXDOMAIN for a query, REFUSED for any other opcode; nil when
// msg is not a DNS message at all (nothing is answered then).
func answerQuery(msg []byte) (names []string, answer []byte) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil || h.Response {
		return nil, nil
	}
	qs, err := p.AllQuestions()
	rcode := dnsmessage.RCodeNameError
	if err != nil || h.OpCode != 0 {
		rcode = dnsmessage.RCodeRefused
		qs = nil
	}
	for _, q := range qs {
		n := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
		if n != "" {
			names = append(names, n)
		}
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{
		ID: h.ID, Response: true, OpCode: h.OpCode, RecursionDesired: h.RecursionDesired,
		RecursionAvailable: true, RCode: rcode,
	})
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return names, nil
	}
	for _, q := range qs {
		if err := b.Question(q); err != nil {
			return names, nil
		}
	}
	answer, err = b.Finish()
	if err != nil {
		return names, nil
	}
	return names, answer
}

// resolver answers the DNS queries of a traced command on the sockets the
// helper made in its network namespace, recording the names asked.
type resolver struct {
	record func(name string)
	wg     sync.WaitGroup
	closed chan struct{}

	mu      sync.Mutex
	closers []io.Closer
}

func newResolver(record func(string)) *resolver {
	return &resolver{record: record, closed: make(chan struct{})}
}

// servePacket answers the queries that reach c.
func (r *resolver) servePacket(c net.PacketConn) {
	r.track(c)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		buf := make([]byte, 64<<10)
		for {
			n, from, err := c.ReadFrom(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			names, answer := answerQuery(buf[:n])
			for _, name := range names {
				r.record(name)
			}
			if answer != nil {
				_, _ = c.WriteTo(answer, from)
			}
		}
	}()
}

// serveStream answers the queries of each connection l accepts, each
// message after its two-byte length (RFC 1035, 4.2.2).
func (r *resolver) serveStream(l net.Listener) {
	r.track(l)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			r.track(c)
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer c.Close()
				for {
					_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
					var size [2]byte
					if _, err := io.ReadFull(c, size[:]); err != nil {
						return
					}
					msg := make([]byte, binary.BigEndian.Uint16(size[:]))
					if _, err := io.ReadFull(c, msg); err != nil {
						return
					}
					names, answer := answerQuery(msg)
					for _, name := range names {
						r.record(name)
					}
					if answer == nil {
						return
					}
					out := binary.BigEndian.AppendUint16(nil, uint16(len(answer)))
					if _, err := c.Write(append(out, answer...)); err != nil {
						return
					}
				}
			}()
		}
	}()
}

// track remembers c, to be closed by close (at once if closed already).
func (r *resolver) track(c io.Closer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closed:
		c.Close()
		return
	default:
	}
	r.closers = append(r.closers, c)
}

// close stops the resolver and waits for its goroutines.
func (r *resolver) close() {
	r.mu.Lock()
	select {
	case <-r.closed:
	default:
		close(r.closed)
	}
	cs := r.closers
	r.closers = nil
	r.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
	r.wg.Wait()
}
