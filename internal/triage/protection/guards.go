// Package protection knows what text removes a protection: configuration
// (Terraform, CloudFormation, Kubernetes, cloud policies, server and
// service configuration, in files, patches, edits or the expressions of
// configuration editors) that turns a protective setting off, drops it or
// weakens it, files of security policy whose meaning the first pass does
// not judge, and the words that make a tool's call more than routine
// (identity, payment, health or personal records, credentials, browser
// scripts that read cookies or storage). The first pass asks it about
// every edit, every command that writes configuration and every tool
// call, with the word lists of its programs file (Lists).
package protection

import (
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/pattern"
	"github.com/wardenhq/warden/internal/wordset"
)

// Lists are the named word lists of what the first pass knows about
// programs (programs.yaml's lists:), which the judgments of this package
// read.
type Lists interface {
	// List returns the words of the named list, as a set.
	List(name string) *wordset.Set
	// Words returns the words of the named list in the order written.
	Words(name string) []string
	// Names returns the entry of the named list that the words ws match,
	// "" for none.
	Names(name string, ws []string) string
	// MayName reports whether Names may match ws for one of the lists
	// names: false when it matches for none.
	MayName(names []string, ws []string) bool
}

// Guards that do not depend on the program or tool: configuration text
// that removes a protection from infrastructure, tools whose names say
// they touch identity, payment, health or personal records, and browser
// scripts that read cookies or storage.

// protectionOff matches infrastructure settings (Terraform, CloudFormation,
// Kubernetes, cloud policies) that remove a protection: deletion and
// termination protection off, destroy allowed, final snapshots skipped,
// encryption off, public access, ingress from anywhere.
var protectionOff = pattern.Lazy(`(?i)\b(deletion_?protection(_?enabled)?|enable_deletion_protection|prevent_destroy|` +
	`(enable_|disable_api_)?termination_?protection|storage_encrypted|encrypted|encryption(_enabled)?|enable_key_rotation|` +
	`block_public_acls|block_public_policy|ignore_public_acls|restrict_public_buckets|blockpublic\w*|mfa_delete|` +
	`versioning(_enabled)?|require_ssl|ssl_enforcement_enabled|https_only|enable_https_traffic_only|` +
	`uniform_bucket_level_access|public_access_prevention)["']?\s*[:=]\s*["']?(false|disabled?|off|no|inherited|suspended)\b|` +
	`\b(skip_final_snapshot|publicly_accessible|force_destroy|map_public_ip_on_launch|allow_blob_public_access|` +
	`disable_api_termination_protection|insecure)["']?\s*[:=]\s*["']?true\b|` +
	`\bacl["']?\s*[:=]\s*["']?public-read|PublicRead(Write)?\b|` +
	`\b0\.0\.0\.0/0\b|::/0|\ball(Authenticated)?Users\b|` +
	`"Principal"\s*:\s*("\*"|\{\s*"AWS"\s*:\s*"\*")|` +
	`\bbackup_retention_period["']?\s*[:=]\s*0\b|` +
	`\b(privileged|allowPrivilegeEscalation|hostPID|hostIPC|hostNetwork)["']?\s*[:=]\s*true\b|\brunAsNonRoot["']?\s*[:=]\s*false\b|` +
	`"?\bAction"?\s*[:=]\s*"\*"|\b(ingress|egress)["']?\s*:\s*(\[\s*\{\s*\}|\n\s*-\s*\{\s*\})|\bpersist-credentials["']?\s*[:=]\s*["']?true\b|\bauth_basic\s+off\b|\bsatisfy\s+any\b|` +
	`\bactions\s*=\s*\[\s*"\*"\s*\]|\bidentifiers\s*=\s*\[\s*"\*"\s*\]|\bPrincipal:\s*["']\*["']|` +
	`\bsource_address_prefix\s*=\s*"(\*|Internet)"|\bverbs:\s*\[\s*["']\*["']\s*\]|\bcluster-admin\b|` +
	`\brunAsUser:\s*0\b|\b(network_mode|pid):\s*["']?host\b|docker\.sock\b|\bALLOWED_HOSTS\s*=\s*\[\s*["']\*|` +
	`(?m)^\s*(local|host|hostssl|hostnossl)\s+\S+\s+\S+.*\btrust\s*$|\bskip[-_]grant[-_]tables\b|` +
	`\badd:\s*\[?\s*["']?(SYS_ADMIN|NET_ADMIN|SYS_PTRACE|ALL)\b|\bautoindex\s+on\b|` +
	`\bautomountServiceAccountToken["']?\s*:\s*true\b|\bhostPath:\s*\{?\s*\n?\s*path:\s*["']?/["']?\s*(\}|$|\n)|` +
	`\b(image_tag_mutability|imageTagMutability)["']?\s*[:=]\s*["']?MUTABLE\b|` +
	`\b(to_port|toPort|ToPort|port_range_max)["']?\s*[:=]\s*["']?65535\b|["'\s][01]-65535["'\s]|` +
	`\b(actions?|not_actions)["']?\s*[:=]\s*\[[^\]\n]*["'][\w-]+:\*["']|"Action"\s*:\s*(\[[^\]]*)?"[\w-]+:\*"|` +
	`\bresources?["']?\s*[:=]\s*\[\s*["']\*["']\s*\]|"?\bResource"?\s*[:=]\s*"\*"|` +
	`\b(bind|listen|bind_?address|listen_?address|bind_?ip|bindIp|network\.host|http\.host)["']?\s*[:= ]\s*["']?0\.0\.0\.0\b|` +
	`["'\s-]0\.0\.0\.0:\d+:\d+|(?m)^\s*allow\s+all\s*;|` +
	`(?i:\b(PermitRootLogin|PermitEmptyPasswords|PasswordAuthentication)\s+yes\b|\bStrictHostKeyChecking\s+no\b)`)

