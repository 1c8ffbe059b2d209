package triage

import (
	"regexp"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// Guards that do not depend on the program or tool: configuration text
// that removes a protection from infrastructure, tools whose names say
// they touch identity, payment, health or personal records, and browser
// scripts that read cookies or storage.

// protectionOff matches infrastructure settings (Terraform, CloudFormation,
// Kubernetes, cloud policies) that remove a protection: deletion and
// termination protection off, destroy allowed, final snapshots skipped,
// encryption off, public access, ingress from anywhere.
var protectionOff = regexp.MustCompile(`(?i)\b(deletion_?protection(_?enabled)?|enable_deletion_protection|prevent_destroy|` +
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
	`\b(privileged|allowPrivilegeEscalation|hostPID|hostIPC|hostNetwork)["']?\s*:\s*true\b|\brunAsNonRoot["']?\s*:\s*false\b`)

// removesProtection returns the setting in text that removes a
// protection, "" when there is none. A setting old already had is not a
// change.
func removesProtection(text, old string) string {
	if !protectionHint(text) {
		return ""
	}
	for _, m := range protectionOff.FindAllString(text, 4) {
		if old == "" || !strings.Contains(old, m) {
			return strings.Join(strings.Fields(m), " ")
		}
	}
	return ""
}

// protectionHint is a cheap test before the expression: the words every
// match holds one of.
func protectionHint(text string) bool {
	for _, w := range []string{"false", "true", "False", "True", "FALSE", "TRUE", "0/0", "ublic", "llUsers", "llAuthenticatedUsers",
		"Principal", "off", "Off", "disable", "Disable", "no", "suspended", "Suspended", "inherited", "_period"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// writesText reports whether a command writes files with text its own
// words show: a redirection, in-place editing, tee.
func writesText(c *cmd) bool {
	if len(c.sc.Redirects) > 0 {
		return true
	}
	switch c.name {
	case "tee", "sponge", "ed", "ex", "dd", "install", "cp", "mv":
		return true
	case "sed", "gsed", "perl", "ruby", "awk", "gawk":
		for _, a := range c.args[1:] {
			if strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") && (c.name == "perl" || c.name == "ruby") {
				return true
			}
		}
	}
	return false
}

// sensitiveTool returns what a tool's name says it touches when that is
// identity, payment, health or personal records ("" otherwise); the name's
// verb does not make such a call routine.
func sensitiveTool(ws []string) string {
	has := func(w string) bool {
		for _, x := range ws {
			if x == w {
				return true
			}
		}
		return false
	}
	for i, w := range ws {
		switch w {
		case "payment", "payments", "pay", "charge", "charges", "card", "cards", "creditcard", "creditcards", "cvv", "iban",
			"bank", "banking", "funds", "wallet", "wallets", "payout", "payouts", "refund", "refunds", "purchase", "billing", "paypal", "venmo",
			"balance", "balances", "transactions", "checkout", "invoice", "invoices", "subscription", "subscriptions":
			return "payments or bank accounts"
		case "transfer", "wire":
			if has("funds") || has("money") || has("bank") || has("payment") || has("crypto") || has("wire") && w == "transfer" {
				return "payments or bank accounts"
			}
		case "credit":
			return "credit or payment records"
		case "ssn", "passport", "passports", "identity", "identities", "kyc", "dob", "birthdate", "birthday", "biometric",
			"biometrics", "fingerprint", "pii", "personal", "tax", "taxes", "w2":
			return "identity or personal records"
		case "license", "licence":
			if has("driver") || has("drivers") || has("driving") {
				return "identity or personal records"
			}
		case "social":
			if i+1 < len(ws) && ws[i+1] == "security" {
				return "identity or personal records"
			}
		case "medical", "patient", "patients", "prescription", "prescriptions", "diagnosis", "diagnoses", "medication",
			"medications", "insurance", "clinical", "ehr", "emr", "hipaa", "vaccination", "vaccinations", "lab", "labs", "genetic":
			return "health records"
		case "health":
			if has("data") || has("record") || has("records") || has("history") || has("profile") {
				return "health records"
			}
		case "salary", "salaries", "payroll", "compensation", "ssns", "contacts", "addressbook", "people", "person", "persons",
			"friends", "sms", "userinfo", "addresses", "genealogy", "dna":
			return "personal records"
		case "location", "locations", "gps", "geolocation", "whereabouts":
			return "a person's location"
		case "holdings", "portfolio", "investment", "investments", "ethereum", "ether", "bitcoin", "crypto", "stock", "stocks", "trade":
			return "investments or crypto assets"
		case "history":
			if has("browsing") || has("browser") || has("search") || has("location") || has("purchase") || has("order") || has("call") {
				return "a person's history"
			}
		case "user":
			if i+1 < len(ws) && (ws[i+1] == "info" || ws[i+1] == "information" || ws[i+1] == "details" || ws[i+1] == "profile" || ws[i+1] == "data") {
				return "personal records"
			}
		case "lock", "unlock", "door", "doors", "alarm", "camera", "cameras":
			return "a home's locks, alarm or cameras"
		case "autofill":
			return "saved personal data (autofill)"
		case "auto":
			if i+1 < len(ws) && ws[i+1] == "fill" {
				return "saved personal data (autofill)"
			}
		case "portal":
			return "an account portal"
		case "password", "passwords", "credential", "credentials", "cookie", "cookies", "keychain", "vault", "otp", "mfa", "totp",
			"secret", "secrets", "secretsmanager", "keyvault", "apikey", "apikeys":
			return "credentials"
		}
	}
	return ""
}

// browserSecrets are what page scripts read to take a session or stored
// tokens, or use to send data away.
var browserSecrets = []string{"document.cookie", "localStorage", "sessionStorage", "indexedDB", "navigator.credentials",
	"Authorization", "password", "getCookies", "cookies", "sendBeacon"}

// browserScriptSecret returns what a page script reads that holds a
// session or credentials, "" otherwise.
func browserScriptSecret(code string) string {
	for _, w := range browserSecrets {
		if strings.Contains(code, w) {
			return w
		}
	}
	return ""
}

// scriptKeys are the argument names of code a browser or other tool runs.
var scriptKeys = set("function", "script", "code", "expression", "js", "javascript", "source", "snippet", "eval")

// infraNouns name infrastructure a tool changes: a call that is not a read
// changes more than the workspace.
var infraNouns = set("terraform", "pulumi", "cloudformation", "stack", "stacks", "deployment", "deployments", "cluster",
	"clusters", "infrastructure", "infra", "instance", "instances", "bucket", "buckets", "database", "databases", "db",
	"production", "prod", "dns", "firewall", "vpc", "iam", "kubernetes", "k8s", "helm", "release", "releases")

// personalValue returns what personal or payment data an argument holds:
// by its key (card number, SSN, passport, password) or its value (a card
// number, a US social security number); "" for none.
func personalValue(l mcpLeaf) string {
	k := l.key
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
	if len(l.value) < 11 || len(l.value) > 40 || l.value[0] < '0' && l.value[0] != ' ' || l.value[0] > '9' {
		return ""
	}
	if strings.Count(l.value, "-") >= 2 && ssnLike.MatchString(l.value) {
		return "a social security number"
	}
	if cardLike(l.value) {
		return "a payment card number"
	}
	return ""
}

var ssnLike = regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)

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

// optionEffect says how a command records the screen, the microphone, the
// camera or keystrokes, or serves files or sets modes that weaken the
// machine through a program's options ("" otherwise): what a program
// table may read as routine media or file work.
func optionEffect(c *cmd) string {
	switch c.name {
	case "scrot", "gnome-screenshot", "xwd", "screencapture", "arecord", "parecord", "rec", "fswebcam", "xinput", "logkeys", "showkey":
		if c.name == "xinput" && !shell.HasWord(c.args, "test", "test-xi2") {
			return ""
		}
		return "records the screen, audio, camera or keystrokes"
	case "import":
		if shell.HasWord(c.args, "-window") {
			return "records the screen"
		}
	case "ffmpeg", "avconv", "gst-launch-1.0", "vlc", "cvlc":
		for _, a := range c.args[1:] {
			switch a {
			case "x11grab", "avfoundation", "gdigrab", "kmsgrab", "v4l2", "alsa", "pulse", "dshow", "screen://", "ximagesrc", "pulsesrc":
				return "records the screen, audio or camera"
			}
		}
	case "ruby":
		if shell.HasWord(c.args, "-run") && shell.HasWord(c.args, "httpd") {
			return "serves files over HTTP to the network"
		}
	case "install":
		for i, a := range c.args[1:] {
			m := ""
			switch {
			case a == "-m" || a == "--mode":
				if i+2 < len(c.args) {
					m = c.args[i+2]
				}
			case strings.HasPrefix(a, "--mode="):
				m = a[len("--mode="):]
			case strings.HasPrefix(a, "-m") && len(a) > 2:
				m = a[2:]
			}
			if m != "" && (command.ModeSetUID(m) || command.ModeSetGID(m)) {
				return "installs a file setuid or setgid"
			}
		}
	}
	return ""
}
