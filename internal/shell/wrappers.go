package shell

import (
	"slices"
	"strings"

	"github.com/wardenhq/warden/internal/command"
)

// emit records a simple command and sees through it when it is a wrapper.
func (w *walker) emit(words []word, c ctx, assigns, redirs []string, in stdin, text string) {
	if w.full() {
		return
	}
	cmd := Command{Assigns: assigns, Redirects: redirs, Inputs: c.inputs, Text: text, MoreArgs: c.moreArgs}
	if in.kind == stdinDoc {
		cmd.Doc = in.src
	}
	if n := len(words); n > 0 {
		if cap(w.argArena)-len(w.argArena) < n {
			size := w.arenaSize(n, cap(w.argArena))
			if cap(w.argArena) == 0 {
				size += size / 2 // a wrapper's command has its words again
			}
			w.argArena, w.litArena = make([]string, 0, size), make([]bool, 0, size)
		}
		start := len(w.argArena)
		for _, wd := range words {
			w.argArena = append(w.argArena, wd.val)
			w.litArena = append(w.litArena, wd.lit)
		}
		cmd.Args = w.argArena[start : start+n : start+n]
		cmd.Literal = w.litArena[start : start+n : start+n]
	}
	idx := w.add(cmd, c)
	if len(words) == 0 {
		return
	}
	if !words[0].lit {
		w.opaque("program name is not literal: " + words[0].text)
		return
	}
	w.unwrap(idx, words, c, assigns, redirs, in)
}

// derive records inner, the command run by the wrapper at index idx.
func (w *walker) derive(idx int, inner []word, c ctx, wrapper string, assigns, redirs []string, in stdin) {
	if len(inner) == 0 {
		return // nothing wrapped: the command is judged as itself
	}
	w.s.Commands[idx].Unwrapped = true
	if w.depth >= maxDepth {
		w.opaque("wrappers nested too deep to analyse")
		return
	}
	w.depth++
	cc := c
	cc.wrappers = appendWrapper(c.wrappers, wrapper)
	if wrapper != "xargs" {
		cc.repl = ""
	}
	w.emit(inner, cc, assigns, redirs, in, joinText(inner))
	w.depth--
}

// embedded walks src, a script run by the wrapper at index idx.
func (w *walker) embedded(idx int, src string, c ctx, wrapper string) {
	w.s.Commands[idx].Unwrapped = true
	w.script(src, c, wrapper)
}

// shells are the programs whose -c argument is a shell script.
var shells = map[string]bool{
	"sh": true, "bash": true, "rbash": true, "zsh": true, "dash": true, "ksh": true,
	"ksh93": true, "mksh": true, "lksh": true, "pdksh": true, "ash": true, "yash": true,
	"posh": true, "fish": true, "csh": true, "tcsh": true,
}

// ShellNames returns the names IsShell knows, unsorted.
func ShellNames() []string {
	names := make([]string, 0, len(shells))
	for n := range shells {
		names = append(names, n)
	}
	return names
}

// IsShell reports whether name (a program name or path) is a shell
// interpreter such as sh, bash or zsh.
func IsShell(name string) bool { return shells[Base(name)] }

