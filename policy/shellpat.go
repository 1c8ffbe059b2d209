package policy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
)

// argCommands is the shell-aware form of a structured argument (SPEC P8):
// the argument is a shell script, and it matches only when every simple
// command the script would run matches one of prefixes.
type argCommands struct {
	key      string
	prefixes [][]string // each a list of words, the program first
}

// systemDirs are the directories an absolute program path may name and still
// match a prefix by its base name: /bin/ls is ls, /tmp/x/ls is not.
var systemDirs = map[string]bool{
	"/bin": true, "/sbin": true,
	"/usr/bin": true, "/usr/sbin": true,
	"/usr/local/bin": true, "/usr/local/sbin": true,
}

// compileCommands splits each command prefix into words (shell.Split: quotes
// group words, nothing is expanded).
func compileCommands(key string, cmds []string) (argCommands, error) {
	if len(cmds) == 0 {
		return argCommands{}, errors.New("commands: want a non-empty list of command prefixes")
	}
	a := argCommands{key: key}
	for i, c := range cmds {
		words, err := shell.SplitPrefix(c)
		if err != nil {
			return argCommands{}, fmt.Errorf("commands[%d]: %w", i, err)
		}
		a.prefixes = append(a.prefixes, words)
	}
	return a, nil
}

// matchScript reports whether every simple command of s matches one of the
// prefixes. It fails closed: an opaque script, a script with no command, a
// command with variable assignments or output redirections, and a command
// whose words are not literal where a prefix compares them never match.
func (a *argCommands) matchScript(s *shell.Script) bool {
	if s == nil || s.Opaque || len(s.Commands) == 0 {
		return false
	}
	for i := range s.Commands {
		if !a.matchCommand(&s.Commands[i]) {
			return false
		}
	}
	return true
}

func (a *argCommands) matchCommand(c *shell.Command) bool {
	// FOO=1 cmd, env FOO=1 cmd, a bare PATH=… and redirections such as
	// `ls > ~/.bashrc` change what runs or what it writes.
	if len(c.Args) == 0 || len(c.Assigns) > 0 || len(c.Redirects) > 0 {
		return false
	}
	for _, p := range a.prefixes {
		if matchPrefix(p, c) {
			return true
		}
	}
	return false
}

// matchPrefix matches the words of p against the command's argv word by
// word. The program matches by base name when it is a bare name or an
// absolute path in a system directory; a prefix whose program has a slash
// must be given exactly.
func matchPrefix(p []string, c *shell.Command) bool {
	if len(c.Args) < len(p) {
		return false
	}
	for i, w := range p {
		if !c.Literal[i] {
			return false
		}
		arg := c.Args[i]
		if i == 0 {
			if !programIs(arg, w) {
				return false
			}
			continue
		}
		if arg != w {
			return false
		}
	}
	return true
}

func programIs(arg, want string) bool {
	if arg == want {
		return true
	}
	if strings.ContainsRune(want, '/') {
		return false
	}
	i := strings.LastIndexByte(arg, '/')
	if i < 0 {
		return false
	}
	dir := arg[:i]
	if dir == "" {
		dir = "/"
	}
	return systemDirs[dir] && arg[i+1:] == want
}

// script returns the parse of the argument key's text, parsing it at most
// once per target. ok is false when the argument is absent.
func (t *Target) script(key string) (s *shell.Script, ok bool) {
	for i := range t.scripts {
		if t.scripts[i].key == key {
			return t.scripts[i].s, true
		}
	}
	v, ok := t.argText(key)
	if !ok {
		return nil, false
	}
	s, err := shell.Parse(v)
	if err != nil {
		s = nil // unparsable: never matches
	}
	t.scripts = append(t.scripts, parsedArg{key: key, s: s})
	return s, true
}

type parsedArg struct {
	key string
	s   *shell.Script
}
