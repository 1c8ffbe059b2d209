package command

import "strings"

// ModeWorldWritable reports whether a chmod mode (octal or symbolic) lets
// everyone write. A symbolic clause with no "who" (+w) counts: what it
// grants depends on the umask, so it may.
func ModeWorldWritable(mode string) bool {
	if isOctal(mode) {
		return strings.IndexByte("2367", mode[len(mode)-1]) >= 0
	}
	return anyClause(mode, func(who, perms string) bool {
		return (who == "" || strings.ContainsAny(who, "oa")) && strings.IndexByte(perms, 'w') >= 0
	})
}

// ModeSetuid reports whether a chmod mode sets the setuid or setgid bit.
func ModeSetuid(mode string) bool {
	if isOctal(mode) {
		if len(mode) > 4 {
			mode = mode[len(mode)-4:]
		}
		return len(mode) == 4 && strings.IndexByte("234567", mode[0]) >= 0
	}
	return anyClause(mode, func(_, perms string) bool {
		return strings.IndexByte(perms, 's') >= 0
	})
}

// ModeOpensRead reports whether a chmod mode lets the group or everyone
// read.
func ModeOpensRead(mode string) bool {
	if isOctal(mode) {
		if len(mode) < 3 {
			return false
		}
		g, o := mode[len(mode)-2], mode[len(mode)-1]
		return strings.IndexByte("4567", g) >= 0 || strings.IndexByte("4567", o) >= 0
	}
	return anyClause(mode, func(who, perms string) bool {
		return (who == "" || strings.ContainsAny(who, "goa")) && strings.IndexByte(perms, 'r') >= 0
	})
}

// ModeSetUID reports whether a chmod mode sets the setuid bit (files then
// run as their owner).
func ModeSetUID(mode string) bool {
	if isOctal(mode) {
		return len(mode) == 4 && strings.IndexByte("4567", mode[0]) >= 0
	}
	return anyClause(mode, func(who, perms string) bool {
		return strings.IndexByte(perms, 's') >= 0 && (who == "" || strings.ContainsAny(who, "ua"))
	})
}

// ModeSetGID reports whether a chmod mode sets the setgid bit.
func ModeSetGID(mode string) bool {
	if isOctal(mode) {
		return len(mode) == 4 && strings.IndexByte("2367", mode[0]) >= 0
	}
	return anyClause(mode, func(who, perms string) bool {
		return strings.IndexByte(perms, 's') >= 0 && strings.Contains(who, "g")
	})
}

// anyClause reports whether a clause of a symbolic chmod mode that adds
// or sets permissions (who+perms, who=perms) passes ok.
func anyClause(mode string, ok func(who, perms string) bool) bool {
	for _, cl := range strings.Split(mode, ",") {
		if i := strings.IndexAny(cl, "+="); i >= 0 && ok(cl[:i], cl[i+1:]) {
			return true
		}
	}
	return false
}

func isOctal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// FindRoots returns the starting points of a find command (argv[0] is
// find): the words after its leading options (-H, -L, -P, -D debugopts,
// -Olevel) up to the first word of the expression; "." when there is
// none, as find assumes.
func FindRoots(argv []string) []string {
	var out []string
	i := 1
	for i < len(argv) && (argv[i] == "-H" || argv[i] == "-L" || argv[i] == "-P" || strings.HasPrefix(argv[i], "-O") || argv[i] == "-D") {
		if argv[i] == "-D" {
			i++
		}
		i++
	}
	for ; i < len(argv); i++ {
		a := argv[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "\\(" {
			break
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		out = append(out, ".")
	}
	return out
}

// GitConfigs returns the configuration values a git command sets for
// itself (-c name=value, --config-env=name=envvar), as "name=value".
func GitConfigs(argv []string) []string {
	g, _ := Lookup("git")
	var out []string
	var p Parsed
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break // the subcommand (see Subcommand)
		}
		i = g.option(&p, argv, i)
	}
	for _, o := range p.Options {
		if o.Name == "config" || o.Name == "config-env" {
			out = append(out, o.Value)
		}
	}
	return out
}