// RemovesProtection returns the setting in text that removes a
// protection, "" when there is none: one protectionOff names, any
// protection-named key (protectionSetting) given an unprotective value,
// or a protective setting old held that text no longer has (a line a
// patch or a replacement drops). A setting old already had is not a
// change.
func RemovesProtection(k Lists, text, old string) string {
	if extra := commandSettings(text); extra != "" {
		// A configuration editor's expression or arguments, read as the
		// settings they write.
		text += "\n" + extra
	}
	if r := weakProtocols(text, old); r != "" {
		return r
	}
	if r := accessDropped(text, old); r != "" {
		return r
	}
	if protectionHint(text) {
		for _, m := range protectionOff.FindAllString(text, 4) {
			if old == "" || !strings.Contains(old, m) {
				return strings.Join(strings.Fields(m), " ")
			}
		}
	}
	if !mayHoldSetting(text) && !mayHoldSetting(old) {
		return ""
	}
	var now []setting
	if mayHoldSetting(text) {
		now = settings(k, text)
		for _, st := range now {
			if st.off && (old == "" || !strings.Contains(old, st.line)) {
				return st.line
			}
		}
	}
	if old == "" || !mayHoldSetting(old) {
		return ""
	}
	lower := strings.ToLower(Uncommented(text))
	for _, m := range resourceBlock.FindAllStringSubmatch(old, 8) {
		typ := m[1] + m[2]
		if (ProtectiveName(typ) != "" || strings.Contains(typ, "public_access_block") || strings.Contains(typ, "flow_log")) &&
			!strings.Contains(text, typ) {
			return "no " + m[0]
		}
	}
	for _, st := range settings(k, old) {
		if !st.on {
			continue
		}
		if last := st.lastKey(); last != "" && !strings.Contains(lower, last) {
			return "no " + st.line
		}
	}
	// A protective block dropped or commented out
	// (master_authorized_networks_config { … }).
	for _, l := range strings.Split(old, "\n") {
		if m := blockOpen.FindStringSubmatch(l); m != nil && strings.HasSuffix(strings.TrimSpace(l), "{") {
			if key := strings.ToLower(m[1]); securityKey(k, key) && !strings.Contains(lower, key) {
				return "no " + m[1] + " block"
			}
		}
	}
	return ""
}

// commandSettings returns, as configuration text ("key: value" lines and
// INI sections), the settings a configuration editor's command writes:
// the path assignments of yq, jq, tomlq and xq expressions (.a.b = v,
// .a |= v), dasel put's selector and value, crudini --set's section, key
// and value, and the key and value of git config and of `… config set`
// (npm, pnpm, yarn, pip…). A key is the last segment of a path with its
// parent. "" for other text.
func commandSettings(text string) string {
	ws := cmdWords(text, 24)
	if len(ws) < 2 {
		return ""
	}
	prog := ws[0][strings.LastIndexByte(ws[0], '/')+1:]
	var b strings.Builder
	put := func(key, val string) {
		key = strings.Trim(key, ".")
		if key == "" {
			return
		}
		b.WriteString(key)
		b.WriteString(": ")
		b.WriteString(val)
		b.WriteByte('\n')
	}
	switch prog {
	case "yq", "jq", "gojq", "jaq", "tomlq", "xq", "faq":
		for _, a := range ws[1:] {
			if strings.HasPrefix(a, "-") || !strings.Contains(a, "=") {
				continue
			}
			for _, m := range exprAssign.FindAllStringSubmatch(a, 8) {
				put(pathKey(m[1]), strings.ReplaceAll(m[2], "'", `"`))
			}
		}
	case "dasel":
		var pos []string
		sel, val := "", ""
		for i := 1; i < len(ws); i++ {
			a := ws[i]
			switch a {
			case "-v", "--value":
				if i+1 < len(ws) {
					val, i = ws[i+1], i+1
				}
			case "-s", "--selector":
				if i+1 < len(ws) {
					sel, i = ws[i+1], i+1
				}
			case "-f", "--file", "-t", "--type", "-r", "--read", "-w", "--write", "-o", "--out", "-p", "--parser":
				i++
			default:
				if !strings.HasPrefix(a, "-") {
					pos = append(pos, a)
				}
			}
		}
		if len(pos) > 0 && (pos[0] == "put" || pos[0] == "set") {
			pos = pos[1:]
		}
		if len(pos) > 0 {
			switch pos[0] {
			case "string", "int", "bool", "float", "object", "document", "json", "yaml":
				pos = pos[1:]
			}
		}
		if sel == "" && len(pos) > 0 {
			sel, pos = pos[0], pos[1:]
		}
		if val == "" && len(pos) > 0 {
			val = pos[0]
		}
		if sel != "" && val != "" {
			put(pathKey(sel), val)
		}
	case "crudini":
		for i := 1; i+3 < len(ws); i++ {
			if ws[i] == "--set" || ws[i] == "--ini-options=nospace" {
				if ws[i] != "--set" {
					continue
				}
				val := ""
				if i+4 < len(ws) {
					val = ws[i+4]
				}
				b.WriteString("[" + ws[i+2] + "]\n" + ws[i+3] + " = " + val + "\n")
				break
			}
		}
	default:
		// git config KEY VALUE; npm config set KEY VALUE and the like.
		for i := 1; i+2 < len(ws); i++ {
			if ws[i] != "config" {
				continue
			}
			j := i + 1
			if ws[j] == "set" {
				j++
			}
			for j < len(ws) && strings.HasPrefix(ws[j], "-") {
				j++
			}
			if j+1 < len(ws) && !strings.HasPrefix(ws[j+1], "-") {
				k, v := ws[j], ws[j+1]
				if strings.Contains(k, "=") && v == "" {
					k, v, _ = strings.Cut(k, "=")
				}
				put(k, v)
			}
			break
		}
	}
	return b.String()
}

