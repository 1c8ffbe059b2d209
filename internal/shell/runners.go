package shell

import (
	"strings"

	"github.com/wardenhq/warden/internal/command"
)

// maxLines bounds the command lines parallel is seen to compose from its
// literal arguments; beyond it the script is opaque.
const maxLines = 64

// runners sees through programs that run the rest of their words as a
// command after options of their own (and, for some, one operand):
// dbus-run-session, unshare, nsenter, setpriv, prlimit, sg, xvfb-run,
// catchsegv, gdb --args, valgrind, faketime, cgexec, numactl,
// systemd-inhibit, torsocks, proxychains, ip netns exec, setarch; and
// hub and yadm, which are git.
func (w *walker) runners(idx int, name string, ws []word, c ctx, assigns, redirs []string, in stdin) {
	i := -1
	switch name {
	case "dbus-run-session":
		i = skipOpts(ws, 1, "", []string{"config-file", "dbus-daemon"})
	case "unshare":
		i = skipOpts(ws, 1, "SGRw", []string{"propagation", "setgroups", "setuid", "setgid", "root", "wd",
			"map-user", "map-group", "map-users", "map-groups", "monotonic", "boottime"})
	case "nsenter":
		i = skipOpts(ws, 1, "tSG", []string{"target", "setuid", "setgid", "user-parent", "env"})
	case "setpriv":
		i = skipOpts(ws, 1, "", []string{"reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "inh-caps",
			"ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile",
			"landlock-access", "landlock-rule"})
	case "prlimit":
		i = skipOpts(ws, 1, "po", []string{"pid", "output"})
		if hasFlag(ws[1:i], "p", "po", []string{"pid"}) {
			return // changes the limits of a running process
		}
	case "sg":
		// sg [-] GROUP [-c] COMMAND: COMMAND is a script for /bin/sh.
		i = 1
		if i < len(ws) && ws[i].lit && ws[i].val == "-" {
			i++
		}
		i++ // the group
		if i < len(ws) && ws[i].lit && ws[i].val == "-c" {
			i++
		}
		if i < len(ws) {
			w.joined(idx, ws[i:], c, "sg")
		}
		return
	case "xvfb-run":
		i = skipOpts(ws, 1, "efnpsw", []string{"error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"})
	case "catchsegv", "tsocks":
		i = 1
	case "valgrind":
		i = skipOpts(ws, 1, "", nil)
	case "gdb", "cgdb":
		for k := 1; k < len(ws); k++ {
			if ws[k].lit && (ws[k].val == "--args" || ws[k].val == "-args") {
				i = k + 1
				break
			}
		}
	case "faketime":
		i = skipOpts(ws, 1, "", []string{"date-prog"})
		if i < len(ws) {
			i++ // the time
		}
	case "cgexec":
		i = skipOpts(ws, 1, "g", nil)
	case "numactl":
		i = skipOpts(ws, 1, "imNCpP", []string{"interleave", "membind", "cpunodebind", "physcpubind", "preferred",
			"preferred-many", "weighted-interleave"})
		if hasFlag(ws[1:i], "sH", "imNCpP", []string{"show", "hardware"}) {
			return
		}
	case "systemd-inhibit":
		i = skipOpts(ws, 1, "", []string{"what", "who", "why", "mode"})
	case "torsocks":
		i = skipOpts(ws, 1, "upaP", []string{"user", "pass", "address", "port"})
	case "proxychains", "proxychains4":
		i = skipOpts(ws, 1, "f", nil)
	case "setarch":
		i = 1
		if i < len(ws) && ws[i].lit && !strings.HasPrefix(ws[i].val, "-") {
			i++ // the architecture
		}
		i = skipOpts(ws, i, "", nil)
	case "linux32", "linux64", "uname26":
		i = skipOpts(ws, 1, "", nil)
	case "ip":
		i = ipExec(ws)
	case "hub", "yadm":
		// git wrappers: hub push is git push.
		inner := append([]word{{val: "git", lit: true, text: "git"}}, ws[1:]...)
		w.derive(idx, inner, c, name, assigns, redirs, in)
		return
	}
	if i < 0 || i >= len(ws) {
		return
	}
	w.derive(idx, ws[i:], c, name, assigns, redirs, in)
}

