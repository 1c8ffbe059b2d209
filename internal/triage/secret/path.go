// Package secret knows what holds a secret: the level of the credential a
// path names (a private key, cloud credentials, a browser's cookies, a
// password manager's vault, a dotenv file…), the secrets written in a text
// (key material, tokens, passwords in assignments or URLs), and the names
// of environment variables that hold one. The first pass asks it whenever
// a command reads, copies, prints or sends something.
package secret

import (
	"iter"
	"path"
	"strings"
)

// Secret levels, from none to critical: what a path or a text holds.
const (
	None      = iota
	Sensitive // secrets that routine work sometimes reads (.env, .npmrc, kube config)
	Critical  // private keys, cloud credentials, password hashes
)

// Path classifies a path (absolute, "~/…" or relative) seen from a
// user other than root.
func Path(p string) (int, string) { return PathOf(p, false) }

// PathOf classifies a path (absolute, "~/…" or relative); own says
// that /root is not another user's files there: it is the person's home
// (warden runs as root), or the path lies in the workspace or a writable
// root.
func PathOf(p string, own bool) (int, string) {
	l := strings.ToLower(p)
	base := path.Base(l)
	dir := path.Dir(l)
	has := func(frag string) bool { return strings.Contains(l, frag) }
	switch {
	case IsPrivateKeyName(base) && !strings.HasSuffix(base, ".pub"):
		return Critical, "an SSH private key"
	case has("/.ssh/") && strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub"):
		return Critical, "an SSH private key"
	case strings.HasSuffix(base, ".ppk"):
		return Critical, "a private key"
	case strings.HasPrefix(l, "/etc/ssh/ssh_host_") && strings.HasSuffix(base, "_key"):
		return Critical, "an SSH host private key"
	case has(".aws/credentials") || has(".aws/sso/cache") || has(".aws/cli/cache"):
		return Critical, "AWS credentials"
	case has(".config/gcloud/") && (strings.Contains(base, "credential") || strings.Contains(base, "token")):
		return Critical, "Google Cloud credentials"
	case has(".azure/") && (strings.Contains(base, "token") || strings.Contains(base, "msal")):
		return Critical, "Azure tokens"
	case base == ".git-credentials" || base == ".vault-token" || base == ".netrc" || base == "_netrc" || base == ".pgpass":
		return Critical, "stored credentials (" + base + ")"
	case has(".config/gh/hosts.yml") || has(".config/hub"):
		return Critical, "GitHub CLI tokens"
	case has(".gem/credentials") || has(".cargo/credentials") || has(".terraform.d/credentials"):
		return Critical, "registry tokens"
	case has(".password-store"):
		return Critical, "the password store"
	case has(".gnupg/private-keys") || base == "secring.gpg":
		return Critical, "GnuPG private keys"
	case l == "/etc/shadow" || l == "/etc/gshadow" || l == "/etc/shadow-" || l == "/etc/gshadow-" ||
		l == "/etc/master.passwd" || l == "/etc/security/opasswd":
		return Critical, "password hashes"
	case strings.HasPrefix(l, "/proc/") && base == "environ":
		return Critical, "a process environment"
	case l == "/proc/kcore" || strings.HasPrefix(l, "/proc/") && base == "mem":
		return Critical, "process or kernel memory"
	case strings.HasPrefix(l, "/run/secrets") || strings.HasPrefix(l, "/var/run/secrets"):
		return Critical, "mounted secrets"
	case IsBrowserStore(l, base):
		return Critical, "browser cookies or saved passwords"
	case cryptoWallet(l, base):
		return Critical, "a cryptocurrency wallet or its keys"
	case strings.HasSuffix(base, ".ovpn") || has("/etc/openvpn/") || has("/etc/wireguard/") || strings.HasSuffix(base, ".nmconnection"):
		return Critical, "VPN keys"
	case has("appdata/local/microsoft/credentials") || has("appdata/roaming/microsoft/credentials") ||
		has("appdata/roaming/microsoft/protect") || has("appdata/local/microsoft/vault"):
		return Critical, "Windows saved credentials (DPAPI)"
	case desktopStore(l) != "":
		return Critical, desktopStore(l)
	case has("/keychains/") || strings.HasSuffix(l, "/keychains") || strings.HasSuffix(base, ".keychain") || strings.HasSuffix(base, ".keychain-db"):
		return Critical, "a keychain"
	case has(".local/share/keyrings") || has(".gnome2/keyrings") || has("/kwalletd") || has("apps/kwallet") || strings.HasSuffix(base, ".kwl"):
		return Critical, "a desktop keyring (saved passwords)"
	case browserProfile(l):
		return Sensitive, "a browser profile (cookies, saved passwords, history)"
	case has("/etc/ssl/private"):
		return Critical, "TLS private keys"
	case has(".aws/") || strings.HasSuffix(l, ".aws"):
		return Sensitive, "AWS configuration"
	case has(".config/gcloud") || has(".azure"):
		return Sensitive, "cloud credentials configuration"
	case has(".kube/config") || strings.HasSuffix(dir, ".kube"):
		return Sensitive, "Kubernetes credentials"
	case has(".docker/config.json"):
		return Sensitive, "Docker registry credentials"
	case base == ".npmrc" || base == ".pypirc" || base == ".yarnrc.yml" || base == ".s3cfg" || base == ".boto" || base == ".my.cnf":
		return Sensitive, "tool credentials (" + base + ")"
	case has(".gnupg"):
		return Sensitive, "GnuPG keys"
	case strings.HasSuffix(l, "/.ssh") || l == ".ssh" || l == "~/.ssh":
		return Sensitive, "the SSH key directory"
	case IsEnvFile(base):
		return Sensitive, "an environment file with secrets (" + base + ")"
	case IsHistoryFile(base):
		return Sensitive, "shell history"
	case l == "/etc/passwd" || l == "/etc/group" || l == "/etc/sudoers" || strings.HasPrefix(l, "/etc/sudoers.d"):
		return Sensitive, "the system's accounts and privileges (" + l + ")"
	case strings.HasPrefix(l, "/etc/ssh") || strings.HasPrefix(l, "/etc/security") || strings.HasPrefix(l, "/etc/pam.d") ||
		strings.HasPrefix(l, "/var/lib/pam"):
		return Sensitive, "authentication configuration (" + l + ")"
	case (l == "/root" || strings.HasPrefix(l, "/root/")) && !own:
		return Sensitive, "the root user's files"
	case isAuthLog(l):
		return Sensitive, "login records"
	case strings.HasPrefix(l, "/proc/") && procPID(l) || l == "/proc/key-users" || l == "/proc/keys":
		return Sensitive, "another process's data"
	case strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".p12") ||
		strings.HasSuffix(base, ".pfx") || strings.HasSuffix(base, ".jks") || strings.HasSuffix(base, ".keystore"):
		return Sensitive, "key material (" + base + ")"
	case strings.HasPrefix(base, "terraform.tfstate") || strings.HasSuffix(base, ".tfvars") ||
		base == "credentials.json" || strings.HasPrefix(base, "service-account") || base == "secrets.yaml" ||
		base == "secrets.yml" || base == "secrets.json":
		return Sensitive, "a file that holds secrets (" + base + ")"
	}
	return None, ""
}