// unwrap sees through the command words[0] when it is a wrapper.
func (w *walker) unwrap(idx int, ws []word, c ctx, assigns, redirs []string, in stdin) {
	name := Base(ws[0].val)
	switch name {
	case "sudo":
		i := skipOpts(ws, 1, "CDgpRrTtUu", []string{"close-from", "chdir", "group", "host", "prompt",
			"chroot", "role", "type", "command-timeout", "other-user", "user"})
		if hasFlag(ws[1:i], "elvVK", "CDgpRrTtUu", []string{"edit", "list", "validate", "version", "help", "remove-timestamp"}) {
			return
		}
		i, as := skipAssigns(ws, i, assigns)
		w.derive(idx, ws[i:], c, "sudo", as, redirs, in)
	case "doas":
		i := skipOpts(ws, 1, "uC", nil)
		if hasFlag(ws[1:i], "C", "u", nil) {
			return
		}
		w.derive(idx, ws[i:], c, "doas", assigns, redirs, in)
	case "pkexec":
		i := skipOpts(ws, 1, "", []string{"user"})
		w.derive(idx, ws[i:], c, "pkexec", assigns, redirs, in)
	case "env":
		w.env(idx, ws, c, assigns, redirs, in)
	case "nice":
		i := skipOpts(ws, 1, "n", []string{"adjustment"})
		w.derive(idx, ws[i:], c, "nice", assigns, redirs, in)
	case "ionice":
		i := skipOpts(ws, 1, "cnpPu", []string{"class", "classdata", "pid", "pgid", "uid"})
		if hasFlag(ws[1:i], "pPu", "cnpPu", []string{"pid", "pgid", "uid"}) {
			return
		}
		w.derive(idx, ws[i:], c, "ionice", assigns, redirs, in)
	case "timeout":
		i := skipOpts(ws, 1, "sk", []string{"signal", "kill-after"})
		if i < len(ws) {
			i++ // the duration
		}
		w.derive(idx, ws[i:], c, "timeout", assigns, redirs, in)
	case "nohup", "setsid":
		i := skipOpts(ws, 1, "", nil)
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "unbuffer", "eatmydata", "chronic", "fakeroot", "firejail":
		// Programs that run the rest of their words as a command.
		i := skipOpts(ws, 1, "lsib", []string{"lib", "faked", "save-file", "load-file", "fd-base"})
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "caffeinate":
		i := skipOpts(ws, 1, "wt", nil)
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "strace", "ltrace":
		i := skipOpts(ws, 1, "abeEIoOpPsSuUXnAL", []string{"output", "signal", "trace", "user", "env", "string-limit"})
		if hasFlag(ws[1:i], "p", "abeEIoOpPsSuUXnAL", []string{"attach"}) {
			return
		}
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "systemd-run":
		i := skipOpts(ws, 1, "pEuMHd", []string{"property", "setenv", "unit", "machine", "host", "uid", "gid",
			"nice", "working-directory", "slice", "description", "on-active", "on-calendar", "on-boot", "timer-property", "path-property", "socket-property", "service-type"})
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "taskset", "chrt":
		i := skipOpts(ws, 1, "TPD", []string{"sched-runtime", "sched-period", "sched-deadline"})
		if hasFlag(ws[1:i], "pm", "TPD", []string{"pid", "max"}) {
			return
		}
		if i < len(ws) {
			i++ // the CPU mask or the priority
		}
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "flock":
		i := skipOpts(ws, 1, "wE", []string{"timeout", "conflict-exit-code"})
		if i < len(ws) {
			i++ // the lock file
		}
		if i+1 < len(ws) && ws[i].lit && (ws[i].val == "-c" || ws[i].val == "--command") {
			if !ws[i+1].lit {
				w.opaque("flock -c with a non-literal command: " + ws[i+1].text)
				return
			}
			w.embedded(idx, ws[i+1].val, c, "flock -c")
			return
		}
		w.derive(idx, ws[i:], c, name, assigns, redirs, in)
	case "script":
		for i := 1; i+1 < len(ws); i++ {
			if ws[i].lit && (ws[i].val == "-c" || ws[i].val == "--command" || strings.HasSuffix(ws[i].val, "c") && strings.HasPrefix(ws[i].val, "-") && !strings.HasPrefix(ws[i].val, "--")) {
				if !ws[i+1].lit {
					w.opaque("script -c with a non-literal command: " + ws[i+1].text)
					return
				}
				w.embedded(idx, ws[i+1].val, c, "script -c")
				return
			}
		}
	case "parallel", "sem":
		w.parallel(idx, ws, c, name == "sem")
	case "stdbuf":
		i := skipOpts(ws, 1, "ioe", []string{"input", "output", "error"})
		w.derive(idx, ws[i:], c, "stdbuf", assigns, redirs, in)
	case "chroot":
		i := skipOpts(ws, 1, "", []string{"userspec", "groups"})
		if i < len(ws) {
			i++ // the new root
		}
		w.derive(idx, ws[i:], c, "chroot", assigns, redirs, in)
	case "busybox", "toybox":
		if len(ws) > 1 && ws[1].lit && !strings.HasPrefix(ws[1].val, "-") {
			w.derive(idx, ws[1:], c, name, assigns, redirs, in)
		}
	case "command":
		i := skipOpts(ws, 1, "", nil)
		if hasFlag(ws[1:i], "vV", "", nil) {
			return
		}
		w.derive(idx, ws[i:], c, "command", assigns, redirs, in)
	case "builtin":
		w.derive(idx, ws[1:], c, "builtin", assigns, redirs, in)
	case "exec":
		i := skipOpts(ws, 1, "a", nil)
		w.derive(idx, ws[i:], c, "exec", assigns, redirs, in)
	case "time":
		i := skipOpts(ws, 1, "fo", []string{"format", "output"})
		w.derive(idx, ws[i:], c, "time", assigns, redirs, in)
	case "xargs":
		w.xargs(idx, ws, c, assigns, redirs)
	case "find":
		w.find(idx, ws, c, assigns, redirs)
	case "watch":
		i := skipOpts(ws, 1, "nq", []string{"interval", "equexit"})
		if hasFlag(ws[1:i], "x", "nq", []string{"exec"}) {
			w.derive(idx, ws[i:], c, "watch", assigns, redirs, in)
			return
		}
		w.joined(idx, ws[i:], c, "watch")
	case "su", "runuser":
		for i := 1; i < len(ws); i++ {
			a := ws[i].val
			if !ws[i].lit {
				continue
			}
			var script *word
			switch {
			case a == "-c" || a == "--command" || a == "--session-command":
				if i+1 < len(ws) {
					script = &ws[i+1]
				}
			case strings.HasPrefix(a, "--command="), strings.HasPrefix(a, "--session-command="):
				v := a[strings.IndexByte(a, '=')+1:]
				script = &word{val: v, lit: true}
			case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'c') > 0:
				j := strings.IndexByte(a, 'c')
				if j == len(a)-1 {
					if i+1 < len(ws) {
						script = &ws[i+1]
					}
				} else {
					script = &word{val: a[j+1:], lit: true}
				}
			}
			if script != nil {
				if !script.lit {
					w.opaque(name + " -c with a non-literal command: " + script.text)
					return
				}
				w.embedded(idx, script.val, c, name+" -c")
				return
			}
		}
		if name == "runuser" {
			// runuser -u USER [--] COMMAND…
			i := skipOpts(ws, 1, "ugGw", []string{"user", "group", "supp-group", "whitelist-environment"})
			if hasFlag(ws[1:i], "u", "ugGw", []string{"user"}) {
				w.derive(idx, ws[i:], c, name, assigns, redirs, in)
			}
		}
	case "eval":
		w.joined(idx, ws[1:], c, "eval")
	case "alias":
		for _, a := range ws[1:] {
			if a.lit && strings.HasPrefix(a.val, "-") {
				continue
			}
			if !a.lit {
				w.opaque("alias with a non-literal definition: " + a.text)
				continue
			}
			if name, val, ok := strings.Cut(a.val, "="); ok && val != "" {
				// Its uses are expanded after the walk (expandAliases).
				w.embedded(idx, val, c, "alias "+name)
			}
		}
	case "source", ".":
		if len(ws) > 1 {
			w.opaque(name + " of a file: its commands cannot be seen")
		}
	case "trap":
		i := 1
		if i < len(ws) && ws[i].lit && ws[i].val == "--" {
			i++
		}
		if i >= len(ws) {
			return
		}
		a := ws[i]
		if a.lit && (a.val == "-" || a.val == "" || isDigits(a.val) || strings.HasPrefix(a.val, "-")) {
			return
		}
		if !a.lit {
			w.opaque("trap with a non-literal action: " + a.text)
			return
		}
		w.embedded(idx, a.val, c, "trap")
	case "git":
		w.git(idx, ws, c, assigns, redirs, in)
	case "at", "batch":
		// at and batch read the commands they run later from their input.
		if in.kind == stdinDoc {
			if !in.lit {
				w.opaque(name + " reads commands with expansions from a here-document")
				return
			}
			w.embedded(idx, in.body, c, name+" <<")
		}
	default:
		if shells[name] {
			w.shell(idx, name, ws, c, in)
			return
		}
		if sub, ok := strings.CutPrefix(name, "git-"); ok && command.GitCommand(sub) {
			// git's helper programs (git-core/git-push) are git SUB.
			inner := make([]word, 0, len(ws)+1)
			inner = append(inner, word{val: "git", lit: true, text: "git"}, word{val: sub, lit: true, text: sub})
			inner = append(inner, ws[1:]...)
			w.derive(idx, inner, c, name, assigns, redirs, in)
			return
		}
		w.runners(idx, name, ws, c, assigns, redirs, in)
	}
}