// ipExec returns the index of the command of `ip netns exec NAME CMD…`,
// `ip -all netns exec CMD…` or `ip vrf exec NAME CMD…`, -1 for other ip
// commands.
func ipExec(ws []word) int {
	all := false
	for k := 1; k+1 < len(ws); k++ {
		if !ws[k].lit {
			return -1
		}
		switch v := ws[k].val; {
		case v == "-a" || v == "-all":
			all = true
		case v == "netns" || v == "vrf":
			if !ws[k+1].lit || !strings.HasPrefix("exec", ws[k+1].val) {
				return -1
			}
			if all && v == "netns" {
				return k + 2
			}
			return k + 3
		case strings.HasPrefix(v, "-"):
		default:
			return -1
		}
	}
	return -1
}

// xargs sees through xargs: the command runs with more words read from
// its input, or, with a replacement string (-I R, -i, --replace), with the
// words holding R replaced by what it reads.
func (w *walker) xargs(idx int, ws []word, c ctx, assigns, redirs []string) {
	i := skipOpts(ws, 1, "adEILnPs", []string{"arg-file", "delimiter", "max-args",
		"max-procs", "max-chars", "process-slot-var"})
	repl := ""
	for k := 1; k < i; k++ {
		a := ws[k].val
		if !ws[k].lit || len(a) < 2 || a[0] != '-' {
			continue
		}
		if a[1] == '-' {
			if a == "--replace" {
				repl = "{}"
			} else if v, ok := strings.CutPrefix(a, "--replace="); ok {
				repl = v
			} else if a == "--" {
				break
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if a[j] == 'i' {
				repl = "{}"
				if j+1 < len(a) {
					repl = a[j+1:]
				}
				break
			}
			if a[j] == 'I' {
				if j+1 < len(a) {
					repl = a[j+1:]
				} else if k+1 < len(ws) {
					repl = ws[k+1].val
				}
				break
			}
			if strings.IndexByte("adELnPs", a[j]) >= 0 {
				break
			}
		}
	}
	inner := ws[i:]
	cc := c
	switch {
	case repl == "":
		cc.moreArgs = true
	case len(inner) > 0 && inner[0].lit && isShellName(Base(inner[0].val)):
		// sh -c 'rm {}': the script is seen, and what replaces {} is
		// read as part of it (see shell).
		cc.repl = repl
	default:
		inner = append([]word(nil), inner...)
		for k := range inner {
			if strings.Contains(inner[k].val, repl) {
				inner[k].lit = false // replaced by what xargs reads
			}
		}
	}
	w.derive(idx, inner, cc, "xargs", assigns, redirs, stdin{})
}

// parallel sees through GNU parallel and sem: the command line is its
// command words joined by spaces, run by a shell, with each combination of
// the literal arguments (::: a b ::: c) appended or put in place of {};
// with no command words the arguments are the command lines. Arguments
// read from input (no :::, ::::, -a) complete the command unseen; sem runs
// its words as one command line.
func (w *walker) parallel(idx int, ws []word, c ctx, sem bool) {
	i := skipOpts(ws, 1, "adEIjLnNPSsC", []string{"arg-file", "delimiter", "eof", "replace", "jobs", "max-lines",
		"max-args", "max-chars", "sshlogin", "colsep", "joblog", "results", "tmpdir", "workdir", "wd", "env",
		"timeout", "delay", "halt", "retries", "tagstring", "memfree", "load", "basefile", "return",
		"transferfile", "sshloginfile", "block", "recstart", "recend", "termseq", "id"})
	repl, fromInput := "{}", false
	for k := 1; k < i; k++ {
		switch a := ws[k].val; {
		case a == "-I" || a == "--replace":
			if k+1 < i {
				repl = ws[k+1].val
			}
		case strings.HasPrefix(a, "-I"):
			repl = a[2:]
		case strings.HasPrefix(a, "--replace="):
			repl = a[len("--replace="):]
		case a == "-a" || strings.HasPrefix(a, "--arg-file") || strings.HasPrefix(a, "-a") && !strings.HasPrefix(a, "--"):
			fromInput = true
		}
	}
	sep := func(k int) bool { return ws[k].lit && strings.HasPrefix(ws[k].val, ":::") }
	j := i
	for j < len(ws) && !sep(j) {
		j++
	}
	cmdWords := ws[i:j]
	var sources [][]word
	for k := j; k < len(ws); {
		marker := ws[k].val
		k++
		start := k
		for k < len(ws) && !sep(k) {
			k++
		}
		if strings.HasPrefix(marker, "::::") {
			fromInput = true // argument files
			continue
		}
		sources = append(sources, ws[start:k])
	}
	if !sem && len(sources) == 0 {
		fromInput = true // arguments read from standard input
	}
	if sem {
		sources, fromInput = nil, false
	}
	template := ""
	for k, wd := range cmdWords {
		if !wd.lit {
			w.opaque("parallel with a non-literal command word: " + wd.text)
			return
		}
		if k > 0 {
			template += " "
		}
		template += wd.val
	}
	if fromInput {
		// parallel quotes what it puts in place of a replacement string
		// or appends: like the value of an expansion, it is one word,
		// not shown, that is not read as shell syntax.
		if template == "" {
			w.opaque("parallel runs command lines it reads: " + joinText(ws))
			return
		}
		if !strings.ContainsAny(template, "'\"\\;|&<>()$`\n") {
			// Words only: like xargs -I, the words holding a replacement
			// string are not literal; with none, one is appended.
			parts := strings.Fields(template)
			inner := make([]word, 0, len(parts)+1)
			unseen := false
			for _, p := range parts {
				stripped, _ := replaceStrings(p, repl, "")
				lit := stripped == p
				unseen = unseen || !lit
				inner = append(inner, word{val: p, lit: lit, text: p})
			}
			if !unseen {
				inner = append(inner, word{val: repl, lit: false, text: repl})
			}
			w.derive(idx, inner, c, "parallel", nil, nil, stdin{})
			return
		}
		line, ok := replaceStrings(template, repl, `"$PARALLEL_ARG"`)
		if !ok {
			w.opaque("parallel puts what it reads in a quoted part of its command: " + template)
			return
		}
		if line == template {
			line += ` "$PARALLEL_ARG"`
		}
		w.embedded(idx, line, c, "parallel")
		return
	}
	lines := []string{template}
	if !sem {
		lines = lines[:0]
		combos := [][]string{nil}
		for _, src := range sources {
			var next [][]string
			for _, combo := range combos {
				for _, v := range src {
					if !v.lit {
						w.opaque("parallel with a non-literal argument: " + v.text)
						return
					}
					next = append(next, append(combo[:len(combo):len(combo)], v.val))
				}
			}
			if len(next) > maxLines {
				w.opaque("parallel composes too many command lines to analyse")
				return
			}
			combos = next
		}
		for _, combo := range combos {
			if len(combo) == 0 {
				continue
			}
			switch {
			case template == "":
				lines = append(lines, strings.Join(combo, " "))
			case strings.Contains(template, repl):
				// {.}, {/} and the like are made from the argument:
				// not shown.
				line, ok := replaceStrings(strings.ReplaceAll(template, repl, Quote(combo[0])), repl, `"$PARALLEL_ARG"`)
				if !ok {
					w.opaque("parallel puts an argument in a quoted part of its command: " + template)
					return
				}
				lines = append(lines, line)
			default:
				line := template
				for _, v := range combo {
					line += " " + Quote(v)
				}
				lines = append(lines, line)
			}
		}
	}
	for _, line := range lines {
		if line != "" {
			w.embedded(idx, line, c, "parallel")
		}
	}
}

// replaceStrings returns line with GNU parallel's replacement strings
// (repl, {}, {.}, {/}, {//}, {/.}, {#}, {%}, {1}, {2.}, …) replaced by
// with, an expansion; ok is false when one is inside single quotes or
// escaped, where with would not be read as an expansion.
func replaceStrings(line, repl, with string) (out string, ok bool) {
	var b strings.Builder
	single, double := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		n := 0
		if strings.HasPrefix(line[i:], repl) {
			n = len(repl)
		} else if ch == '{' {
			if j := strings.IndexByte(line[i:], '}'); j > 0 && strings.Trim(line[i+1:i+j], "0123456789./#%") == "" {
				n = j + 1
			}
		}
		if n > 0 {
			if single || i > 0 && line[i-1] == '\\' {
				return "", false
			}
			b.WriteString(with)
			i += n - 1
			continue
		}
		switch {
		case ch == '\\' && !single && i+1 < len(line):
			b.WriteByte(ch)
			i++
			ch = line[i]
		case ch == '\'' && !double:
			single = !single
		case ch == '"' && !single:
			double = !double
		}
		b.WriteByte(ch)
	}
	return b.String(), true
}

