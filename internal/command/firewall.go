package command

import "strings"

// FirewallEffect is what a command does to the firewall of the machine:
// the one reading of iptables (and its variants), nft, ufw, pfctl and
// firewall-cmd that the exec rules (package rules) and the first pass
// (internal/triage) each turn into their own verdicts.
type FirewallEffect uint8

// The effects of a firewall command.
const (
	// FirewallLists only shows the rules or the state: iptables -L/-S
	// with no change, iptables-save, nft list, ufw status, pfctl -s,
	// firewall-cmd --state or --list-*.
	FirewallLists FirewallEffect = 1 << iota
	// FirewallFlushes removes rules or chains: iptables -F/-X, nft flush
	// or delete table, pfctl -F.
	FirewallFlushes
	// FirewallFlushesRuleset removes every rule of nft at once: nft flush
	// ruleset, nft delete table.
	FirewallFlushesRuleset
	// FirewallOff turns the firewall off: ufw disable or reset, pfctl -d.
	FirewallOff
	// FirewallOpens lets everything through: an iptables chain policy of
	// ACCEPT, ufw default allow, firewall-cmd --panic-off or the trusted
	// default zone.
	FirewallOpens
	// FirewallLoggingOff turns the firewall's logging off: ufw logging off.
	FirewallLoggingOff
)

// iptablesShort are the short options of iptables that take a value.
const iptablesShort = "tAIDRPNXEjgiospm"

// pfctlShort are the short options of pfctl that take a value.
const pfctlShort = "afFsTtxAKkLOoDEipR"

// Firewall returns what the firewall command args (args[0] the program,
// named name) does: ufw, nft, pfctl, firewall-cmd and iptables-save by
// their names, any other program as iptables. 0 is a command that changes
// rules without any of the effects above.
func Firewall(name string, args []string) FirewallEffect {
	var e FirewallEffect
	switch name {
	case "ufw":
		ops := Operands(args, "")
		if len(ops) == 0 || ops[0] == "status" || ops[0] == "show" || ops[0] == "app" && len(ops) > 1 && ops[1] == "list" || ops[0] == "version" {
			e |= FirewallLists
		}
		if len(ops) > 0 && (ops[0] == "disable" || ops[0] == "reset") {
			e |= FirewallOff
		}
		if len(ops) > 1 {
			switch {
			case ops[0] == "logging" && ops[1] == "off":
				e |= FirewallLoggingOff
			case ops[0] == "default" && ops[1] == "allow":
				e |= FirewallOpens
			}
		}
	case "nft":
		if HasWord(args, "list") && !HasWord(args, "flush", "delete") {
			e |= FirewallLists
		}
		deletesTable := HasWord(args, "delete") && HasWord(args, "table")
		if HasWord(args, "flush") || deletesTable {
			e |= FirewallFlushes
		}
		if HasWord(args, "flush") && HasWord(args, "ruleset") || deletesTable {
			e |= FirewallFlushesRuleset
		}
	case "pfctl":
		if HasShort(args, 'd', pfctlShort) {
			e |= FirewallOff
		}
		if HasShort(args, 'F', "afsTtxAKkLOoDEipR") {
			e |= FirewallFlushes
		}
		if HasShort(args, 's', "afFTtxAKkLOoDEipR") && !HasShort(args, 'f', "asFTtxAKkLOoDEipR") {
			e |= FirewallLists
		}
	case "firewall-cmd":
		if HasLong(args, "state", "list-all", "list-services", "list-ports", "get-default-zone", "get-active-zones", "list-all-zones") {
			e |= FirewallLists
		}
		if HasLong(args, "panic-off") || HasWord(args, "--set-default-zone=trusted") {
			e |= FirewallOpens
		}
	case "iptables-save", "ip6tables-save":
		e |= FirewallLists
	default: // iptables, its variants and builds, and what a programs file reads as one
		if HasWord(args, "-L", "-S", "--list", "--list-rules") && !HasWord(args, "-F", "-X", "-D", "-A", "-I", "-P") {
			e |= FirewallLists
		}
		if HasWord(args, "-F", "--flush", "-X", "--delete-chain") || HasShort(args, 'F', iptablesShort) {
			e |= FirewallFlushes
		}
		for i := 1; i+2 < len(args); i++ {
			if (args[i] == "-P" || args[i] == "--policy") && strings.EqualFold(args[i+2], "ACCEPT") {
				e |= FirewallOpens
				break
			}
		}
	}
	return e
}
