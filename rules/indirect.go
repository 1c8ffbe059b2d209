package rules

import (
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/shell"
)

// indirectDanger checks a command that runs code the command line only
// passes on: inline code of interpreters, git configuration that runs
// commands, makefiles from standard input, containers that mount the host,
// cron tables, writes into files that run later, and credential files read
// through input redirection. It returns the reason or "".
func indirectDanger(c *shell.Command, name string) string {
	for _, in := range c.Inputs {
		if r := sensitivePath(unquote(in)); r != "" {
			return r
		}
	}
	if r := xargsDanger(c, name); r != "" {
		return r
	}
	args := c.Args
	if name != "git" {
		if r, ok := command.RunsOther(args); ok {
			return "security: " + r
		}
	}
	if in, ok := command.InlineCode(args); ok {
		if !in.Literal(c.Literal) {
			return "security: " + name + " runs code made when the command runs (a substitution or variable), not shown"
		}
		if !in.Known {
			return "security: " + name + " runs code from a file or standard input that the command does not show"
		}
		e := command.CodeEffects(in)
		switch {
		case e.Net && e.Secret:
			return "exfiltration: " + name + " runs inline code that sends secrets over the network"
		case e.Exec:
			return "security: " + name + " runs inline code that starts other programs"
		case e.Destroy:
			return "destructive: " + name + " runs inline code that deletes or changes files"
		case e.Secret:
			return "credentials: " + name + " runs inline code that reads the environment or credential files"
		case e.Net:
			return "exfiltration: " + name + " runs inline code that uses the network"
		case e.Write && writesOutside(in.Code):
			// Writes to relative paths stay in the sandbox's bounds.
			return "security: " + name + " runs inline code that writes files outside the working directory"
		}
	}
	switch name {
	case "git":
		for _, kv := range command.GitConfigs(args) {
			k, v, _ := strings.Cut(kv, "=")
			k = strings.ToLower(k)
			if command.GitConfigRunsCommand(k) && (!strings.HasPrefix(k, "alias.") || strings.HasPrefix(strings.TrimSpace(v), "!")) {
				return "security: git -c " + k + " runs a command"
			}
			if strings.ContainsAny(k, "$`") {
				return "security: git -c with a setting whose name is not known before it runs"
			}
		}
	case "make", "gmake":
		if r := command.MakefileFromInput(args); r != "" {
			return "security: " + r
		}
	case "docker", "podman":
		return containerDanger(args)
	case "crontab":
		p, _ := command.Parse(args)
		if p.Has("list") || p.Has("remove") {
			return ""
		}
		if len(p.Operands) > 0 || p.Has("edit") || len(args) == 1 {
			return "security: crontab installs cron jobs that run later"
		}
	case "cp", "mv", "install", "ln", "tee", "rsync":
		ops := shell.Operands(args, "StmogT", "suffix", "target-directory", "mode", "owner", "group")
		targets := ops
		if name != "tee" && len(ops) > 0 {
			targets = ops[len(ops)-1:]
		}
		targets = append(targets, shell.OptValues(args, "t", "target-directory")...)
		for _, t := range targets {
			if ok, what := command.Persistent(unquote(t)); ok {
				return "security: " + name + " writes " + what + " (" + t + ")"
			}
		}
	case "sed", "perl":
		if shell.HasShort(args, 'i', "ef") || shell.HasLong(args, "in-place") {
			for _, t := range shell.Operands(args, "efl", "expression", "file", "line-length") {
				if ok, what := command.Persistent(unquote(t)); ok {
					return "security: " + name + " -i edits " + what + " (" + t + ")"
				}
			}
		}
	}
	for _, t := range c.Redirects {
		if ok, what := command.Persistent(unquote(t)); ok {
			return "security: writes " + what + " (" + t + ")"
		}
	}
	if (strings.Contains(c.Text, "WARDEN") || strings.Contains(c.Text, "warden")) && // what every name below holds
		(strings.Contains(c.Text, "WARDEN_HOME") || strings.Contains(c.Text, ".warden/") || strings.HasSuffix(c.Text, ".warden") ||
			strings.Contains(c.Text, "WARDEN_MANAGED_CONFIG") || strings.Contains(c.Text, "/etc/warden")) {
		return "security: touches warden's own state"
	}
	return ""
}