// git sees through git aliases: `git NAME` where NAME is not one of git's
// builtins runs the alias NAME when one is defined with -c alias.NAME=…,
// in GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n or
// GIT_CONFIG_PARAMETERS given to it, or by `git config alias.NAME …`
// earlier in the script. An alias VALUE is run as git VALUE, one starting
// with "!" as a shell script; every definition found is followed. `git
// config alias.NAME VALUE` records the alias.
func (w *walker) git(idx int, ws []word, c ctx, assigns, redirs []string, in stdin) {
	argv := make([]string, len(ws))
	for k, wd := range ws {
		argv[k] = wd.val
	}
	sub := command.Subcommand(argv)
	if sub >= len(ws) || !ws[sub].lit {
		return
	}
	for k := 1; k < sub; k++ {
		if !ws[k].lit {
			return // a global option not known before it runs
		}
	}
	name := ws[sub].val
	if name == "config" {
		w.gitConfig(ws[sub+1:])
		return
	}
	if command.GitBuiltin(name) {
		return // git ignores an alias of a builtin
	}
	for _, val := range w.gitAliasValues(ws[:sub], assigns, strings.ToLower(name)) {
		rest := ws[sub+1:]
		if script, ok := strings.CutPrefix(strings.TrimSpace(val), "!"); ok {
			// A shell alias: sh -c 'SCRIPT "$@"' with the words after it.
			for _, r := range rest {
				script += " " + r.text
			}
			w.embedded(idx, script, c, "git alias "+name)
			continue
		}
		parts, err := Split(val)
		if err != nil {
			w.opaque("git alias " + name + " cannot be split: " + err.Error())
			continue
		}
		inner := make([]word, 0, sub+len(parts)+len(rest))
		inner = append(inner, ws[:sub]...)
		for _, p := range parts {
			inner = append(inner, word{val: p, lit: true, text: Quote(p)})
		}
		inner = append(inner, rest...)
		w.derive(idx, inner, c, "git alias "+name, assigns, redirs, in)
	}
}

