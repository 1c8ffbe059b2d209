package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hook/install"
	"github.com/wardenhq/warden/internal/shell"
)

const hookInstallUsage = `usage: warden hook install HOST [--scope user|project] [--uninstall]
       warden hook doctor HOST [--scope user|project]

install writes warden's hooks into HOST's configuration (claude-code:
.claude/settings.json; codex: hooks.json in $CODEX_HOME or .codex/, with its
trust in $CODEX_HOME/config.toml; gemini: .gemini/settings.json; cursor:
.cursor/hooks.json), in the person's home (--scope user, the default) or the
working directory (--scope project). Other hooks and settings are kept;
installing twice changes nothing; a file that changes is backed up first as
FILE.warden-backup-TIME. --uninstall removes warden's hooks only.

doctor says whether HOST runs warden's hooks as installed, and plainly when
it would skip them (Codex skips hooks nobody trusted). Exit 0 when it does,
1 when it would not, 2 on a usage or configuration error.
`

// hookInstallCmd implements `warden hook install` and, with doctor,
// `warden hook doctor`.
func hookInstallCmd(args []string, stdout, stderr io.Writer, doctor bool) int {
	name := "warden hook install"
	if doctor {
		name = "warden hook doctor"
	}
	c := newCommand(name, hookInstallUsage, stderr)
	scope := c.fs.String("scope", "user", "where: user (the person's home) or project (the working directory)")
	var uninstall *bool
	if !doctor {
		uninstall = c.fs.Bool("uninstall", false, "remove warden's hooks instead")
	}
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.fail("give one HOST")
	}
	h, err := hook.Lookup(pos[0])
	if err != nil {
		return c.fail("%v", err)
	}
	p, err := hookPlace(*scope, h.Name)
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	var r install.Report
	if doctor {
		r, err = install.Doctor(h, p)
	} else {
		r, err = install.Install(h, p, *uninstall)
	}
	for _, l := range r.Lines {
		fmt.Fprintln(stdout, l)
	}
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	if !r.OK {
		return exitError
	}
	return exitOK
}

// hookPlace is where a scope's files are, and the command hosts run:
// warden-hook beside this warden, by its absolute path, where it is there
// (the fast path, docs/hooks.md "Speed"), else this warden.
func hookPlace(scope, host string) (install.Place, error) {
	p := install.Place{Scope: scope, CodexHome: os.Getenv("CODEX_HOME")}
	var err error
	if p.Home, err = os.UserHomeDir(); err != nil {
		return p, err
	}
	if p.Project, err = os.Getwd(); err != nil {
		return p, err
	}
	exe, err := os.Executable()
	if err != nil {
		return p, err
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return p, err
	}
	p.Command = hookCommand(exe, host)
	return p, nil
}

// hookCommand is the command a host runs for warden at exe: warden-hook
// beside it when it is there (an executable file), else `EXE hook HOST`.
func hookCommand(exe, host string) string {
	fast := filepath.Join(filepath.Dir(exe), install.FastCommand)
	if fi, err := os.Stat(fast); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return shell.Quote(fast) + " " + host
	}
	return shell.Quote(exe) + " hook " + host
}