// exprAssign matches a path assignment of a jq-like expression: the path
// (.a.b[0]."c") and the value (a word, a number or a quoted string).
var exprAssign = pattern.Lazy(`((?:\.(?:[A-Za-z_][\w-]*|"[^"]*")|\[[^\]]*\])+)\s*\|?=\s*("[^"]*"|'[^']*'|[\w.\-*]+)`)

// pathKey returns the key of a jq-like path: its last segment with its
// parent's, joined by a dot, without indices and quotes.
func pathKey(p string) string {
	var segs []string
	for _, f := range strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
		f = strings.Trim(f, `"'`)
		if f == "" || strings.Trim(f, "0123456789*") == "" {
			continue
		}
		segs = append(segs, f)
	}
	switch len(segs) {
	case 0:
		return ""
	case 1:
		return segs[0]
	}
	return segs[len(segs)-2] + "." + segs[len(segs)-1]
}

// cmdWords splits the start of a simple command's text into at most max
// words, removing quotes; it stops at an unquoted operator or redirection.
func cmdWords(text string, max int) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(text) && len(out) < max; i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(text) {
				i++
				cur.WriteByte(text[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case c == '|' || c == ';' || c == '&' || c == '>' || c == '<':
			if in {
				out = append(out, cur.String())
			}
			return out
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in && len(out) < max {
		out = append(out, cur.String())
	}
	return out
}

// tlsDirective matches server configuration lines that choose TLS
// protocol versions: nginx ssl_protocols, Apache SSLProtocol, HAProxy
// ssl-min-ver (in ssl-default-*-options), Postfix smtp(d)_tls_protocols,
// and minimum-version settings.
var tlsDirective = pattern.Lazy(`(?im)^[ \t+\-]*(ssl_protocols|sslprotocol|proxy_ssl_protocols|smtpd?_tls(?:_mandatory)?_protocols|` +
	`ssl-default-(?:bind|server)-options|ssl_min_protocol_version|ssl-min-ver|ssl_min_ver|minprotocol|tls_min_version|min_tls_version)\b[ \t:=]*([^;#\n]*)`)

// weakTLS are the protocol versions below TLS 1.2.
var weakTLS = map[string]bool{"sslv2": true, "sslv3": true, "tlsv1": true, "tlsv1.0": true, "tlsv1.1": true, "tls1": true, "tls1.0": true, "tls1.1": true, "ssl3": true, "ssl2": true}

// weakProtocols returns a TLS protocol setting of text that enables a
// version below TLS 1.2 (a listed version, "all" without excluding them,
// Postfix's exclusions that leave one, or a minimum below 1.2), "" when
// there is none; a line old already has is not a change.
func weakProtocols(text, old string) string {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "ssl") && !strings.Contains(lower, "tls") && !strings.Contains(lower, "protocol") {
		return ""
	}
	had := map[string]bool{}
	for _, m := range tlsDirective.FindAllString(old, 8) {
		had[strings.Join(strings.Fields(strings.ToLower(m)), " ")] = true
	}
	for _, m := range tlsDirective.FindAllStringSubmatch(text, 8) {
		if had[strings.Join(strings.Fields(strings.ToLower(m[0])), " ")] {
			continue
		}
		dir := strings.ToLower(m[1])
		toks := strings.FieldsFunc(strings.ToLower(m[2]), func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '"' || r == '\'' })
		weak := false
		switch {
		case strings.Contains(dir, "min"):
			// A minimum: the first version named.
			for _, t := range toks {
				if weakTLS[t] {
					weak = true
				}
				if strings.HasPrefix(t, "tls") || strings.HasPrefix(t, "ssl") {
					break
				}
			}
		case strings.HasPrefix(dir, "ssl-default"):
			for i, t := range toks {
				if t == "ssl-min-ver" && i+1 < len(toks) && weakTLS[toks[i+1]] {
					weak = true
				}
			}
		default:
			excluded := map[string]bool{}
			all, positive, negative := false, 0, 0
			for _, t := range toks {
				switch {
				case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "!"):
					excluded[strings.TrimLeft(t, "-!")] = true
					negative++
				case strings.HasPrefix(t, ">="):
					weak = weak || weakTLS[t[2:]]
					positive++
				default:
					t = strings.TrimPrefix(t, "+")
					positive++
					if t == "all" {
						all = true
					} else if weakTLS[t] {
						weak = true
					}
				}
			}
			if excluded["all"] {
				all = false
			}
			if all || positive == 0 && negative > 0 {
				if !(excluded["sslv3"] && (excluded["tlsv1"] || excluded["tlsv1.0"]) && excluded["tlsv1.1"]) {
					weak = true
				}
			}
		}
		if weak {
			return textcut.Shorten(strings.TrimSpace(m[0]), 80)
		}
	}
	return ""
}