// gitAliasValues returns the values of the alias name (lower case)
// defined by git's global options (-c alias.NAME=VALUE), by the
// assignments given to it and earlier in the script.
func (w *walker) gitAliasValues(global []word, assigns []string, name string) []string {
	var out []string
	key := "alias." + name
	add := func(kv string) {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.ToLower(k) == key {
			out = append(out, v)
		}
	}
	for k := 1; k < len(global); k++ {
		if global[k].val == "-c" && k+1 < len(global) {
			add(global[k+1].val)
			k++
		}
	}
	keys, vals := map[string]string{}, map[string]string{}
	for _, a := range assigns {
		parts, err := Split(a)
		if err != nil || len(parts) != 1 {
			continue
		}
		n, v, _ := strings.Cut(parts[0], "=")
		switch {
		case n == "GIT_CONFIG_PARAMETERS":
			if kvs, err := Split(v); err == nil {
				for _, kv := range kvs {
					add(kv)
				}
			}
		case strings.HasPrefix(n, "GIT_CONFIG_KEY_"):
			keys[n[len("GIT_CONFIG_KEY_"):]] = v
		case strings.HasPrefix(n, "GIT_CONFIG_VALUE_"):
			vals[n[len("GIT_CONFIG_VALUE_"):]] = v
		}
	}
	for i, k := range keys {
		if v, ok := vals[i]; ok {
			add(k + "=" + v)
		}
	}
	if v, ok := w.gitAliases[name]; ok {
		out = append(out, v)
	}
	return out
}

// gitConfig records an alias `git config [options] [set] alias.NAME VALUE`
// defines.
func (w *walker) gitConfig(ws []word) {
	var ops []word
	for k := 0; k < len(ws); k++ {
		a := ws[k].val
		switch {
		case !ws[k].lit:
			ops = append(ops, ws[k])
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment" || a == "--value":
			k++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, ws[k])
		}
	}
	if len(ops) > 0 && ops[0].lit && ops[0].val == "set" {
		ops = ops[1:]
	}
	if len(ops) < 2 || !ops[0].lit || !ops[1].lit {
		return
	}
	key := strings.ToLower(ops[0].val)
	if name, ok := strings.CutPrefix(key, "alias."); ok && name != "" {
		if w.gitAliases == nil {
			w.gitAliases = map[string]string{}
		}
		w.gitAliases[name] = ops[1].val
	}
}
