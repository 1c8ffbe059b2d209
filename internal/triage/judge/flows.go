package judge

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// Flows between the commands of a script: secrets piped into a command
// that sends its input to the network, downloads piped into a shell.

func (s *Script) flows() {
	for i := range s.Cmds {
		c := &s.Cmds[i]
		if c.Sc.Pipeline == 0 || c.Sc.Stage == 0 {
			continue
		}
		if c.Sink {
			level, what := secret.None, ""
			for j := range s.Cmds {
				d := &s.Cmds[j]
				if d.Sc.Pipeline == c.Sc.Pipeline && d.Sc.Stage < c.Sc.Stage && d.Out > level {
					level, what = d.Out, d.OutWhat
				}
			}
			if level > secret.None {
				s.Deny(vocab.Exfiltration, "`"+c.Text+"` sends "+what+" piped into it over the network")
			}
		}
		if s.readsProgram(c) {
			for j := range s.Cmds {
				d := &s.Cmds[j]
				if d.Sc.Pipeline != c.Sc.Pipeline || d.Sc.Stage >= c.Sc.Stage || len(d.Args) == 0 {
					continue
				}
				s.pipedIntoShell(d, c)
			}
		}
	}
}

// pipedIntoShell judges d's output running as a program in c.
func (s *Script) pipedIntoShell(d, c *Command) {
	switch d.Name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "ftp", "tftp":
		var urls []string
		for _, a := range d.Args[1:] {
			if _, ok := network.URLHost(a); ok && !strings.HasPrefix(a, "-") && (strings.Contains(a, "://") || strings.Contains(a, ".")) {
				urls = append(urls, a)
			}
		}
		s.fetchRun = true
		plain, rawIP := false, false
		for _, u := range urls {
			if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "ftp://") {
				plain = true
			}
			if h, _ := network.URLHost(u); network.RawIP(h) {
				rawIP = true
			}
		}
		root := false
		for _, w := range c.Sc.Wrappers {
			if w == "sudo" || w == "doas" || w == "su -c" {
				root = true
			}
		}
		if plain && (rawIP || root) {
			s.Deny(vocab.SecurityWeakening, "`"+d.Text+" | "+c.Text+"` runs code fetched without TLS"+map[bool]string{true: " as root", false: " from a bare IP address"}[root])
			return
		}
		s.Esc(vocab.SecurityWeakening, High, "`"+d.Text+" | "+c.Text+"` downloads code and runs it")
	case "base64", "xxd", "openssl", "gunzip", "zcat", "rev", "tr", "echo", "printf":
		if d.Name == "echo" || d.Name == "printf" {
			s.Esc(vocab.Routine, Medium, "`"+d.Text+" | "+c.Text+"` runs text as a program")
			return
		}
		s.Esc(vocab.SecurityWeakening, High, "`"+d.Text+" | "+c.Text+"` runs decoded (hidden) code")
	}
}

// readsProgram reports whether c is a shell or interpreter reading its
// program from standard input.
func (s *Script) readsProgram(c *Command) bool {
	if len(c.Args) == 0 || c.Sc.Unwrapped && !shell.IsShell(c.Name) {
		return false
	}
	if !shell.IsShell(c.Name) && !s.V.K.Has(c.Name, FactInterpreter) && !command.IsPython(c.Name) {
		return false
	}
	for _, a := range c.Args[1:] {
		if a == "-" || a == "--" || a == "-s" {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
		if len(a) > 1 && a[1] != '-' && strings.ContainsAny(a[1:], "cemErp") {
			return false
		}
	}
	return true
}

// Taint records that the file p now holds secrets of the given level.
func (s *Script) Taint(c *Command, p string, level int) {
	if level == secret.None {
		return
	}
	pl := s.Where(p, c.Cwd)
	if pl.Abs == "" {
		return
	}
	if s.Tainted == nil {
		s.Tainted = map[string]int{}
	}
	s.Tainted[pl.Abs] = max(s.Tainted[pl.Abs], level)
}

// ShortBase returns the last element of the path p, trailing slashes ignored.
func ShortBase(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// FileRefs finds files read inside command substitutions: $(cat FILE),
// $(< FILE), `cat FILE`, $(base64 FILE).
var FileRefs = pattern.Lazy(`(?:\$\(|` + "`" + `)\s*(?:<|cat|base64|head|tail|gzip -c|xxd|od)\s+(?:-\w+\s+)*['"]?([^\s'")` + "`" + `]+)`)

// TildeHome writes a path starting with $HOME or ${HOME} as one starting with ~.
func (s *Script) TildeHome(p string) string {
	if strings.HasPrefix(p, "$HOME") {
		return "~" + strings.TrimPrefix(p, "$HOME")
	}
	if strings.HasPrefix(p, "${HOME}") {
		return "~" + strings.TrimPrefix(p, "${HOME}")
	}
	return p
}
