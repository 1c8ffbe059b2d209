package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// Flows between the commands of a script: secrets piped into a command
// that sends its input to the network, downloads piped into a shell.

func (s *sh) flows() {
	for i := range s.cmds {
		c := &s.cmds[i]
		if c.sc.Pipeline == 0 || c.sc.Stage == 0 {
			continue
		}
		if c.sink {
			level, what := secret.None, ""
			for j := range s.cmds {
				d := &s.cmds[j]
				if d.sc.Pipeline == c.sc.Pipeline && d.sc.Stage < c.sc.Stage && d.out > level {
					level, what = d.out, d.outWhat
				}
			}
			if level > secret.None {
				s.deny(vocab.Exfiltration, "`"+c.text+"` sends "+what+" piped into it over the network")
			}
		}
		if s.readsProgram(c) {
			for j := range s.cmds {
				d := &s.cmds[j]
				if d.sc.Pipeline != c.sc.Pipeline || d.sc.Stage >= c.sc.Stage || len(d.args) == 0 {
					continue
				}
				s.pipedIntoShell(d, c)
			}
		}
	}
}

// pipedIntoShell judges d's output running as a program in c.
func (s *sh) pipedIntoShell(d, c *cmd) {
	switch d.name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "ftp", "tftp":
		var urls []string
		for _, a := range d.args[1:] {
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
		for _, w := range c.sc.Wrappers {
			if w == "sudo" || w == "doas" || w == "su -c" {
				root = true
			}
		}
		if plain && (rawIP || root) {
			s.deny(vocab.SecurityWeakening, "`"+d.text+" | "+c.text+"` runs code fetched without TLS"+map[bool]string{true: " as root", false: " from a bare IP address"}[root])
			return
		}
		s.esc(vocab.SecurityWeakening, high, "`"+d.text+" | "+c.text+"` downloads code and runs it")
	case "base64", "xxd", "openssl", "gunzip", "zcat", "rev", "tr", "echo", "printf":
		if d.name == "echo" || d.name == "printf" {
			s.esc(vocab.Routine, medium, "`"+d.text+" | "+c.text+"` runs text as a program")
			return
		}
		s.esc(vocab.SecurityWeakening, high, "`"+d.text+" | "+c.text+"` runs decoded (hidden) code")
	}
}

// readsProgram reports whether c is a shell or interpreter reading its
// program from standard input.
func (s *sh) readsProgram(c *cmd) bool {
	if len(c.args) == 0 || c.sc.Unwrapped && !shell.IsShell(c.name) {
		return false
	}
	if !shell.IsShell(c.name) && !s.v.k.has(c.name, factInterpreter) && !isPython(c.name) {
		return false
	}
	for _, a := range c.args[1:] {
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
