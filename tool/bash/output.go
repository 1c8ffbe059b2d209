package bash

import (
	"fmt"
	"unicode/utf8"
)

// capBuffer is an io.Writer that keeps at most max bytes of what is written
// to it: the first half and the last half. What falls between is counted and
// dropped. It is not safe for concurrent writes; os/exec writes to it from a
// single goroutine when stdout and stderr share it.
type capBuffer struct {
	head    []byte // the first bytes written, up to headMax
	headMax int
	tail    []byte // a ring of the last bytes written after head filled
	tailMax int
	pos     int   // where the next byte goes in tail once it is full
	total   int64 // bytes written in all
}

func newCapBuffer(max int) *capBuffer {
	headMax := max / 2
	return &capBuffer{headMax: headMax, tailMax: max - headMax}
}

// Write keeps p, or the parts of it that fit, and never fails.
func (b *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if len(p) >= b.tailMax {
		// p alone fills the ring: keep its end, in order.
		b.tail = append(b.tail[:0], p[len(p)-b.tailMax:]...)
		b.pos = 0
		return n, nil
	}
	if room := b.tailMax - len(b.tail); room > 0 {
		k := min(room, len(p))
		b.tail = append(b.tail, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		k := copy(b.tail[b.pos:], p)
		p = p[k:]
		b.pos = (b.pos + k) % b.tailMax
	}
	return n, nil
}

// cut returns [bytes written, bytes kept] when bytes were dropped; nil
// when all were kept.
func (b *capBuffer) cut() *[2]int {
	kept := int64(len(b.head) + len(b.tail))
	if kept == b.total {
		return nil
	}
	return &[2]int{int(b.total), int(kept)}
}

// String returns what was kept. When bytes were dropped, the kept beginning
// and end are cut at character boundaries and joined by a note saying how
// many bytes are missing.
func (b *capBuffer) String() string {
	tail := make([]byte, 0, len(b.tail))
	tail = append(tail, b.tail[b.pos:]...)
	tail = append(tail, b.tail[:b.pos]...)
	kept := int64(len(b.head) + len(tail))
	if kept == b.total {
		return string(b.head) + string(tail)
	}
	head := trimPartialEnd(b.head)
	tail = trimPartialStart(tail)
	dropped := b.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes of output dropped ...]\n%s", head, dropped, tail)
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return p[:i]
			}
			break
		}
	}
	return p
}

// trimPartialStart drops continuation bytes at the start of p, left over
// from a character whose beginning was dropped.
func trimPartialStart(p []byte) []byte {
	for i := 0; i < len(p) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}
