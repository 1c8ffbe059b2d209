//go:build !linux

package human

import (
	"errors"
	"os"
)

// isTerminal reports that terminals are not supported on this system: the
// console reads a stream instead.
func isTerminal(*os.File) error { return errors.ErrUnsupported }

func flushInput(*os.File) error { return errors.ErrUnsupported }

func terminalColumns(*os.File) (int, error) { return 0, errors.ErrUnsupported }

func openTerminal(*os.File) (*os.File, bool) { return nil, false }
