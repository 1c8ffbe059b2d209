package argument

import (
	"strings"
)

// Words returns the lower-case word parts of a name, split at anything
// that is not a letter or digit and at lower-to-upper case changes:
// "get_pull-requestFiles" → get pull request files.
func Words(name string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		boundary := !isAlnum || (i > 0 && start >= 0 && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z')
		if boundary && start >= 0 {
			out = append(out, strings.ToLower(name[start:i]))
			start = -1
		}
		if isAlnum && start < 0 {
			start = i
		}
	}
	return out
}