// containerDanger checks docker/podman run, create and exec for access to
// the host: its root or system directories mounted, privileged mode, the
// host's process or network namespace, the Docker socket.
func containerDanger(args []string) string {
	p, ok := command.Parse(args)
	if !ok || len(p.Path) < 2 {
		return ""
	}
	switch p.Path[len(p.Path)-1] {
	case "run", "create", "exec":
	default:
		return ""
	}
	if p.Has("privileged") {
		return "security: " + p.Path[0] + " runs a privileged container (full access to the host)"
	}
	for _, o := range p.Options {
		v := strings.ToLower(o.Value)
		switch o.Name {
		case "pid", "ipc", "uts", "userns", "cgroupns":
			if v == "host" {
				return "security: " + p.Path[0] + " shares the host's " + o.Name + " namespace"
			}
		case "cap-add":
			if v == "all" || v == "sys_admin" || v == "cap_sys_admin" || v == "sys_ptrace" {
				return "security: " + p.Path[0] + " grants the container " + o.Value
			}
		case "security-opt":
			if strings.Contains(v, "unconfined") || strings.Contains(v, "disable") {
				return "security: " + p.Path[0] + " turns the container's confinement off (" + o.Value + ")"
			}
		case "volume", "mount", "device":
			src := o.Value
			if o.Name == "mount" {
				src = ""
				for _, kv := range strings.Split(o.Value, ",") {
					if k, v, _ := strings.Cut(kv, "="); k == "source" || k == "src" {
						src = v
					}
				}
			} else if i := strings.IndexByte(src, ':'); i >= 0 {
				src = src[:i]
			}
			if hostMount(src) {
				return "security: " + p.Path[0] + " mounts the host's " + src + " into a container"
			}
		}
	}
	return ""
}

// hostMount reports whether mounting the host path src into a container
// exposes the host: its root, system directories, home directories, the
// container runtime's socket, or a path not known before the command runs.
func hostMount(src string) bool {
	src = unquote(src)
	for _, wd := range []string{"$PWD", "${PWD}", "$(pwd)", "`pwd`"} {
		if rest, ok := strings.CutPrefix(src, wd); ok && (rest == "" || rest[0] == '/' && !strings.Contains(rest, "..")) {
			return false // the working directory
		}
	}
	if src == "" || strings.ContainsAny(src, "$`") {
		return src != ""
	}
	if src == "~" || strings.HasPrefix(src, "~/") && path.Clean(src[2:]) == "." {
		return true
	}
	if !strings.HasPrefix(src, "/") {
		return false
	}
	c := path.Clean(src)
	if c == "/" || strings.HasSuffix(c, ".sock") || strings.HasPrefix(c, "/dev") || strings.HasPrefix(c, "/proc") || strings.HasPrefix(c, "/sys") {
		return true
	}
	if b := broad(c); b != "" {
		return true
	}
	for _, d := range []string{"/etc", "/root", "/home", "/Users", "/boot", "/var/run", "/run", "/usr", "/bin", "/sbin", "/lib", "/var/lib"} {
		if c == d || strings.HasPrefix(c, d+"/") && (d == "/etc" || d == "/root" || d == "/boot" || d == "/var/run" || d == "/run") {
			return true
		}
	}
	return false
}

// writtenThenRun finds commands that run a file an earlier command of the
// script writes or downloads (curl -o s && sh s, echo … > s.sh && bash
// s.sh, chmod +x f && ./f): what that file does is not in the script's
// words.
func writtenThenRun(sc *shell.Script) []string {
	var written []string
	var out []string
	for i := range sc.Commands {
		c := &sc.Commands[i]
		if f := runsFile(c); f != "" {
			for _, w := range written {
				if samePath(w, f) {
					out = append(out, "security: "+c.Text+" runs "+f+", which this script writes (its code is not in the command)")
					break
				}
			}
		}
		for _, t := range c.Redirects {
			written = append(written, unquote(t))
		}
		written = append(written, outputs(c)...)
	}
	return out
}