// accessRule matches server configuration lines that restrict access:
// nginx deny all, auth_basic, auth_request and satisfy all, Apache Require
// (all denied, valid-user, user, group, ip, host), Deny from all and
// AuthType.
var accessRule = pattern.Lazy(`(?im)^[ \t]*(deny\s+all\s*;|require\s+all\s+denied|require\s+(?:valid-user|user|group|ip|host|ldap-\w+)\b[^\n]*|` +
	`deny\s+from\s+all|auth_basic\s+"[^"\n]*"|auth_basic\s+'[^'\n]*'|auth_basic_user_file\s+\S+|auth_request\s+\S+|authtype\s+\w+|satisfy\s+all)`)

// accessDropped returns an access rule that old (the text replaced) has
// and text (what replaces it) no longer has, "" for none.
func accessDropped(text, old string) string {
	if old == "" {
		return ""
	}
	lo := strings.ToLower(old)
	if !strings.Contains(lo, "deny") && !strings.Contains(lo, "require") && !strings.Contains(lo, "auth") && !strings.Contains(lo, "satisfy") {
		return ""
	}
	now := " " + strings.Join(strings.Fields(strings.ToLower(Uncommented(text))), " ") + " "
	for _, m := range accessRule.FindAllStringSubmatch(old, 8) {
		rule := strings.Join(strings.Fields(strings.ToLower(m[1])), " ")
		if !strings.Contains(now, rule) {
			return "no " + textcut.Shorten(strings.TrimSpace(m[1]), 60)
		}
	}
	return ""
}

// Uncommented returns text without its comment lines (#, //, --, ;), so a
// setting commented out counts as removed.
func Uncommented(text string) string {
	if !strings.Contains(text, "#") && !strings.Contains(text, "//") && !strings.Contains(text, "--") && !strings.Contains(text, ";") {
		return text
	}
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimLeft(l, " \t+-")
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, ";") || strings.HasPrefix(strings.TrimLeft(l, " \t"), "--") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// resourceBlock matches the start of a Terraform resource block.
var resourceBlock = pattern.Lazy(`resource\s+"([A-Za-z0-9_]+)"|Type:\s*["']?AWS::(\w+::\w+)`)

// mayHoldSetting is a cheap test before settings: text assigns something.
func mayHoldSetting(text string) bool {
	return strings.ContainsAny(text, ":=;{") || strings.Contains(text, "requirepass") || strings.Contains(text, "protected-mode")
}

// setting is one assignment of a protection-named key in configuration
// text.
type setting struct {
	key  string // the key with its parents, lower case, words joined by "."
	line string // the assignment as written, shortened
	on   bool   // the value keeps the protection
	off  bool   // the value removes it
	// unsure: the key names a protection, but its value is neither
	// recognised as keeping nor as removing it.
	unsure bool
}

// lastKey is the last word of the setting's own key.
func (st setting) lastKey() string {
	k := st.key
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		k = k[i+1:]
	}
	return k
}

// assignment matches KEY = VALUE, KEY: VALUE, "KEY": VALUE and
// KEY => VALUE; the key may hold dots (auth.enabled=false, a yq path).
// spacedSetting matches a line KEY VALUE (redis, sshd and nginx
// configuration), block a line that opens a block or mapping KEY.
var (
	assignment    = pattern.Lazy(`(?:^|[\s{,(\[.'"/;|\-])([A-Za-z][\w.\-]*)["']?\s*(?:[:=]|=>)\s*["']?([\w.\-*]*)`)
	spacedSetting = pattern.Lazy(`^[ \t]*([A-Za-z][\w\-]*)[ \t]+["']?([\w.\-]+)["']?[ \t]*;?[ \t]*(?:#.*)?$`)
	blockOpen     = pattern.Lazy(`^[ \t-]*["']?([A-Za-z][\w.\-]*)["']?(?:[ \t]+"[^"]*")*[ \t]*(?:[:=][ \t]*)?\{?[ \t]*$`)
)

