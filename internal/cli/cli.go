// Package cli is what warden's commands share of their command line: a
// command's flag set with its usage, the parsing of flags among positional
// arguments, and a repeatable flag. Both mains (cmd/warden and
// cmd/warden-hook) use it, so a command parses alike in either.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes of a command's parsing: the usage asked for, or a usage
// error.
const (
	ExitOK    = 0
	ExitUsage = 2
)

// Command is one command's flag set and the synopsis its usage starts
// with.
type Command struct {
	// FS holds the command's flags.
	FS       *flag.FlagSet
	synopsis string
}

// New makes a flag set for the command name whose usage is synopsis
// followed by the flags' descriptions. Errors and usage go to stderr;
// usage asked for with -h or --help goes to stdout (see Parse).
func New(name, synopsis string, stderr io.Writer) *Command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // Parse prints the usage, to the right stream
	return &Command{FS: fs, synopsis: synopsis}
}

// Usage prints the synopsis and the flags to w.
func (c *Command) Usage(w io.Writer) {
	out := c.FS.Output()
	defer c.FS.SetOutput(out)
	fmt.Fprint(w, c.synopsis)
	c.FS.SetOutput(w)
	hasFlags := false
	c.FS.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		c.FS.PrintDefaults()
	}
}

// Parse parses args; with interleaved, flags may also follow positional
// arguments (`warden run task.yaml --model M`), else parsing stops at the
// first one (`warden exec -- CMD`). ok is false when the command is done:
// code is then ExitOK after -h/--help (the usage went to stdout) or
// ExitUsage after a bad flag (the error and usage went to stderr).
func (c *Command) Parse(args []string, interleaved bool, stdout io.Writer) (pos []string, code int, ok bool) {
	var err error
	if interleaved {
		pos, err = Interleaved(c.FS, args)
	} else if err = c.FS.Parse(args); err == nil {
		pos = c.FS.Args()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.Usage(stdout)
		return nil, ExitOK, false
	case err != nil:
		c.Usage(c.FS.Output())
		return nil, ExitUsage, false
	}
	return pos, ExitOK, true
}

// Fail reports a usage error: the message, then the usage, on stderr; it
// returns ExitUsage.
func (c *Command) Fail(format string, args ...any) int {
	w := c.FS.Output()
	fmt.Fprintf(w, "%s: %s\n", c.FS.Name(), fmt.Sprintf(format, args...))
	c.Usage(w)
	return ExitUsage
}

// Interleaved parses flags that may come before or after positional
// arguments, as in `warden run task.yaml --model M`; everything after "--"
// is positional.
func Interleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// List is a repeatable string flag: each use adds a value.
type List []string

// String returns the values joined by commas.
func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds s.
func (l *List) Set(s string) error { *l = append(*l, s); return nil }
