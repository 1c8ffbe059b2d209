package triage

import (
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Secrets in text: what a message, a gist or an upload would leak.

var (
	criticalSecret = regexp.MustCompile(`-----BEGIN ([A-Z]+ )?PRIVATE KEY-----|` +
		`(?i:aws_secret_access_key)\s*[=:]\s*["']?[A-Za-z0-9/+]{30,}|` +
		`\b[sr]k_live_[0-9A-Za-z]{4,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|` +
		`\bxox[abposr]-[0-9A-Za-z-]{10,}|\bglpat-[0-9A-Za-z_-]{20,}|\bnpm_[A-Za-z0-9]{36}\b|` +
		`\bAKIA[0-9A-Z]{16}\b[\s\S]{0,80}\b[A-Za-z0-9/+]{40}\b|\bsk-(proj-)?[A-Za-z0-9_-]{32,}|\bsk-ant-[A-Za-z0-9_-]{20,}`)
	sensitiveSecret = regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|` +
		`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.|` +
		`\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s/]+|` +
		`(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_KEY)[A-Z0-9_]*\s*[=:]\s*["']?[^\s"'$<{]{6,}`)
)

// secretText returns the level of the secrets text holds, and what they
// are.
func secretText(text string) (int, string) {
	if text == "" {
		return notSecret, ""
	}
	if m := criticalSecret.FindString(text); m != "" {
		return secretCritical, "a secret (" + redact(m) + ")"
	}
	if m := sensitiveSecret.FindString(text); m != "" {
		return secretSensitive, "what looks like a credential (" + redact(m) + ")"
	}
	return notSecret, ""
}

// redact keeps the start of a secret, for messages.
func redact(s string) string {
	s = strings.Split(s, "\n")[0]
	if len(s) > 12 {
		return s[:8] + "…"
	}
	return s
}

// decodeBase64 decodes standard or URL-safe base64, padded or not.
func decodeBase64(s string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// looksLikeText reports whether s is mostly printable text.
func looksLikeText(s string) bool {
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

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
