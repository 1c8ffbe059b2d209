//go:build linux

package ptytest

import (
	"strings"
	"testing"
	"time"
)

// What the terminal end writes, the controller end reads.
func TestOpenPassesBytes(t *testing.T) {
	m, term := Open(t)
	if !strings.HasPrefix(term.Name(), "/dev/pts/") {
		t.Fatalf("terminal %s", term.Name())
	}
	if _, err := term.WriteString("hi\n"); err != nil {
		t.Fatal(err)
	}
	_ = m.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 16)
	n, err := m.Read(b)
	if err != nil || !strings.Contains(string(b[:n]), "hi") {
		t.Fatalf("read %q, %v", b[:n], err)
	}
}