// IsPrivateKeyName reports whether a lower-cased base name is that of a
// private key file.
func IsPrivateKeyName(base string) bool {
	switch strings.TrimSuffix(base, ".old") {
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity":
		return true
	}
	return false
}

// IsEnvFile reports whether base names a dotenv file with real values (not
// an example or template).
func IsEnvFile(base string) bool {
	if base != ".env" && !strings.HasPrefix(base, ".env.") && !strings.HasSuffix(base, ".env") {
		return false
	}
	for _, w := range []string{"example", "sample", "template", "dist", "defaults", "schema", "tmpl"} {
		if strings.Contains(base, w) {
			return false
		}
	}
	return true
}

// IsHistoryFile reports whether a lower-cased base name is that of a
// shell or REPL history file.
func IsHistoryFile(base string) bool {
	return strings.HasSuffix(base, "_history") || base == ".history" || base == ".zhistory" || base == ".sh_history"
}

// cryptoWallet reports whether the lower-cased path l (base name base) is
// a cryptocurrency wallet or keystore.
func cryptoWallet(l, base string) bool {
	return base == "wallet.dat" || strings.Contains(l, "/.ethereum/keystore") || strings.HasPrefix(base, "utc--") ||
		strings.Contains(l, ".config/solana/") && strings.HasSuffix(base, ".json") || strings.Contains(l, "exodus.wallet") ||
		strings.Contains(l, "/.electrum/wallets") || strings.Contains(l, "/.monero/") || strings.Contains(l, "/.bitcoin/wallets") ||
		strings.HasSuffix(base, ".wallet") || strings.Contains(l, "/metamask/") || strings.Contains(l, "/.litecoin/wallet")
}