// runsFile returns the file c runs as a program or script: the program
// when it is a path (./f, /tmp/x), the script operand of a shell or
// interpreter, the file of source or "."; "" otherwise.
func runsFile(c *shell.Command) string {
	if len(c.Args) == 0 {
		return ""
	}
	prog := c.Args[0]
	if strings.IndexByte(prog, '/') >= 0 {
		return prog
	}
	name := shell.Base(prog)
	if name == "source" || name == "." {
		if len(c.Args) > 1 {
			return c.Args[1]
		}
		return ""
	}
	if !traitsOf(name).is(tShell | tInterpreter | tPython) {
		return ""
	}
	if _, ok := command.InlineCode(c.Args); ok {
		return ""
	}
	for i := 1; i < len(c.Args); i++ {
		a := c.Args[i]
		if a == "-c" || a == "-e" || a == "-m" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// outputs returns the files c writes by its options and operands: curl
// -o, wget -O, cp/mv/install/ln/tee targets, touch, chmod operands (a
// file made executable counts as written).
func outputs(c *shell.Command) []string {
	if len(c.Args) == 0 {
		return nil
	}
	name := shell.Base(c.Args[0])
	var out []string
	switch name {
	case "curl", "wget":
		p, _ := command.Parse(c.Args)
		out = append(out, p.Values("output")...)
		out = append(out, p.Values("output-document")...)
		if p.Has("remote-name") || name == "wget" && !p.Has("output-document") {
			for _, u := range p.Operands {
				if i := strings.LastIndexByte(strings.SplitN(u, "?", 2)[0], '/'); i >= 0 {
					out = append(out, strings.SplitN(u, "?", 2)[0][i+1:])
				}
			}
		}
	case "cp", "mv", "install", "ln", "tee", "touch", "chmod", "dd", "unzip", "tar", "base64", "xxd", "gunzip", "gzip":
		ops := shell.Operands(c.Args, "")
		out = append(out, ops...)
		for _, a := range c.Args[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, v)
			}
		}
	}
	for i := range out {
		out[i] = unquote(out[i])
	}
	return out
}

// samePath reports whether two words name the same file as far as their
// text shows (./s and s are the same).
func samePath(a, b string) bool {
	a, b = unquote(a), unquote(b)
	if a == "" || b == "" {
		return false
	}
	return path.Clean(a) == path.Clean(b)
}

// destroyers are programs that delete or change the files they are given.
var destroyers = map[string]bool{
	"rm": true, "shred": true, "unlink": true, "rmdir": true, "chmod": true, "chown": true, "chgrp": true,
	"mv": true, "truncate": true, "dd": true, "srm": true, "wipe": true,
}

// findExecDanger checks find -exec/-execdir/-ok/-okdir running a program
// that deletes or changes files under a broad starting point.
func findExecDanger(args []string) string {
	for i, a := range args {
		if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(args) {
			prog := shell.Base(args[i+1])
			if !destroyers[prog] {
				continue
			}
			for _, r := range command.FindRoots(args) {
				if c := path.Clean(unquote(r)); c == "." || c == ".." {
					continue // the workspace: scoped by find's tests
				}
				if b := broad(r); b != "" || strings.ContainsAny(r, "$`") {
					return "destructive: find " + a + " " + prog + " under " + r
				}
			}
		}
	}
	return ""
}

// xargsDanger checks a program that deletes or changes files run by
// xargs: the paths it acts on are read from input, not shown.
func xargsDanger(c *shell.Command, name string) string {
	if n := len(c.Wrappers); n > 0 && c.Wrappers[n-1] == "xargs" && destroyers[name] {
		return "destructive: xargs " + name + " acts on paths read from its input"
	}
	return ""
}

// writesOutside reports whether code names a path outside the working
// directory: an absolute or home path, or one leaving it with "..".
func writesOutside(code string) bool {
	for _, q := range []string{`"/`, `'/`, `"~`, `'~`, "..", "$HOME", "expanduser", "homedir", "os.homedir"} {
		if strings.Contains(code, q) {
			return true
		}
	}
	return false
}
