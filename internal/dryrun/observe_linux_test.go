//go:build linux

package dryrun

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/effect"
)

// A dry run names the programs a script starts, the destinations it tries
// and the names it looks up, while nothing reaches a UNIX socket outside
// and the resolver file it sees is not reported as a write.
func TestG17_DryRunRecordsExecsAndNetwork(t *testing.T) {
	needDryRun(t)
	out := outsideDir(t)
	sock := filepath.Join(out, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
			reached <- struct{}{}
		}
	}()
	resolv, _ := os.ReadFile("/etc/resolv.conf")
	work := t.TempDir()
	script := filepath.Join(work, "deploy.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
getent hosts exfil.example
/usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' `+sock+`
/usr/bin/python3 -c 'import socket; socket.create_connection(("10.1.2.3", 443), timeout=2)'
echo nameserver 6.6.6.6 > /etc/resolv.conf && echo RESOLVER-WRITTEN
exit 0
`), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), Request{Argv: []string{"./deploy.sh"}, Dir: work})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Execs) == 0 || rep.Execs[0].Argv[0] != "./deploy.sh" {
		t.Errorf("the command's own start is not first: %+v", rep.Execs)
	}
	if !slices.ContainsFunc(rep.Execs, func(e effect.Exec) bool { return slices.Equal(e.Argv, []string{"getent", "hosts", "exfil.example"}) }) {
		t.Errorf("getent not recorded: %+v", rep.Execs)
	}
	for _, want := range []effect.Dest{
		{Op: "lookup", Name: "exfil.example"},
		{Op: "connect", Family: "unix", Address: sock},
		{Op: "connect", Family: "ip4", Address: "10.1.2.3", Port: 443},
	} {
		if !slices.Contains(rep.Network, want) {
			t.Errorf("not recorded: %+v in %+v", want, rep.Network)
		}
	}
	for _, p := range append(append(rep.Writes, rep.Creates...), rep.Deletes...) {
		if strings.Contains(p, "resolv.conf") {
			t.Errorf("the resolver file is reported as an effect: %s", p)
		}
	}
	if strings.Contains(rep.Output, "RESOLVER-WRITTEN") {
		t.Errorf("the resolver file was writable (it is the observer's, outside the view)")
	}
	if now, _ := os.ReadFile("/etc/resolv.conf"); string(now) != string(resolv) {
		t.Errorf("/etc/resolv.conf changed")
	}
	select {
	case <-reached:
		t.Error("the UNIX socket outside was reached")
	case <-time.After(100 * time.Millisecond):
	}
}
