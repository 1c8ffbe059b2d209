// Package sandboxmode is the sandbox's modes (SPEC G1) by name, apart
// from package sandbox, which links the kernel's mechanisms (Landlock), so
// that what only reads a mode from a configuration (warden-hook) links
// none of them. Package sandbox's Mode is this Mode.
package sandboxmode

import (
	"fmt"
	"strings"
)

// Mode is a sandbox mode: how far a command may write without asking.
type Mode string

// The sandbox modes (SPEC G1).
const (
	// ReadOnly lets a command read everything and write nothing but the
	// terminal and null devices.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite adds writing to the working directory, the configured
	// writable roots and the temporary directories, except protected paths.
	WorkspaceWrite Mode = "workspace-write"
	// FullAccess runs commands without any restriction.
	FullAccess Mode = "full-access"
)

// Parse returns the Mode named s ("read-only", "workspace-write" or
// "full-access"), or an error that lists the valid names.
func Parse(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case ReadOnly, WorkspaceWrite, FullAccess:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (want %s, %s or %s)", s, ReadOnly, WorkspaceWrite, FullAccess)
}