// settings returns the protection-named assignments of text (at most a
// few dozen), each with its parents' keys when the key alone says nothing
// (auth:\n  enabled: false, versioning { enabled = false }).
func settings(k Lists, text string) []setting {
	var out []setting
	type parent struct {
		indent int
		key    string
	}
	var parents []parent
	section, inLine := "", ""
	add := func(key, sep, val string) bool {
		full := key
		if genericKey(strings.ToLower(key)) {
			switch {
			case inLine != "":
				full = inLine + "/" + key
			case len(parents) > 0:
				full = parents[len(parents)-1].key + "/" + key
			case section != "":
				full = section + "/" + key
			}
		}
		on, off := judgeSetting(k, full, val)
		unsure := !on && !off && securityKey(k, full)
		if on || off || unsure {
			out = append(out, setting{key: strings.ToLower(full), line: textcut.Shorten(strings.TrimSpace(key+sep+val), 80), on: on, off: off, unsure: unsure})
		}
		return len(out) < 32
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t-")
		indent := len(line) - len(trimmed)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") {
			continue
		}
		if trimmed[0] == '[' && strings.HasSuffix(strings.TrimSpace(trimmed), "]") && !strings.ContainsAny(trimmed, `"',`) {
			// An INI or TOML section names what follows.
			section, parents = strings.Trim(strings.TrimSpace(trimmed), "[]"), parents[:0]
			continue
		}
		inLine = ""
		closing := strings.HasPrefix(trimmed, "}")
		for len(parents) > 0 && parents[len(parents)-1].indent >= indent && !closing {
			parents = parents[:len(parents)-1]
		}
		if closing && len(parents) > 0 {
			parents = parents[:len(parents)-1]
		}
		if m := blockOpen.FindStringSubmatch(line); m != nil {
			key := m[1]
			if r := resourceBlock.FindStringSubmatch(line); r != nil && r[1] != "" {
				key = r[1] // the resource's type says what it is
			}
			if len(parents) < 8 {
				parents = append(parents, parent{indent, key})
			}
			continue
		}
		if m := spacedSetting.FindStringSubmatch(line); m != nil {
			if !add(m[1], " ", m[2]) {
				return out
			}
			continue
		}
		for _, m := range assignment.FindAllStringSubmatchIndex(line, 8) {
			key, val := line[m[2]:m[3]], line[m[4]:m[5]]
			if val == "" {
				if rest := strings.TrimLeft(line[m[5]:], " \t"); strings.HasPrefix(rest, "{") {
					inLine = strings.TrimPrefix(key, ".")
				}
				continue
			}
			if !add(strings.TrimPrefix(key, "."), line[m[3]:m[4]], val) {
				return out
			}
		}
	}
	return out
}

// genericKey reports whether a key says nothing without its parent
// (enabled, status, mode).
func genericKey(k string) bool {
	k = strings.TrimPrefix(k, ".")
	switch k {
	case "default_action", "defaultaction", "type", "create", "count", "days", "noncurrent_days":
		return true
	case "enabled", "enable", "status", "state", "mode", "value", "required", "enforced", "enforce", "active", "on", "disabled", "disable":
		return true
	}
	return false
}

// The words of configuration keys are lists of the programs file:
// protective_key_parts and protective_key_words name a protection (true
// keeps it, false removes it), opening_key_words the opposite (true removes
// a protection: public access, skipped verification), negating_key_words
// and blocking_key_words turn a key's sense, unprotective_key_words name
// debugging or output, and encryption_key_parts what encrypts.

// removalKey reports whether a key says what happens to a resource's
// data when it is removed (CloudFormation's DeletionPolicy, the CDK's
// removalPolicy).
func removalKey(key string) bool {
	return strings.Contains(key, "removalpolicy") || strings.Contains(key, "removal_policy") ||
		strings.Contains(key, "deletionpolicy") || strings.Contains(key, "deletion_policy") ||
		strings.Contains(key, "updatereplacepolicy")
}

// notProtectiveKey reports whether a key's words name debugging, output or
// tests rather than a protection.
func notProtectiveKey(k Lists, ws []string) bool {
	not := k.List("unprotective_key_words")
	for _, w := range ws {
		if not.Has(w) {
			return true
		}
	}
	return false
}

// zeroIsOff reports whether a protection-named key counts something (days
// kept, a recovery window, reviews required) so that 0 turns it off.
func zeroIsOff(key string) bool {
	for _, p := range []string{"retention", "backup", "unauthorized", "recovery", "window", "days", "period", "count", "snapshot"} {
		if strings.Contains(key, p) {
			return true
		}
	}
	return false
}

// keyKind is what the words of a configuration key name.
type keyKind struct {
	protective    bool // a protection (encryption, logging, auth…)
	opening       bool // access that removes one when true (public, insecure…)
	negating      bool // a negation (skip, disable, no…)
	blocking      bool // blocking (block, require, enforce…)
	dangerVerb    bool // termination, deletion
	notProtective bool // debugging, output, tests: never a protection
}

// kindOfKey says what key (lower case) and its words ws name.
func kindOfKey(k Lists, key string, ws []string) keyKind {
	var kk keyKind
	not, prot := k.List("unprotective_key_words"), k.List("protective_key_words")
	open, neg, block := k.List("opening_key_words"), k.List("negating_key_words"), k.List("blocking_key_words")
	for _, w := range ws {
		switch {
		case not.Has(w):
			kk.notProtective = true
			return kk
		case prot.Has(w):
			kk.protective = true
		case open.Has(w):
			kk.opening = true
		case neg.Has(w):
			kk.negating = true
		case block.Has(w):
			kk.blocking = true
		case w == "termination" || w == "destroy" || w == "delete" || w == "deletion":
			kk.dangerVerb = true
		}
	}
	if !kk.protective {
		for _, p := range k.Words("protective_key_parts") {
			if strings.Contains(key, p) {
				kk.protective = true
				break
			}
		}
	}
	if strings.Contains(key, "insecure") || strings.Contains(key, "unauthenticated") {
		kk.opening = true
	}
	if strings.Contains(key, "skipverify") || strings.Contains(key, "skip_verify") || strings.Contains(key, "noverify") {
		kk.negating = true
	}
	return kk
}

