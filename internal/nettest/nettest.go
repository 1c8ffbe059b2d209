// Package nettest gives tests of network confinement servers to reach
// for, in the test process, outside every sandbox.
package nettest

import (
	"net"
	"testing"
)

// Serve listens on network and addr until the test ends, and runs handle
// (in a goroutine of its own) on every connection, closing it afterwards;
// it returns the listener's address.
func Serve(t testing.TB, network, addr string, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	return Accept(t, ln, handle)
}

// Accept serves ln until the test ends, closing it then, and runs handle
// (in a goroutine of its own) on every connection, closing it afterwards;
// it returns the listener's address.
func Accept(t testing.TB, ln net.Listener, handle func(net.Conn)) string {
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// Listen starts a TCP server on the host's loopback interface that accepts
// connections and closes them at once, until the test ends; it returns its
// address (127.0.0.1:PORT).
func Listen(t testing.TB) string {
	t.Helper()
	return Serve(t, "tcp4", "127.0.0.1:0", func(net.Conn) {})
}
