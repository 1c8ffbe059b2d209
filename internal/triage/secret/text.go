package secret

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/triage/pattern"
)

// Secrets in text: what a message, a gist or an upload would leak.

var (
	criticalSecret = pattern.Lazy(`-----BEGIN ([A-Z]+ )?PRIVATE KEY-----|` +
		`(?i:aws_secret_access_key)\s*[=:]\s*["']?[A-Za-z0-9/+]{30,}|` +
		`\b[sr]k_live_[0-9A-Za-z]{4,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|` +
		`\bxox[abposr]-[0-9A-Za-z-]{10,}|\bglpat-[0-9A-Za-z_-]{20,}|\bnpm_[A-Za-z0-9]{36}\b|` +
		`\bAKIA[0-9A-Z]{16}\b[\s\S]{0,80}\b[A-Za-z0-9/+]{40}\b|\bsk-(proj-)?[A-Za-z0-9_-]{32,}|\bsk-ant-[A-Za-z0-9_-]{20,}`)
	sensitiveSecret = pattern.Lazy(`\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|` +
		`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.|` +
		`\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s/]+|` +
		`(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_KEY)[A-Z0-9_]*\s*[=:]\s*["']?[^\s"'$<{]{6,}`)
)

// InText returns the level of the secrets text holds, and what they
// are.
func InText(text string) (int, string) {
	if text == "" {
		return None, ""
	}
	if m := criticalSecret.FindString(text); m != "" {
		return Critical, "a secret (" + redact(m) + ")"
	}
	if m := sensitiveSecret.FindString(text); m != "" {
		return Sensitive, "what looks like a credential (" + redact(m) + ")"
	}
	return None, ""
}

// redact keeps the start of a secret, for messages.
func redact(s string) string {
	s = strings.Split(s, "\n")[0]
	if len(s) > 12 {
		return s[:8] + "…"
	}
	return s
}

// DecodeBase64 decodes standard or URL-safe base64, padded or not.
func DecodeBase64(s string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// LooksLikeText reports whether s is mostly printable text.
func LooksLikeText(s string) bool {
	if !utf8.ValidString(s) || s == "" {
		return false
	}
	printable := 0
	for _, r := range s {
		if r >= 0x20 && r < 0x7f || r == '\n' || r == '\t' {
			printable++
		}
	}
	return printable*10 >= utf8.RuneCountInString(s)*9
}

// Well-known packages: installing them by name is routine. A name within
// one or two typos of one of them is suspect.

// Desktop credential stores: Electron and Chromium-based apps (Slack,
// Discord, Teams, Signal, VS Code, …) keep their sessions in the same
// stores as a browser, and password managers keep their vaults in their
// own folders.

// appStores are the parts of a lower-cased path that name where a
// Chromium-based app keeps sessions, cookies and tokens.
var appStores = []string{"/local storage", "/session storage", "/indexeddb", "/leveldb", "/cookies", "/network/cookies",
	"/login data", "/web data", "/state.vscdb", "/globalstorage/", "/tdata", "/sql/db.sqlite", "/databases/"}

// appFolders are the parts of a lower-cased path under which desktop
// apps keep their data.
var appFolders = []string{"/.config/", "/library/application support/", "/appdata/roaming/", "/appdata/local/",
	"/.var/app/", "/snap/", "/library/containers/", "/library/group containers/", "/.local/share/"}

// vaultFolders name the folders of password managers and secure
// messengers, whose whole data is secret.
var vaultFolders = []string{"1password", "bitwarden", "keepassxc", "lastpass", "dashlane", "enpass", "protonpass",
	"/signal/", "telegramdesktop", "/keybase/"}

// desktopStore returns what a lower-cased path holds when it is a desktop
// app's credential store or a password manager's vault ("" otherwise).
func desktopStore(l string) string {
	if strings.HasSuffix(l, ".kdbx") || strings.HasSuffix(l, ".kdb") || strings.HasSuffix(l, ".1pif") || strings.HasSuffix(l, ".opvault") {
		return "a password database"
	}
	if m := mailOrChatStore(l); m != "" {
		return m
	}
	in := false
	for _, f := range appFolders {
		if strings.Contains(l, f) || strings.HasPrefix(l, "~") && strings.HasPrefix(l[1:], f) || strings.HasPrefix(l, f[1:]) {
			in = true
			break
		}
	}
	if !in {
		return ""
	}
	for _, v := range vaultFolders {
		if strings.Contains(l, v) || strings.HasSuffix(v, "/") && strings.HasSuffix(l, v[:len(v)-1]) {
			return "a password manager's or messenger's vault"
		}
	}
	for _, s := range appStores {
		if i := strings.Index(l, s); i >= 0 {
			if rest := l[i+len(s):]; rest == "" || rest[0] == '/' || rest[0] == '-' || s[len(s)-1] == '/' || rest[0] == '.' {
				return "an app's stored sessions and tokens (" + strings.Trim(s, "/") + ")"
			}
		}
	}
	return ""
}

// mailOrChatStore names the store of a mail, chat or file-transfer client
// that the lower-cased path l is or lies in (mailboxes, message
// databases, saved server passwords), "" when it is none.
func mailOrChatStore(l string) string {
	switch {
	case strings.HasSuffix(l, ".emlx") || strings.HasSuffix(l, ".ost") || strings.HasSuffix(l, ".pst") ||
		strings.Contains(l, "library/mail/") || strings.HasSuffix(l, "library/mail") ||
		strings.Contains(l, "/microsoft/outlook") || strings.Contains(l, ".local/share/evolution/mail"):
		return "a mailbox"
	case strings.Contains(l, "chatstorage.sqlite") || strings.Contains(l, "group.net.whatsapp") ||
		strings.Contains(l, "/.purple/accounts.xml") || strings.Contains(l, "/.purple/logs"):
		return "a messenger's messages or accounts"
	case strings.Contains(l, "filezilla/sitemanager.xml") || strings.Contains(l, "filezilla/recentservers.xml") ||
		strings.Contains(l, "winscp.ini") || strings.Contains(l, "remmina/") && strings.HasSuffix(l, ".remmina"):
		return "a file-transfer or remote-desktop client's saved passwords"
	}
	return ""
}