// securityKey reports whether a configuration key names a protection,
// whatever its value: what judgeSetting judges.
func securityKey(k Lists, key string) bool {
	ws := argument.Words(key)
	key = strings.ToLower(key)
	if removalKey(key) || strings.Contains(key, "requirepass") {
		return true
	}
	for _, p := range k.Words("encryption_key_parts") {
		if strings.Contains(key, p) {
			return true
		}
	}
	// "log" alone names where output goes more often than an audit
	// trail ([log] mode = file); logging and audit still count.
	ws = slices.DeleteFunc(ws, func(w string) bool { return w == "log" || w == "logs" })
	kw := kindOfKey(k, key, ws)
	return !kw.notProtective && (kw.protective || kw.opening || kw.negating)
}

// ChangesSecurity returns a setting of configuration text whose change is
// not known to keep its protection, "" when there is none: a
// protection-named key text sets to a value not recognised either way
// (kms_key_id to another key, a policy to other text) that old did not
// have, or one old set that text no longer sets. It is asked only after
// removesProtection found nothing, and only of configuration files, where
// a change to such a setting is one for the reviewer.
func ChangesSecurity(k Lists, text, old string) string {
	if !mayHoldSetting(text) && !mayHoldSetting(old) {
		return ""
	}
	if mayHoldSetting(text) {
		for _, st := range settings(k, text) {
			if st.unsure && (old == "" || !strings.Contains(old, st.line)) {
				return st.line
			}
		}
	}
	if old == "" || !mayHoldSetting(old) {
		return ""
	}
	oldOn := map[string]string{}
	for _, st := range settings(k, old) {
		if st.unsure && !strings.Contains(text, st.line) {
			return "no " + st.line
		}
		if st.on {
			oldOn[st.key] = st.line
		}
	}
	for _, st := range settings(k, text) {
		if st.on && oldOn[st.key] != "" && lowered(oldOn[st.key], st.line) {
			// A count that protects, lowered (backups kept 3,650 days,
			// now 1).
			return oldOn[st.key] + " → " + st.line
		}
	}
	return ""
}

// ConfigFile reports whether path names configuration or
// infrastructure-as-code: configuration formats, well-known configuration
// files, and source files under a folder of infrastructure code.
func ConfigFile(path string) bool {
	base := strings.ToLower(path[strings.LastIndexByte(path, '/')+1:])
	switch base {
	case "dockerfile", "containerfile", "caddyfile", "sshd_config", "ssh_config", "pg_hba.conf", "vagrantfile", "jenkinsfile":
		return true
	}
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		switch base[i+1:] {
		case "tf", "tfvars", "hcl", "yaml", "yml", "json", "jsonc", "json5", "toml", "ini", "conf", "cfg", "cnf",
			"properties", "xml", "env", "nomad", "rego", "cue", "nix", "bicep", "template",
			// systemd units, firewall and policy rule files.
			"service", "socket", "timer", "mount", "network", "netdev", "rules", "nft", "te", "cil", "pkla", "policy":
			return true
		}
	}
	if strings.Contains(base, "stack") || base == "__main__.py" || strings.HasPrefix(base, "pulumi.") {
		return true // CDK stacks, Pulumi programs
	}
	lower := strings.ToLower(path)
	for _, d := range []string{"/infra/", "/infrastructure/", "/terraform/", "/pulumi/", "/cdk/", "/deploy/", "/deployment/", "/k8s/",
		"/kubernetes/", "/helm/", "/charts/", "/ansible/", "/ops/", "/stacks/", "/cloudformation/"} {
		// The directory at the start of a relative path, or anywhere
		// after a slash (written with it: no string built a call).
		if strings.HasPrefix(lower, d[1:]) || strings.Contains(lower, d) {
			return true
		}
	}
	return false
}

