package judge

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
func (s *Script) reach(c *Command) {
	if len(c.Args) < 2 && c.Sc.Doc == "" {
		return
	}
	net := s.V.K.Has(c.Name, FactNetwork)
	// Destinations.
	remote, rawIP, oddPort, meta := "", "", "", ""
	expose := false
	for i := 1; i < len(c.Args); i++ {
		w := c.Args[i]
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
			s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` listens on every network interface")
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
			if scheme || port != "" || !s.V.K.Has(c.Name, FactProbes) {
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
		s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` reaches the cloud metadata service ("+meta+"), which hands out the machine's credentials")
	}
	if rawIP != "" {
		s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` reaches the raw IP address "+rawIP)
	}
	if oddPort != "" {
		s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` reaches "+oddPort+", an unusual port")
	}
	for _, a := range c.Sc.Assigns {
		name, val, _ := strings.Cut(a, "=")
		if strings.HasSuffix(strings.ToLower(name), "_proxy") && val != "" && strings.IndexByte(val, '$') < 0 {
			if h, _, _, ok := network.Dest(strings.Trim(val, `'"`), true); ok && !network.Local(h) {
				s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` sends its traffic through the proxy "+h)
			}
		}
	}
	for i := 2; i < len(c.Args); i++ {
		// docker run img nc -l -p 4444 -e sh, kubectl exec pod -- socat …:
		// a network shell run by another program.
		switch shell.Base(c.Args[i]) {
		case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd", "socat":
			for _, a := range c.Args[i+1:] {
				if a == "-e" || a == "-c" || strings.HasPrefix(a, "--exec") || strings.HasPrefix(strings.ToLower(a), "exec:") {
					s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` runs a network shell ("+c.Args[i]+" "+a+")")
					i = len(c.Args)
					break
				}
			}
		}
	}
	if t := c.Sc.Text; strings.Contains(t, "/dev/") && (strings.Contains(t, "/dev/tcp/") || strings.Contains(t, "/dev/udp/")) {
		s.Esc(vocab.SecurityWeakening, High, "`"+c.Text+"` opens a raw network connection (/dev/tcp)")
	}
	if !net && remote == "" {
		return
	}
	// Secrets in the words or the input document.
	for i := 1; i < len(c.Sc.Args); i++ {
		if c.Sc.Literal[i] {
			continue
		}
		raw := c.Sc.Args[i]
		vs := s.SecretRefs(raw)
		if len(vs) == 0 {
			continue
		}
		if s.V.K.Has(c.Name, FactLooksUp) && network.InHostName(raw, vs[0]) {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` puts the secret $"+vs[0]+" into a name it looks up (DNS carries it out)")
			return
		}
		s.Esc(vocab.Exfiltration, High, "`"+c.Text+"` gives the secret $"+vs[0]+" to "+c.Name+", which can send it over the network")
		return
	}
	if d := c.Sc.Doc; d != "" {
		if vs := s.SecretRefs(d); len(vs) > 0 {
			s.Esc(vocab.Exfiltration, High, "`"+c.Text+"` feeds the secret $"+vs[0]+" to "+c.Name+", which can send it over the network")
			return
		}
		if l, what := secret.InText(d); l > secret.None {
			s.Deny(vocab.Exfiltration, "`"+c.Text+"` feeds "+what+" to "+c.Name+", which can send it over the network")
			return
		}
		if strings.Contains(d, "$(") || strings.Contains(d, "`") {
			s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` feeds command output to "+c.Name+", which can send it over the network")
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
