// Package textcut shortens long strings: by cutting out their middle, with a
// marker that says how much was cut (Middle), or by folding their white
// space and cutting their end (Shorten), as the first pass quotes commands.
package textcut

import (
	"strconv"
	"unicode/utf8"
)

// Marker returns the note that replaces n bytes cut from the middle of a
// string.
func Marker(n int) string {
	return "[… " + strconv.Itoa(n) + " bytes cut …]"
}

// Middle returns s unchanged when it fits in limit bytes; otherwise it
// keeps the beginning and the end, replaces the middle with a Marker and
// reports true. The result is at most limit bytes whenever limit is at least
// the length of the marker, and it never splits a UTF-8 sequence.
func Middle(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	// The marker names the number of bytes cut, which is at most len(s):
	// sizing it for len(s) keeps the result within limit.
	keep := limit - len(Marker(len(s)))
	if keep < 0 {
		keep = 0
	}
	head := keep - keep/2
	tail := keep / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + Marker(start-head) + s[start:], true
}