// judgeSetting says whether a protection-named key's value keeps the
// protection (on) or removes it (off); neither for other keys and values.
func judgeSetting(k Lists, key, val string) (on, off bool) {
	ws := argument.Words(key)
	key = strings.ToLower(key)
	if (strings.Contains(key, "autodelete") || strings.Contains(key, "auto_delete") || strings.Contains(key, "forcedestroy") ||
		strings.Contains(key, "force_destroy") || strings.Contains(key, "force_delete")) && !notProtectiveKey(k, ws) {
		// Deleting what a resource holds along with it.
		v := strings.ToLower(strings.Trim(val, `"'`))
		return v == "false", v == "true"
	}
	if removalKey(key) {
		switch strings.ToLower(strings.Trim(val, `"'`)) {
		case "retain", "snapshot", "retain_on_update_or_delete", "removalpolicy.retain", "removalpolicy.snapshot":
			return true, false
		case "destroy", "delete", "removalpolicy.destroy":
			return false, true
		}
		return false, false
	}
	v0 := strings.ToLower(strings.Trim(val, `"'`))
	switch {
	case strings.HasSuffix(v0, "cert_none"):
		// Python's ssl.CERT_NONE: no certificate checked.
		return false, true
	case strings.HasSuffix(v0, "cert_required"):
		return true, false
	}
	if v0 == "unconfined" && (strings.Contains(key, "seccomp") || strings.Contains(key, "apparmor")) ||
		v0 == "write-all" && strings.Contains(key, "permissions") ||
		v0 == "0" && (strings.Contains(key, "review_count") || strings.Contains(key, "reviewcount") || strings.Contains(key, "approvals")) ||
		(v0 == "allow" || v0 == "allow-all") && (strings.HasSuffix(key, "default_action") || strings.HasSuffix(key, "defaultaction") || strings.Contains(key, "protocol_policy")) {
		return false, true
	}
	for _, p := range k.Words("encryption_key_parts") {
		if strings.Contains(key, p) {
			// Naming the key that encrypts is the protection; a variable
			// says nothing until it is set.
			if strings.HasPrefix(v0, "var.") || strings.HasPrefix(v0, "local.") || strings.HasPrefix(v0, "$") {
				return false, false
			}
			return v0 != "" && v0 != "none" && v0 != "null", v0 == "none" || v0 == "null"
		}
	}
	kw := kindOfKey(k, key, ws)
	if kw.notProtective || !kw.protective && !kw.opening && !kw.negating {
		return false, false
	}
	protective, opening, negating, blocking, dangerVerb := kw.protective, kw.opening, kw.negating, kw.blocking, kw.dangerVerb
	if (strings.Contains(key, "tls") || strings.Contains(key, "ssl")) && (strings.Contains(key, "version") || strings.Contains(key, "protocol")) {
		// A minimum protocol version: below TLS 1.2 is broken.
		switch strings.NewReplacer("tlsv", "", "tls", "", "_", ".", "-", ".", "v", "").Replace(v0) {
		case "1.0", "1", "1.1", "ssl3", "sslv3", "ssl2", "sslv2", "1.0.2019":
			return false, true
		case "1.2", "1.3", "1.2.2019", "1.2.2021":
			return true, false
		}
		if strings.HasPrefix(v0, "ssl") {
			return false, true
		}
		return false, false
	}
	if strings.Contains(key, "requirepass") || strings.HasSuffix(key, "auth_password") {
		// A password set is the protection.
		return val != "" && val != `""`, val == "" || val == `""`
	}
	v := v0
	truthy, falsy := false, false
	switch v {
	case "true", "yes", "on", "enabled", "enable", "1", "required", "require", "enforced", "strict", "verify-full", "verify-ca", "block_all", "all":
		truthy = true
	case "false", "no", "off", "disabled", "disable", "none", "0", "suspended", "null", "nil", "optional", "allow", "prefer",
		"permissive", "alwaysallow", "allow-all", "allowall", "anyone", "public", "public-read", "public-read-write":
		falsy = true
	default:
		switch {
		case strings.HasSuffix(v, ".block_all") || strings.HasSuffix(v, "block_all"):
			truthy = true
		case v != "" && v[0] >= '1' && v[0] <= '9' && strings.Trim(v, "0123456789") == "":
			truthy = zeroIsOff(key)
		case strings.Contains(v, "unencrypted") || strings.Contains(v, "insecure") || strings.HasSuffix(v, ".none") ||
			strings.HasSuffix(v, ".disabled") || strings.HasSuffix(v, "_disabled") || strings.HasSuffix(v, ".off"):
			// An enumeration's member (BucketEncryption.UNENCRYPTED).
			falsy = true
		}
	}
	if !truthy && !falsy {
		return false, false
	}
	switch {
	case blocking:
		// block_public_acls, require_ssl: true keeps the protection.
		return truthy, falsy
	case opening:
		// public_access, allow_force_pushes, anonymous: true removes a
		// protection.
		return falsy && !protective, truthy
	case negating && dangerVerb:
		// disable_api_termination: true is the protection.
		return truthy, falsy
	case negating:
		// disable_auth, skip_tls_verify: true removes a protection.
		return falsy, truthy
	}
	if falsy && v == "0" && !zeroIsOff(key) {
		return false, false
	}
	return truthy, falsy
}

