package command

import (
	"strings"
	"testing"
)

// TestG14_FirewallReadsWhatACommandDoesToTheFirewall checks the one
// reading of firewall commands the exec rules and the first pass share:
// a flush, a policy that opens, a firewall turned off are found in every
// spelling, a listing is only a listing, and an option's value is not read
// as an option.
func TestG14_FirewallReadsWhatACommandDoesToTheFirewall(t *testing.T) {
	const (
		lists   = FirewallLists
		flushes = FirewallFlushes
		ruleset = FirewallFlushesRuleset
		off     = FirewallOff
		opens   = FirewallOpens
		logOff  = FirewallLoggingOff
	)
	for _, tc := range []struct {
		cmd  string
		want FirewallEffect
	}{
		{"iptables -L -n", lists},
		{"iptables -S INPUT", lists},
		{"iptables -L -F", flushes},
		{"iptables -F", flushes},
		{"iptables --flush INPUT", flushes},
		{"iptables -X", flushes},
		{"iptables -vF", flushes},
		{"iptables -t nat -F", flushes},
		{"iptables -tF", 0}, // the table named F
		{"ip6tables -P INPUT ACCEPT", opens},
		{"iptables --policy FORWARD accept", opens},
		{"iptables -P INPUT DROP", 0},
		{"iptables -A INPUT -p tcp --dport 22 -j ACCEPT", 0},
		{"iptables-restore -F", flushes},
		{"iptables-save", lists},
		{"nft list ruleset", lists},
		{"nft flush ruleset", flushes | ruleset},
		{"nft flush chain inet filter input", flushes},
		{"nft delete table inet filter", flushes | ruleset},
		{"nft list ruleset flush", flushes | ruleset},
		{"nft add rule inet filter input accept", 0},
		{"ufw", lists},
		{"ufw status verbose", lists},
		{"ufw app list", lists},
		{"ufw disable", off},
		{"ufw --force reset", off},
		{"ufw logging off", logOff},
		{"ufw default allow incoming", opens},
		{"ufw allow 22/tcp", 0},
		{"pfctl -d", off},
		{"pfctl -sr", lists},
		{"pfctl -s rules", lists},
		{"pfctl -Fa", flushes},
		{"pfctl -a d", 0}, // the anchor named d
		{"pfctl -f /etc/pf.conf", 0},
		{"firewall-cmd --state", lists},
		{"firewall-cmd --list-all", lists},
		{"firewall-cmd --panic-off", opens},
		{"firewall-cmd --set-default-zone=trusted", opens},
		{"firewall-cmd --add-port=80/tcp", 0},
	} {
		argv := strings.Fields(tc.cmd)
		if got := Firewall(argv[0], argv); got != tc.want {
			t.Errorf("Firewall(%q) = %06b, want %06b", tc.cmd, got, tc.want)
		}
	}
}

// FuzzFirewall checks that reading a firewall command never panics, that
// it is a function of the words, and that a listing never also changes
// the rules.
func FuzzFirewall(f *testing.F) {
	for _, s := range []string{"iptables -F", "iptables -L -F", "nft flush ruleset", "ufw default allow", "pfctl -sr -d",
		"firewall-cmd --state --panic-off", "ip6tables -P INPUT ACCEPT", "ufw", "pfctl -a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Fields(s)
		if len(argv) == 0 {
			return
		}
		a := Firewall(argv[0], argv)
		if b := Firewall(argv[0], argv); a != b {
			t.Fatalf("Firewall(%q) = %b then %b", s, a, b)
		}
		if argv[0] == "nft" && a&FirewallLists != 0 && a&FirewallFlushes != 0 {
			t.Fatalf("Firewall(%q) = %b: lists and flushes", s, a)
		}
		if a&FirewallFlushesRuleset != 0 && a&FirewallFlushes == 0 {
			t.Fatalf("Firewall(%q) = %b: the ruleset flushed without a flush", s, a)
		}
	})
}
