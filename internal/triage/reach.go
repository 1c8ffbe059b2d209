package triage

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// Generic reasoning about where a command's words can reach, for any
// program, known or not: a secret (an environment variable whose name says
// key, token, secret or password, in a word or in a here-document or
// here-string) given to a program that can talk to other hosts, and
// destinations that are raw IP addresses or unusual ports. The program
// tables judge what they know; this looks at what every command shows.

// Which programs can talk to other hosts (network), only look a name up
// (looks_up) or take a bare address as what they inspect (probes) is said
// by the programs file.

// reach adds the findings of c's words about the network.
func (s *sh) reach(c *cmd) {
	if len(c.args) < 2 && c.sc.Doc == "" {
		return
	}
	net := s.v.k.has(c.name, factNetwork)
	// Destinations.
	remote, rawIP, oddPort, meta := "", "", "", ""
	expose := false
	for i := 1; i < len(c.args); i++ {
		w := c.args[i]
		if len(w) < 4 || strings.IndexByte(w, '.') < 0 && strings.IndexByte(w, ':') < 0 {
			continue
		}
		if !net && strings.IndexByte(w, ':') < 0 && strings.IndexAny(w, "0123456789") < 0 {
			// For other programs only a URL or an IP address is a
			// destination (see destOf), and both need one of these.
			continue
		}
		h, port, scheme, ok := network.Dest(w, net)
		if ok && (h == "0.0.0.0" || h == "::") && !expose {
			expose = true
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` listens on every network interface")
		}
		if !ok || network.Local(h) {
			continue
		}
		if network.MetadataHost(h) {
			meta = h
		}
		if remote == "" {
			remote = h
		}
		if ip := network.IP(h); ip != nil && !ip.IsLoopback() && !ip.IsUnspecified() {
			if scheme || port != "" || !s.v.k.has(c.name, factProbes) {
				if rawIP == "" {
					rawIP = h
					if port != "" {
						rawIP += ":" + port
					}
				}
			}
		} else if port != "" && !network.CommonPort(port) && (net || scheme) {
			if oddPort == "" {
				oddPort = h + ":" + port
			}
		}
	}
	if meta != "" {
		s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reaches the cloud metadata service ("+meta+"), which hands out the machine's credentials")
	}
	if rawIP != "" {
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` reaches the raw IP address "+rawIP)
	}
	if oddPort != "" {
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` reaches "+oddPort+", an unusual port")
	}
	for _, a := range c.sc.Assigns {
		name, val, _ := strings.Cut(a, "=")
		if strings.HasSuffix(strings.ToLower(name), "_proxy") && val != "" && strings.IndexByte(val, '$') < 0 {
			if h, _, _, ok := network.Dest(strings.Trim(val, `'"`), true); ok && !network.Local(h) {
				s.esc(vocab.Exfiltration, medium, "`"+c.text+"` sends its traffic through the proxy "+h)
			}
		}
	}
	for i := 2; i < len(c.args); i++ {
		// docker run img nc -l -p 4444 -e sh, kubectl exec pod -- socat …:
		// a network shell run by another program.
		switch shell.Base(c.args[i]) {
		case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat":
			for _, a := range c.args[i+1:] {
				if a == "-e" || a == "-c" || strings.HasPrefix(a, "--exec") || strings.HasPrefix(strings.ToLower(a), "exec:") {
					s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` runs a network shell ("+c.args[i]+" "+a+")")
					i = len(c.args)
					break
				}
			}
		}
	}
	if t := c.sc.Text; strings.Contains(t, "/dev/") && (strings.Contains(t, "/dev/tcp/") || strings.Contains(t, "/dev/udp/")) {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` opens a raw network connection (/dev/tcp)")
	}
	if !net && remote == "" {
		return
	}
	// Secrets in the words or the input document.
	for i := 1; i < len(c.sc.Args); i++ {
		if c.sc.Literal[i] {
			continue
		}
		raw := c.sc.Args[i]
		vs := s.secretRefs(raw)
		if len(vs) == 0 {
			continue
		}
		if s.v.k.has(c.name, factLooksUp) && network.InHostName(raw, vs[0]) {
			s.deny(vocab.Exfiltration, "`"+c.text+"` puts the secret $"+vs[0]+" into a name it looks up (DNS carries it out)")
			return
		}
		s.esc(vocab.Exfiltration, high, "`"+c.text+"` gives the secret $"+vs[0]+" to "+c.name+", which can send it over the network")
		return
	}
	if d := c.sc.Doc; d != "" {
		if vs := s.secretRefs(d); len(vs) > 0 {
			s.esc(vocab.Exfiltration, high, "`"+c.text+"` feeds the secret $"+vs[0]+" to "+c.name+", which can send it over the network")
			return
		}
		if l, what := secret.InText(d); l > secret.None {
			s.deny(vocab.Exfiltration, "`"+c.text+"` feeds "+what+" to "+c.name+", which can send it over the network")
			return
		}
		if strings.Contains(d, "$(") || strings.Contains(d, "`") {
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` feeds command output to "+c.name+", which can send it over the network")
		}
	}
}

// codeSecret returns what credential store or secret file inline code
// names ("" for none): paths in its strings judged as paths, and the
// libraries that read browser cookies and saved passwords.
func codeSecret(code string) string {
	for _, w := range []string{"browser_cookie3", "browsercookie", "pycookiecheat", "CryptUnprotectData", "Login Data", "key4.db",
		"logins.json", "cookies.sqlite", "Cookies.binarycookies", "find-generic-password", "find-internet-password", "dump-keychain",
		"Keychains", "keyring.get_password", "secretstorage"} {
		if strings.Contains(code, w) {
			return w
		}
	}
	if strings.IndexByte(code, '/') < 0 {
		return ""
	}
	f := strings.FieldsFunc(code, func(r rune) bool {
		return r == '\'' || r == '"' || r == ' ' || r == '(' || r == ')' || r == ',' || r == ';' || r == '\n' || r == '`' || r == '+'
	})
	for _, t := range f {
		if len(t) < 5 || strings.IndexByte(t, '/') < 0 {
			continue
		}
		if l, what := secret.Path(t); l == secret.Critical {
			return what + " (" + t + ")"
		}
	}
	return ""
}