// protectionHint is a cheap test before protectionOff: the words every
// match holds one of.
func protectionHint(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range []string{"false", "true", "0/0", "ublic", "llusers", "llauthenticatedusers",
		"principal", "off", "disable", "no", "suspended", "inherited", "_period", "/0", "*", "admin", ".sock", "host", "yes",
		"user: 0", "autoindex", "internet", "trust", "grant", "mutable", "65535", "0.0.0.0", "allow", "sys_", "net_", "satisfy", "gress"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// SensitiveTool returns what a tool's name (its words ws) says it touches
// when that is credentials, identity, payment, health or personal records
// ("" otherwise); the name's verb does not make such a call routine. The
// words are the tool_*_words lists of the programs file, whose entries
// a+b match when the name holds both words.
func SensitiveTool(k Lists, ws []string) string {
	if !k.MayName(sensitiveToolLists, ws) {
		return ""
	}
	for _, s := range sensitiveTools {
		if k.Names(s.list, ws) != "" {
			return s.what
		}
	}
	return ""
}

// sensitiveTools are the lists SensitiveTool asks, in order, each with
// what a name it matches touches.
var sensitiveTools = [...]struct{ list, what string }{
	{list: "tool_credential_words", what: "credentials"},
	{list: "tool_payment_words", what: "payments or bank accounts"},
	{list: "tool_identity_words", what: "identity or personal records"},
	{list: "tool_health_words", what: "health records"},
	{list: "tool_personal_words", what: "personal records"},
	{list: "tool_location_words", what: "a person's location"},
	{list: "tool_asset_words", what: "investments or crypto assets"},
	{list: "tool_home_words", what: "a home's locks, alarm or cameras"},
}

// sensitiveToolLists are the names of sensitiveTools' lists.
var sensitiveToolLists = func() []string {
	out := make([]string, len(sensitiveTools))
	for i, s := range sensitiveTools {
		out[i] = s.list
	}
	return out
}()

// SensitiveServer returns the entry of the list sensitive_servers that the
// words of an MCP server's name match (a password manager or secrets
// store, an HR, payroll, health, payment, identity or banking service),
// "" for none: every call to such a server touches records no verb makes
// routine.
func SensitiveServer(k Lists, server string) string {
	if server == "" {
		return ""
	}
	return k.Names("sensitive_servers", argument.Words(server))
}

// SensitiveArgs returns what a call's arguments ask for when it is
// secret or personal data, "" otherwise: a flag that reveals secrets
// (reveal_keys set to true), fields to return naming such data
// (field_keys whose words match sensitive_field_words), or a search for
// it (search_keys whose words match sensitive_search_words).
func SensitiveArgs(k Lists, leaves []argument.Leaf) string {
	for _, l := range leaves {
		switch {
		case k.List("reveal_keys").Has(l.Key):
			switch strings.ToLower(l.Value) {
			case "true", "1", "yes":
				return l.Key + " set to " + l.Value
			}
		case k.List("field_keys").Has(l.Key):
			if w := k.Names("sensitive_field_words", argument.Words(l.Value)); w != "" {
				return "the field " + strings.ReplaceAll(w, "+", " ")
			}
		case k.List("search_keys").Has(l.Key):
			if w := k.Names("sensitive_search_words", argument.Words(l.Value)); w != "" {
				return "a search for " + strings.ReplaceAll(w, "+", " ")
			}
		}
	}
	return ""
}

// BrowserScriptSecret returns the first word of the list browser_secrets
// that a page script holds (what it reads to take a session or stored
// tokens, or uses to send data away), "" otherwise.
func BrowserScriptSecret(k Lists, code string) string {
	for _, w := range k.Words("browser_secrets") {
		if strings.Contains(code, w) {
			return w
		}
	}
	return ""
}

// PersonalValue returns what personal or payment data an argument holds:
// by its key (card number, SSN, passport, password) or its value (a card
// number, a US social security number); "" for none.
func PersonalValue(l argument.Leaf) string {
	k := l.Key
	switch k {
	case "ssn", "cvv", "cvc", "dob", "iban", "pan", "passport":
		return k
	}
	for _, w := range []string{"social_security", "passport_number", "card_number", "cardnumber", "cc-number", "cc_number",
		"credit_card", "routing_number", "account_number", "date_of_birth", "password"} {
		if strings.Contains(k, w) {
			return w
		}
	}
	if len(l.Value) < 11 || len(l.Value) > 40 || l.Value[0] < '0' && l.Value[0] != ' ' || l.Value[0] > '9' {
		return ""
	}
	if strings.Count(l.Value, "-") >= 2 && ssnLike.MatchString(l.Value) {
		return "a social security number"
	}
	if cardLike(l.Value) {
		return "a payment card number"
	}
	return ""
}

var ssnLike = pattern.Lazy(`\b\d{3}-\d{2}-\d{4}\b`)

// cardLike reports whether v is a payment card number: 13 to 19 digits,
// spaces or dashes between them, passing the Luhn check.
func cardLike(v string) bool {
	var d []int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			d = append(d, int(c-'0'))
		case c == ' ' || c == '-':
		default:
			return false
		}
	}
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range d {
		x := d[len(d)-1-i]
		if i%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// ProtectiveName returns the word of a file's name that says it holds a
// protection (encryption, backups, audit logging, a firewall), "" for
// none.
func ProtectiveName(p string) string {
	base := p
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	for _, w := range argument.Words(base) {
		switch w {
		case "encryption", "encrypted", "kms", "backup", "backups", "audit", "auditing", "logging", "cloudtrail", "trail",
			"waf", "firewall", "protection", "mfa", "tls", "ssl", "acl", "acls", "guardduty", "guardrails", "security",
			"retention", "versioning", "lock", "lockdown", "hardening", "policy", "policies", "rbac", "netpol", "networkpolicy",
			"log", "logs", "flowlogs", "monitoring", "alarms", "seccomp", "apparmor", "psp", "kyverno", "gatekeeper", "opa":
			return w
		}
	}
	if l := strings.ToLower(base); strings.Contains(l, "public_access") || strings.Contains(l, "access_block") || strings.Contains(l, "public-access") {
		return "public access block"
	}
	return ""
}
