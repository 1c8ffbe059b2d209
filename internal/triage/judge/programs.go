package judge

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
)

// EnvDump describes a command that prints the whole environment (with its
// tokens), "" for any other.
func EnvDump(c *Command) string {
	switch c.Name {
	case "env", "printenv":
		if c.Name == "env" && (shell.HasShort(c.Args, 'i', "uCS") || shell.HasWord(c.Args, "-", "--ignore-environment")) {
			return "" // an empty environment
		}
		if len(shell.Operands(c.Args, "u")) == 0 && !c.Sc.Unwrapped {
			return "the whole environment"
		}
	case "set", "export", "declare", "typeset":
		if len(c.Args) == 1 || len(c.Args) == 2 && (c.Args[1] == "-p" || c.Args[1] == "-x") {
			return "every variable"
		}
	case "compgen":
		if shell.HasShort(c.Args, 'v', "") || shell.HasShort(c.Args, 'e', "") {
			return "every variable name"
		}
	}
	return ""
}

// IsRunner reports whether a program name is that of an interpreter or
// runner of the list runners (python3.12, ruby3.2, node18, …).
func (k *Knowledge) IsRunner(lname string) bool {
	set := k.List("runners")
	if set.Has(lname) {
		return true
	}
	// A runner's name (three letters or more) and a version: only the
	// prefixes ending before a digit, '.' or '-' can be one.
	for j := 3; j < len(lname); j++ {
		if c := lname[j]; (c >= '0' && c <= '9' || c == '.' || c == '-') && set.Has(lname[:j]) {
			return true
		}
	}
	return false
}

// CodeStrongIn returns the first fragment of the list strong_code in text
// (code that opens sockets, starts programs or decodes payloads), "" none.
func (k *Knowledge) CodeStrongIn(text string) string {
	for _, f := range k.Words("strong_code") {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}
