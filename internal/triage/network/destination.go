// Package network reads network destinations out of the words of a
// command or the arguments of a call: the host and port a word names, the
// host of a URL, whether it is the local machine, a raw public address, a
// cloud metadata endpoint or an unusual port, and the data a URL hides in
// its path or query. The first pass's judges of commands and tools ask it
// where data goes.
package network

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/triage/secret"
)

// Dest reads a network destination from a word: a URL, user@host,
// an IP address with or without a port, and, for network programs,
// host:port. It reports the host, the port ("" when none is given) and
// whether the word had a scheme.
func Dest(w string, netProg bool) (host, port string, scheme, ok bool) {
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
	if strings.Count(w, ":") >= 2 && strings.IndexByte(w, '[') < 0 && IP(w) == nil {
		// host:port:address (curl --resolve), address:port:port
		// (published ports): the IPv4 address among the parts.
		for _, part := range strings.Split(w, ":") {
			if ip := IP(part); ip != nil && ip.To4() != nil {
				return part, "", false, true
			}
		}
		return "", "", false, false
	}
	h, p := splitPort(w)
	if IP(h) != nil {
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

// MetadataHost reports whether h is a cloud instance metadata service.
func MetadataHost(h string) bool {
	switch strings.ToLower(strings.Trim(h, "[]")) {
	case "169.254.169.254", "metadata.google.internal", "metadata.goog", "metadata", "100.100.100.200", "fd00:ec2::254", "169.254.170.2", "metadata.azure.com":
		return true
	}
	return false
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

// IP parses an IP address literal.
func IP(h string) net.IP {
	if h == "" || !(h[0] >= '0' && h[0] <= '9' || strings.IndexByte(h, ':') >= 0) {
		return nil
	}
	return net.ParseIP(strings.Trim(h, "[]"))
}

// CommonPort reports whether a port is one routine traffic uses to remote
// hosts.
func CommonPort(p string) bool {
	switch p {
	case "80", "443", "22", "21", "53", "8080", "8443", "9418", "5432", "3306", "6379", "27017":
		return true
	}
	return false
}

// InHostName reports whether the variable name appears inside a host name
// in the word: followed by a dot and a label ($TOKEN.example.com).
func InHostName(raw, name string) bool {
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

// Local reports whether a host is the local machine.
func Local(h string) bool {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "::1" || h == "0.0.0.0" || h == "host.docker.internal":
		return true
	case strings.HasPrefix(h, "127."):
		return net.ParseIP(h) != nil
	}
	return false
}

// URLHost returns the host of a URL word (with or without a scheme), and
// whether the word looks like a URL at all.
func URLHost(w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "-") {
		return "", false
	}
	if strings.HasPrefix(w, "$") {
		return "", true // a URL held in a variable: not known
	}
	u := w
	if !strings.Contains(u, "://") {
		if strings.HasPrefix(u, "/") || strings.HasPrefix(u, ".") || strings.HasPrefix(u, "~") || strings.HasPrefix(u, "@") {
			return "", false
		}
		u = "http://" + u
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "", false
	}
	if strings.Contains(p.Host, "$") {
		return "", true
	}
	return p.Host, true
}

// LocalURL reports whether a URL word reaches the local machine.
func LocalURL(w string) bool {
	h, ok := URLHost(w)
	return ok && h != "" && Local(h)
}

// RawIP reports whether a host is a literal IP address outside
// private ranges (a common sign of throw-away infrastructure).
func RawIP(h string) bool {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && !ip.IsPrivate() && !ip.IsLoopback()
}

// URLPayload looks for data hidden in a URL's query or path: long
// base64 or hex runs. It returns the secret level of what they decode to
// and a description ("" when there is none).
func URLPayload(u string) (int, string) {
	p, err := url.Parse(u)
	if err != nil {
		return secret.None, ""
	}
	parts := []string{p.RawQuery}
	for _, seg := range strings.Split(p.Path, "/") {
		parts = append(parts, seg)
	}
	found := ""
	for _, part := range parts {
		for _, tok := range encodedRun.FindAllString(part, -1) {
			if len(tok) < 40 {
				continue
			}
			if dec, ok := secret.DecodeBase64(tok); ok {
				if l, w := secret.InText(dec); l > secret.None {
					return l, w + " (base64-encoded)"
				}
				if secret.LooksLikeText(dec) {
					found = "encoded text"
				}
			}
		}
	}
	return secret.None, found
}

var encodedRun = pattern.Lazy(`[A-Za-z0-9+/_-]{40,}={0,2}`)
