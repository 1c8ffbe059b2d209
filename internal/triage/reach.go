package triage

import (
	"net"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/shell"
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
		h, port, scheme, ok := destOf(w, net)
		if ok && (h == "0.0.0.0" || h == "::") && !expose {
			expose = true
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` listens on every network interface")
		}
		if !ok || localHost(h) {
			continue
		}
		if metadataHost(h) {
			meta = h
		}
		if remote == "" {
			remote = h
		}
		if ip := net4or6(h); ip != nil && !ip.IsLoopback() && !ip.IsUnspecified() {
			if scheme || port != "" || !s.v.k.has(c.name, factProbes) {
				if rawIP == "" {
					rawIP = h
					if port != "" {
						rawIP += ":" + port
					}
				}
			}
		} else if port != "" && !commonPort(port) && (net || scheme) {
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
			if h, _, _, ok := destOf(strings.Trim(val, `'"`), true); ok && !localHost(h) {
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
		if s.v.k.has(c.name, factLooksUp) && inHostName(raw, vs[0]) {
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

// destOf reads a network destination from a word: a URL, user@host,
// an IP address with or without a port, and, for network programs,
// host:port. It reports the host, the port ("" when none is given) and
// whether the word had a scheme.
func destOf(w string, netProg bool) (host, port string, scheme, ok bool) {
	if i := strings.Index(w, "://"); i > 0 {
		rest := w[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if k := strings.LastIndexByte(rest, '@'); k >= 0 {
			rest = rest[k+1:]
		}
		h, p := splitPort(rest)
		return h, p, true, h != "" && !strings.ContainsAny(h, "$`")
	}
	if strings.HasPrefix(w, "-") {
		// --host=1.2.3.4, -connect=…: the value after '='.
		_, v, found := strings.Cut(w, "=")
		if !found {
			return "", "", false, false
		}
		w = v
	}
	if k := strings.LastIndexByte(w, '@'); k >= 0 {
		w = w[k+1:]
	}
	if j := strings.IndexByte(w, '/'); j >= 0 {
		w = w[:j]
	}
	if strings.Count(w, ":") >= 2 && strings.IndexByte(w, '[') < 0 && net4or6(w) == nil {
		// host:port:address (curl --resolve), address:port:port
		// (published ports): the IPv4 address among the parts.
		for _, part := range strings.Split(w, ":") {
			if ip := net4or6(part); ip != nil && ip.To4() != nil {
				return part, "", false, true
			}
		}
		return "", "", false, false
	}
	h, p := splitPort(w)
	if net4or6(h) != nil {
		return h, p, false, true
	}
	if netProg && p != "" && strings.IndexByte(h, '.') > 0 && hostLike(h) {
		return h, p, false, true
	}
	if netProg && p == "" && strings.IndexByte(h, '.') > 0 && hostLike(h) {
		return h, "", false, true
	}
	return "", "", false, false
}

// metadataHost reports whether h is a cloud instance metadata service.
func metadataHost(h string) bool {
	switch strings.ToLower(strings.Trim(h, "[]")) {
	case "169.254.169.254", "metadata.google.internal", "metadata.goog", "metadata", "100.100.100.200", "fd00:ec2::254", "169.254.170.2", "metadata.azure.com":
		return true
	}
	return false
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

// splitPort splits host:port when port is a number.
func splitPort(hp string) (string, string) {
	if strings.HasPrefix(hp, "[") {
		if h, p, err := net.SplitHostPort(hp); err == nil {
			return h, p
		}
		return strings.Trim(hp, "[]"), ""
	}
	i := strings.LastIndexByte(hp, ':')
	if i < 0 || strings.Count(hp, ":") > 1 {
		return hp, ""
	}
	p := hp[i+1:]
	if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
		if p == "" {
			return hp[:i], ""
		}
		return hp, ""
	}
	return hp[:i], p
}

// hostLike reports whether h looks like a DNS name with a real top-level
// label (not a file name such as main.go or notes.txt).
func hostLike(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	tld := h[strings.LastIndexByte(h, '.')+1:]
	if len(tld) < 2 {
		return false
	}
	switch tld {
	case "go", "py", "js", "ts", "sh", "rb", "rs", "md", "txt", "json", "yaml", "yml", "toml", "conf", "cfg", "ini",
		"log", "csv", "tsv", "xml", "html", "htm", "css", "c", "h", "cc", "cpp", "hpp", "java", "kt", "class", "jar",
		"zip", "gz", "tgz", "tar", "bz2", "xz", "pdf", "png", "jpg", "jpeg", "gif", "svg", "lock", "sum", "mod",
		"tf", "tfvars", "pem", "key", "crt", "pub", "db", "sqlite", "env", "bak", "old", "tmp", "out", "so", "o", "a",
		"d", "pid", "sock", "service", "timer", "list", "deb", "rpm", "iso", "img", "bin", "exe", "dll", "pyc",
		"whl", "gem", "vue", "jsx", "tsx", "php", "pl", "lua", "swift", "m", "r", "sql", "proto", "ipynb", "dat":
		return false
	}
	for i := 0; i < len(tld); i++ {
		if tld[i] >= '0' && tld[i] <= '9' {
			return false
		}
	}
	return true
}

// net4or6 parses an IP address literal.
func net4or6(h string) net.IP {
	if h == "" || !(h[0] >= '0' && h[0] <= '9' || strings.IndexByte(h, ':') >= 0) {
		return nil
	}
	return net.ParseIP(strings.Trim(h, "[]"))
}

// commonPort reports whether a port is one routine traffic uses to remote
// hosts.
func commonPort(p string) bool {
	switch p {
	case "80", "443", "22", "21", "53", "8080", "8443", "9418", "5432", "3306", "6379", "27017":
		return true
	}
	return false
}

// inHostName reports whether the variable name appears inside a host name
// in the word: followed by a dot and a label ($TOKEN.example.com).
func inHostName(raw, name string) bool {
	for _, ref := range []string{"$" + name, "${" + name + "}"} {
		i := strings.Index(raw, ref)
		for i >= 0 {
			rest := raw[i+len(ref):]
			if ref[1] != '{' && rest != "" && secret.IsNameByte(rest[0], true) {
				// $TOKENX: another name.
			} else if len(rest) > 1 && rest[0] == '.' && secret.IsNameByte(rest[1], true) {
				return true
			}
			j := strings.Index(rest, ref)
			if j < 0 {
				break
			}
			i += len(ref) + j
		}
	}
	return false
}