// IsBrowserStore reports whether the lower-cased path l (base name base)
// is a browser's cookie, login or session database.
func IsBrowserStore(l, base string) bool {
	switch base {
	case "cookies.sqlite", "key4.db", "key3.db", "signons.sqlite", "login data", "login data for account", "web data", "cert9.db":
		// Names only browsers' (and mail clients') stores use: wherever
		// the profile lives (a Firefox fork's ~/.zen, a portable copy).
		return true
	case "logins.json":
		return strings.Contains(l, "/.") || strings.Contains(l, "profile") || strings.Contains(l, ".default")
	}
	switch base {
	case "cookies":
		return strings.Contains(l, "chrom") || strings.Contains(l, "mozilla") || strings.Contains(l, "firefox") ||
			strings.Contains(l, "brave") || strings.Contains(l, "edge") || strings.Contains(l, "safari") ||
			strings.Contains(l, "opera") || strings.Contains(l, "vivaldi")
	case "cookies.binarycookies":
		return true
	}
	return false
}

// browserProfiles are the folders where browsers and mail clients keep
// their profiles: cookies, saved logins, history, session tokens.
var browserProfiles = []string{".config/google-chrome", ".config/chromium", ".config/bravesoftware", ".config/microsoft-edge",
	".config/vivaldi", ".config/opera", "/.mozilla", "/.librewolf", "/.thunderbird", "/.waterfox", "snap/chromium", "snap/firefox",
	".var/app/org.mozilla.firefox", ".var/app/com.google.chrome", ".var/app/org.chromium.chromium", ".var/app/com.brave.browser",
	"library/application support/google/chrome", "library/application support/chromium",
	"library/application support/bravesoftware", "library/application support/microsoft edge",
	"library/application support/firefox", "library/application support/vivaldi", "library/application support/com.operasoftware",
	"library/safari", "library/cookies", "appdata/local/google/chrome", "appdata/roaming/mozilla", "appdata/local/microsoft/edge"}

// browserProfileHints are words one of which every entry of
// browserProfiles holds (a test keeps them so): a path with none of them
// is no browser profile, and is passed over cheaply.
var browserProfileHints = []string{"chrom", "mozilla", "library/", ".config/", "appdata", "thunderbird", "librewolf", "firefox", "waterfox", ".var/app/"}

// mayNameBrowserProfile reports whether l holds one of browserProfileHints.
func mayNameBrowserProfile(l string) bool {
	for _, h := range browserProfileHints {
		if strings.Contains(l, h) {
			return true
		}
	}
	return false
}

// browserProfile reports whether the lower-cased path l is a browser's
// profile folder or inside one.
func browserProfile(l string) bool {
	if !mayNameBrowserProfile(l) {
		return false
	}
	for _, d := range browserProfiles {
		i := strings.Index(l, d)
		if i < 0 {
			continue
		}
		if rest := l[i+len(d):]; rest == "" || rest[0] == '/' || rest[0] == '-' {
			return true
		}
	}
	return false
}

func isAuthLog(l string) bool {
	for _, f := range []string{"/var/log/auth.log", "/var/log/secure", "/var/log/lastlog", "/var/log/wtmp", "/var/log/btmp",
		"/var/log/faillog", "/var/log/audit", "/var/run/utmp", "/run/utmp"} {
		if strings.HasPrefix(l, f) {
			return true
		}
	}
	return false
}

// procPID reports whether a /proc path names a process directory (a
// number, or self).
func procPID(l string) bool {
	rest := strings.TrimPrefix(l, "/proc/")
	first, _, _ := strings.Cut(rest, "/")
	return first == "self" || first != "" && strings.Trim(first, "0123456789") == ""
}

// IsVarName reports whether an environment variable's name says it
// holds a secret.
func IsVarName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "API_KEY", "APIKEY",
		"ACCESS_KEY", "PRIVATE_KEY", "CREDENTIAL", "AUTH", "SESSION", "COOKIE", "_PAT", "_KEY"} {
		if strings.Contains(u, w) {
			return !strings.Contains(u, "SSH_AUTH_SOCK") && !strings.HasSuffix(u, "_KEY_ID") && !strings.HasSuffix(u, "_KEYS")
		}
	}
	return false
}

// Vars returns the secret-looking variables a word's source text
// references ($GITHUB_TOKEN, ${AWS_SECRET_ACCESS_KEY}).
func Vars(text string) []string {
	var out []string
	for name := range VarRefs(text) {
		if IsVarName(name) {
			out = append(out, name)
		}
	}
	return out
}

// VarRefs yields the names of the variables a word's source text
// references ($NAME, ${NAME}), in order.
func VarRefs(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(text); i++ {
			if text[i] != '$' {
				continue
			}
			j := i + 1
			if j < len(text) && text[j] == '{' {
				j++
			}
			k := j
			for k < len(text) && IsNameByte(text[k], k > j) {
				k++
			}
			if k > j && !yield(text[j:k]) {
				return
			}
			i = k - 1
		}
	}
}

// IsNameByte reports whether c may stand in a shell variable's name
// (notFirst: after its first byte).
func IsNameByte(c byte, notFirst bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || notFirst && c >= '0' && c <= '9'
}
