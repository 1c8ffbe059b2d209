package agent

import (
	"fmt"
	"unicode/utf8"
)

// truncateText cuts s in the middle to at most limit bytes of content, keeping
// its head and tail on rune boundaries, with a notice of what was cut
// (SPEC L3).
func truncateText(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	head := limit / 2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (limit - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s\n\n[... %d bytes truncated: the output was %d bytes, the limit is %d ...]\n\n%s",
		s[:head], tail-head, len(s), limit, s[tail:])
}