// joined runs words joined by spaces as a script (eval, watch).
func (w *walker) joined(idx int, ws []word, c ctx, wrapper string) {
	if len(ws) == 0 {
		return
	}
	vals := make([]string, len(ws))
	for i, a := range ws {
		if !a.lit {
			w.opaque(wrapper + " of a non-literal argument: " + a.text)
			return
		}
		vals[i] = a.val
	}
	w.embedded(idx, strings.Join(vals, " "), c, wrapper)
}

// shell sees through sh/bash/zsh/…: -c STRING, or a here-document or
// here-string on standard input.
func (w *walker) shell(idx int, name string, ws []word, c ctx, in stdin) {
	i, cflag, sflag := 1, false, false
	for i < len(ws) {
		if !ws[i].lit {
			break
		}
		a := ws[i].val
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			if a == "--rcfile" || a == "--init-file" {
				i += 2
			} else {
				i++
			}
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			args := 0
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'c':
					cflag = cflag || a[0] == '-'
				case 's':
					sflag = sflag || a[0] == '-'
				case 'o', 'O':
					args++
				}
			}
			i += 1 + args
			continue
		}
		break
	}
	i = min(i, len(ws))
	switch {
	case cflag:
		if i >= len(ws) {
			if c.moreArgs {
				w.opaque(name + " -c runs a script read from its input: " + joinText(ws))
			}
			return
		}
		if !ws[i].lit {
			w.opaque(name + " -c with a non-literal script: " + ws[i].text)
			return
		}
		if c.repl != "" && strings.Contains(ws[i].val, c.repl) {
			w.opaque(name + " -c runs a script that xargs completes with what it reads: " + ws[i].text)
		}
		w.embedded(idx, ws[i].val, c, name+" -c")
	case i < len(ws) && !sflag:
		// A script file: like running a program, unless it is not literal
		// (bash <(curl …), bash "$f").
		if !ws[i].lit {
			w.opaque(name + " runs a script that is not literal: " + ws[i].text)
		}
	case in.kind == stdinDoc:
		if !in.lit {
			w.opaque(name + " reads a script with expansions from a here-document")
			return
		}
		w.embedded(idx, in.body, c, name+" <<")
	case in.kind == stdinFile:
		// Reads a script file: like running it.
	case c.stdinPipe:
		w.opaque(name + " reads its script from a pipe")
	}
}

