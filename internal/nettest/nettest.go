// Package nettest gives tests of network confinement a server to reach
// for: one on the host's loopback interface, outside every sandbox.
package nettest

import (
	"net"
	"testing"
)

// Listen starts a TCP server on the host's loopback interface, outside
// every sandbox, that accepts connections and closes them at once, until
// the test ends; it returns its address (127.0.0.1:PORT).
func Listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}
