package shell

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnterminated is returned by Split for an unterminated quote or a
// trailing backslash.
var ErrUnterminated = errors.New("unterminated quote or escape")

// Split splits s into words the way a POSIX shell splits a command line,
// without expanding anything (like Python's shlex.split): blanks separate
// words, single quotes keep their content literally, double quotes allow
// backslash escapes of \ " $ ` and newline, and a backslash outside quotes
// escapes the next character. Operators such as | or ; are ordinary
// characters.
func Split(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\\':
			in = true
			if i+1 >= len(s) {
				return nil, ErrUnterminated
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, ErrUnterminated
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			i++
			for ; ; i++ {
				if i >= len(s) {
					return nil, ErrUnterminated
				}
				d := s[i]
				if d == '"' {
					break
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				cur.WriteByte(d)
			}
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// SplitPrefix splits one command prefix of a shell-aware pattern, such as
// "git status", into its words as Split does (SPEC P8): an empty prefix or
// an empty program name is an error.
func SplitPrefix(c string) ([]string, error) {
	words, err := Split(c)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", c, err)
	}
	if len(words) == 0 {
		return nil, errors.New("empty command prefix")
	}
	if words[0] == "" {
		return nil, fmt.Errorf("%q: empty program name", c)
	}
	return words, nil
}