// env: options, NAME=value assignments, then the command.
func (w *walker) env(idx int, ws []word, c ctx, assigns, redirs []string, in stdin) {
	i := 1
	for i < len(ws) {
		if !ws[i].lit {
			break
		}
		a := ws[i].val
		if a == "--" {
			i++
			break
		}
		if a == "-" {
			i++
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		var split *word
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "unset", "chdir":
				if !hasVal {
					i++
				}
			case "split-string":
				if hasVal {
					split = &word{val: val, lit: true}
				} else if i+1 < len(ws) {
					split = &ws[i+1]
					i++
				}
			}
			i++
		} else {
			j := 1
			for ; j < len(a) && strings.IndexByte("uCSP", a[j]) < 0; j++ {
			}
			if j < len(a) {
				if a[j] == 'S' {
					if j < len(a)-1 {
						split = &word{val: a[j+1:], lit: true}
					} else if i+1 < len(ws) {
						split = &ws[i+1]
						i++
					}
				} else if j == len(a)-1 {
					i++
				}
			}
			i++
		}
		if split != nil {
			if !split.lit {
				w.opaque("env -S with a non-literal string: " + split.text)
				return
			}
			parts, err := Split(split.val)
			if err != nil {
				w.opaque("env -S string cannot be split: " + err.Error())
				return
			}
			rest := make([]word, 0, len(parts)+len(ws)-i+1)
			rest = append(rest, ws[0])
			for _, p := range parts {
				rest = append(rest, word{val: p, lit: true, text: Quote(p)})
			}
			rest = append(rest, ws[min(i, len(ws)):]...)
			if w.depth >= maxDepth {
				w.opaque("wrappers nested too deep to analyse")
				return
			}
			w.depth++
			w.env(idx, rest, c, assigns, redirs, in)
			w.depth--
			return
		}
	}
	i, as := skipAssigns(ws, min(i, len(ws)), assigns)
	w.derive(idx, ws[i:], c, "env", as, redirs, in)
}

