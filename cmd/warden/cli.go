package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"

	"github.com/wardenhq/warden/internal/cli"
)

// command is one command's flag set and the synopsis its usage starts
// with: cli.Command, with its flag set at hand as fs.
type command struct {
	*cli.Command
	fs *flag.FlagSet
}

// newCommand makes a flag set for the command name whose usage is synopsis
// followed by the flags' descriptions (cli.New).
func newCommand(name, synopsis string, stderr io.Writer) *command {
	c := cli.New(name, synopsis, stderr)
	return &command{Command: c, fs: c.FS}
}

// dbFlag declares the --db flag of a command that opens the store.
func (c *command) dbFlag() *string {
	return c.fs.String("db", "", "the store's database `URL` (default $WARDEN_DB, else $WARDEN_HOME/warden.db)")
}

// usage prints the synopsis and the flags to w.
func (c *command) usage(w io.Writer) { c.Usage(w) }

// parse parses args as cli.Command.Parse does.
func (c *command) parse(args []string, interleaved bool, stdout io.Writer) (pos []string, code int, ok bool) {
	return c.Parse(args, interleaved, stdout)
}

// parseNone parses args as parse does, flags among the operands, for a
// command that takes no operands: any operand is a usage error.
func (c *command) parseNone(args []string, stdout io.Writer) (code int, ok bool) {
	pos, code, ok := c.parse(args, true, stdout)
	if ok && len(pos) != 0 {
		return c.fail("takes no arguments"), false
	}
	return code, ok
}

// parseSome parses args as parse does, flags among the operands, for a
// command that needs at least one operand: none is the usage error
// "missing " + what.
func (c *command) parseSome(args []string, stdout io.Writer, what string) (pos []string, code int, ok bool) {
	pos, code, ok = c.parse(args, true, stdout)
	if ok && len(pos) == 0 {
		return nil, c.fail("missing %s", what), false
	}
	return pos, code, ok
}

// fail reports a usage error: the message, then the usage, on stderr.
func (c *command) fail(format string, args ...any) int { return c.Fail(format, args...) }

// wantsHelp reports whether args ask for help before any "--".
func wantsHelp(args []string) bool {
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[:i]
	}
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "-h" || a == "--help" || a == "-help"
	})
}

// optionalInt is an int flag that may be left unset: its usage shows no
// default, since the default is decided elsewhere (the task's, then the
// library's).
type optionalInt struct {
	n   int
	set bool
}

func (o *optionalInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.n)
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer: %q", s)
	}
	o.n, o.set = n, true
	return nil
}

// versionCmd prints the module version and VCS commit warden was built
// from, as recorded in its build information.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden version", "usage: warden version\n\nPrints the module version and the commit warden was built from.\n", stderr)
	if code, ok := c.parseNone(args, stdout); !ok {
		return code
	}
	fmt.Fprintln(stdout, versionText(debug.ReadBuildInfo()))
	return exitOK
}

// versionText renders build information as "warden VERSION (commit C)":
// "(devel)" when the module version is unknown, "unknown" when no commit
// was recorded, and "+dirty" when the tree had changes.
func versionText(bi *debug.BuildInfo, ok bool) string {
	version, commit, dirty := "(devel)", "unknown", false
	if ok && bi != nil {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if s.Value != "" {
					commit = s.Value
				}
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if dirty && commit != "unknown" {
		commit += "+dirty"
	}
	return fmt.Sprintf("warden %s (commit %s)", version, commit)
}
