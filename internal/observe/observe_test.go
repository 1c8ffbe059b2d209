package observe

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/effect"
	"golang.org/x/net/dns/dnsmessage"
)

// query builds a DNS query for name of type typ.
func query(t testing.TB, id uint16, name string, typ dnsmessage.Type) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	if err := b.StartQuestions(); err != nil {
		t.Fatal(err)
	}
	if err := b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}); err != nil {
		t.Fatal(err)
	}
	msg, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func TestG17_ResolverAnswersNXDOMAINAndRecords(t *testing.T) {
	var l log
	r := newResolver(l.lookup)
	defer r.close()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.servePacket(pc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.serveStream(ln)

	// UDP
	c, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(query(t, 7, "Exfil.Example.", dnsmessage.TypeA)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 512)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, buf[:n], 7, dnsmessage.RCodeNameError)

	// TCP, two queries on one connection.
	tc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	for i, name := range []string{"tcp.example.", "second.example."} {
		q := query(t, uint16(10+i), name, dnsmessage.TypeAAAA)
		if _, err := tc.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(q))), q...)); err != nil {
			t.Fatal(err)
		}
		_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		var size [2]byte
		if _, err := tc.Read(size[:]); err != nil {
			t.Fatal(err)
		}
		msg := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := tc.Read(msg); err != nil {
			t.Fatal(err)
		}
		checkAnswer(t, msg, uint16(10+i), dnsmessage.RCodeNameError)
	}
	got := l.effects().Network
	want := []effect.Dest{{Op: "lookup", Name: "exfil.example"}, {Op: "lookup", Name: "tcp.example"}, {Op: "lookup", Name: "second.example"}}
	if len(got) != len(want) {
		t.Fatalf("recorded %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func checkAnswer(t *testing.T, msg []byte, id uint16, rcode dnsmessage.RCode) {
	t.Helper()
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != id || !h.Response || h.RCode != rcode {
		t.Errorf("answer header %+v, want ID %d, response, %v", h, id, rcode)
	}
	if _, err := p.AllQuestions(); err != nil {
		t.Error(err)
	}
	if as, err := p.AllAnswers(); err != nil || len(as) != 0 {
		t.Errorf("answers %v (%v): a dry run's resolver answers nothing", as, err)
	}
}

func TestG17_SockaddrDest(t *testing.T) {
	le := func(f uint16) []byte { return binary.LittleEndian.AppendUint16(nil, f) }
	in4 := append(append(le(afInet), 1, 187), 10, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0)
	in6 := append(append(le(afInet6), 0, 53, 0, 0, 0, 0), make([]byte, 16)...)
	in6[8+15] = 1
	cases := []struct {
		name string
		raw  []byte
		want effect.Dest
		ok   bool
	}{
		{"ip4", in4, effect.Dest{Op: "connect", Family: "ip4", Address: "10.1.2.3", Port: 443}, true},
		{"ip6", in6, effect.Dest{Op: "connect", Family: "ip6", Address: "::1", Port: 53}, true},
		{"unix path", append(le(afUnix), "/run/docker.sock\x00junk"...), effect.Dest{Op: "connect", Family: "unix", Address: "/run/docker.sock"}, true},
		{"unix relative", append(le(afUnix), "s.sock"...), effect.Dest{Op: "connect", Family: "unix", Address: "/work/s.sock"}, true},
		{"unix abstract", append(le(afUnix), "\x00bus\x00"...), effect.Dest{Op: "connect", Family: "unix", Address: "@bus"}, true},
		{"unspec", le(0), effect.Dest{}, false},
		{"short ip4", le(afInet), effect.Dest{}, false},
		{"empty", nil, effect.Dest{}, false},
	}
	for _, c := range cases {
		got, ok := sockaddrDest("connect", c.raw, "/work")
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestG17_RecordsAreCutVisibly(t *testing.T) {
	var l log
	for i := 0; i < maxExecs+5; i++ {
		l.exec(effect.Exec{Path: "/bin/true", Argv: []string{"true", strings.Repeat("x", i%50), string(rune('a' + i/50))}})
	}
	l.exec(effect.Exec{Path: "/bin/true", Argv: []string{"true"}})
	l.exec(effect.Exec{Path: "/bin/true", Argv: []string{"true"}})
	e := l.effects()
	if len(e.Execs) != maxExecs+1 || !strings.Contains(e.Execs[maxExecs].Argv[0], "7 more") { // 5 + 2 starts past the cap
		t.Errorf("a cut record does not say so: %d entries, last %+v", len(e.Execs), e.Execs[len(e.Execs)-1])
	}
}

func FuzzAnswerQuery(f *testing.F) {
	f.Add(query(f, 1, "exfil.example.", dnsmessage.TypeA))
	f.Add(query(f, 2, "a.b.c.example.", dnsmessage.TypeTXT))
	f.Add([]byte{0, 1, 0x80, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, msg []byte) {
		names, answer := answerQuery(msg)
		if answer == nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(answer)
		if err != nil {
			t.Fatalf("the answer does not parse: %v", err)
		}
		if !h.Response || (h.RCode != dnsmessage.RCodeNameError && h.RCode != dnsmessage.RCodeRefused) {
			t.Fatalf("answer header %+v", h)
		}
		for _, n := range names {
			if strings.HasSuffix(n, ".") || n == "" {
				t.Fatalf("name %q", n)
			}
		}
	})
}

func FuzzSockaddrDest(f *testing.F) {
	f.Add([]byte{2, 0, 1, 187, 10, 1, 2, 3})
	f.Add([]byte{1, 0, '/', 'x'})
	f.Add([]byte{1, 0, 0, 'a'})
	f.Add([]byte{10, 0, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, ok := sockaddrDest("sendto", raw, "/w")
		if !ok {
			return
		}
		if d.Op != "sendto" || d.Address == "" || d.Family == "" || d.Port < 0 || d.Port > 65535 {
			t.Fatalf("%+v", d)
		}
	})
}