// find: each -exec/-execdir/-ok/-okdir command, up to ; or {} +.
func (w *walker) find(idx int, ws []word, c ctx, assigns, redirs []string) {
	for i := 1; i < len(ws); i++ {
		if !ws[i].lit {
			continue
		}
		switch a := ws[i].val; a {
		case "-exec", "-execdir", "-ok", "-okdir":
			start := i + 1
			end := start
			for ; end < len(ws); end++ {
				v := ws[end].val
				if ws[end].lit && (v == ";" || v == "+" && end > start && ws[end-1].val == "{}") {
					break
				}
			}
			w.derive(idx, ws[start:end], c, "find "+a, assigns, redirs, stdin{})
			i = end
		}
	}
}

// skipOpts returns the index of the first operand at or after i, skipping
// options: short options in argShort and long options (without dashes) in
// argLong take an argument (attached, or the next word); "--" is skipped
// and ends the options; a non-literal word ends them.
func skipOpts(ws []word, i int, argShort string, argLong []string) int {
	for i < len(ws) {
		if !ws[i].lit {
			return i
		}
		a := ws[i].val
		if a == "--" {
			return i + 1
		}
		if len(a) < 2 || a[0] != '-' {
			return i
		}
		if a[1] == '-' {
			if strings.IndexByte(a, '=') < 0 && slices.Contains(argLong, a[2:]) {
				i += 2
			} else {
				i++
			}
			continue
		}
		j := 1
		for ; j < len(a) && strings.IndexByte(argShort, a[j]) < 0; j++ {
		}
		if j == len(a)-1 {
			i += 2 // the argument is the next word
		} else {
			i++
		}
	}
	return min(i, len(ws))
}

// hasFlag reports whether the option words opts set one of the short flags
// in flags (looking at each cluster up to an option that takes an argument)
// or one of the long options in long.
func hasFlag(opts []word, flags, argShort string, long []string) bool {
	for k := 0; k < len(opts); k++ {
		a := opts[k].val
		if !opts[k].lit || len(a) < 2 || a[0] != '-' {
			continue
		}
		if a[1] == '-' {
			name, _, _ := strings.Cut(a[2:], "=")
			if slices.Contains(long, name) {
				return true
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(flags, a[j]) >= 0 {
				return true
			}
			if strings.IndexByte(argShort, a[j]) >= 0 {
				if j == len(a)-1 {
					k++ // skip its argument word
				}
				break
			}
		}
	}
	return false
}

// skipAssigns skips NAME=value words from i, returning the next index and
// the assignments appended to assigns (copied).
func skipAssigns(ws []word, i int, assigns []string) (int, []string) {
	out := assigns
	for i < len(ws) && (ws[i].lit && isAssign(ws[i].val) || !ws[i].lit && isAssign(ws[i].text)) {
		out = append(out[:len(out):len(out)], ws[i].text)
		i++
	}
	return i, out
}

// isAssign reports whether s looks like NAME=value.
func isAssign(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
