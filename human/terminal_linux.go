package human

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// control runs fn on f's descriptor without putting f in blocking mode (as
// f.Fd would), so read deadlines keep working.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// isTerminal returns nil when f is a terminal.
func isTerminal(f *os.File) error {
	return control(f, func(fd int) error {
		_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
}

// flushInput discards the input the terminal f received and nobody read.
func flushInput(f *os.File) error {
	return control(f, func(fd int) error {
		if err := unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH); err != nil {
			return fmt.Errorf("flushing the terminal's input: %w", err)
		}
		return nil
	})
}

// terminalColumns returns the width of the terminal f.
func terminalColumns(f *os.File) (int, error) {
	var cols int
	err := control(f, func(fd int) error {
		ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
		if err != nil {
			return err
		}
		cols = int(ws.Col)
		return nil
	})
	return cols, err
}

// openTerminal opens the process's controlling terminal, when its standard
// input is one: the person's terminal, read apart from the standard input
// tools could be given.
func openTerminal(stdin *os.File) (*os.File, bool) {
	if isTerminal(stdin) != nil {
		return nil, false
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	if isTerminal(f) != nil {
		_ = f.Close()
		return nil, false
	}
	return f, true
}
