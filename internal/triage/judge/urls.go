package judge

import (
	"net/url"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
)

// RiskLevel returns r as a number; medium when r is not a risk level.
func RiskLevel(r action.Risk) int {
	if l := r.Level(); l >= 0 {
		return l
	}
	return Medium
}

// McpURL judges a URL an MCP tool visits.
func (s *Script) McpURL(c *Command, u string) {
	if s.browserPage(c, u) {
		return
	}
	if network.LocalURL(u) {
		return
	}
	if h, port, _, ok := network.Dest(u, true); ok {
		switch ip := network.IP(h); {
		case network.MetadataHost(h):
			s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` reaches the cloud metadata service ("+h+"), which hands out the machine's credentials")
		case ip != nil && !ip.IsLoopback():
			s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` reaches the raw IP address "+h)
		case port != "" && !network.CommonPort(port):
			s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` reaches "+h+":"+port+", an unusual port")
		}
	}
	if l, w := network.URLPayload(u); l > secret.None {
		s.Deny(vocab.Exfiltration, "`"+c.Text+"` carries "+w+" in a URL")
	} else if w != "" {
		s.Esc(vocab.Exfiltration, Medium, "`"+c.Text+"` carries encoded data in a URL")
	}
}

// BrowserScheme returns the scheme of a URL that opens one of the
// browser's own pages, an extension's page or a local file (chrome:,
// edge:, brave:, opera:, vivaldi:, about:, chrome-extension:,
// moz-extension:, file:), "" for other URLs.
func BrowserScheme(u string) string {
	i := strings.IndexByte(u, ':')
	if i <= 0 || i > 24 {
		return ""
	}
	switch sch := strings.ToLower(u[:i]); sch {
	case "chrome", "edge", "brave", "opera", "vivaldi", "arc", "about", "chrome-extension", "moz-extension",
		"extension", "safari-web-extension", "ms-browser-extension", "file":
		return sch
	}
	return ""
}

// browserPage judges a URL that opens a browser's own page, an
// extension's page or a local file, and reports whether u is one: pages
// whose words say they show saved passwords, cards, addresses or cookies
// (the list browser_credential_pages), every extension's page (a password
// manager's, by the list password_manager_extensions, shows its vault), and
// files a browser profile keeps logins and cookies in are passed on as
// credential probing; other local files are judged as reads.
func (s *Script) browserPage(c *Command, u string) bool {
	sch := BrowserScheme(u)
	if sch == "" {
		return false
	}
	rest := strings.TrimLeft(u[len(sch)+1:], "/")
	switch sch {
	case "file":
		p := "/" + rest
		if d, err := url.PathUnescape(p); err == nil {
			p = d
		}
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		pl := s.Where(p, s.Cwd)
		if level, what := s.Secret(pl); level > secret.None {
			s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` opens "+what+" in a browser")
			return true
		}
		s.Read(c, p, true)
	case "chrome-extension", "moz-extension", "extension", "safari-web-extension", "ms-browser-extension":
		id := rest
		if i := strings.IndexAny(id, "/?#"); i >= 0 {
			id = id[:i]
		}
		if s.V.K.List("password_manager_extensions").Has(strings.ToLower(id)) {
			s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` opens a password manager's extension, which shows its vault")
			return true
		}
		s.Esc(vocab.CredentialProbing, Medium, "`"+c.Text+"` opens a browser extension's page, which may show what the extension stores")
	default:
		if w := s.V.K.Names("browser_credential_pages", argument.Words(rest)); w != "" {
			s.Esc(vocab.CredentialProbing, High, "`"+c.Text+"` opens the browser's own page of saved "+w+", which shows credentials or personal data")
		}
	}
	return true
}

// OrName returns s, or def when s is empty.
func OrName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
