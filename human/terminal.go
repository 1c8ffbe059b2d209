package human

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// NewTerminal returns a console that reads answers from the terminal tty
// and writes prompts to out (SPEC H1). Unlike a console on a stream, it
// discards whatever was typed, or pushed into the terminal's input, before
// each prompt was drawn, so typeahead never answers a request; it wraps
// text to the terminal's width. tty must be a terminal opened by the
// caller, such as /dev/tty, that no tool shares; an empty line, or the end
// of the terminal, behaves as on any console.
func NewTerminal(tty *os.File, out io.Writer) (*Console, error) {
	if err := isTerminal(tty); err != nil {
		return nil, fmt.Errorf("human: %s is not a terminal: %w", tty.Name(), err)
	}
	in := &terminalInput{f: tty}
	return newConsole(in, out, in.columns), nil
}

// terminalInput reads answers from a terminal, one prompt at a time:
// nothing is read while no prompt is pending, and what arrived before a
// prompt is flushed.
type terminalInput struct {
	f   *os.File
	buf []byte // read but not yet taken as a line
}

// discard drops the terminal's pending input and what was read of it.
func (t *terminalInput) discard() error {
	t.buf = t.buf[:0]
	return flushInput(t.f)
}

// columns returns the terminal's width, 0 when unknown.
func (t *terminalInput) columns() int {
	n, err := terminalColumns(t.f)
	if err != nil {
		return 0
	}
	return n
}

// next reads up to the end of a line. It returns ctx's error when ctx ends
// first, and io.EOF when the terminal has ended or hung up.
func (t *terminalInput) next(ctx context.Context) (string, error) {
	if err := t.f.SetReadDeadline(time.Time{}); err != nil {
		return "", fmt.Errorf("the terminal cannot be read with a deadline: %w", err)
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(interrupted)
		_ = t.f.SetReadDeadline(time.Unix(1, 0)) // in the past: wakes the read
	})
	defer func() {
		if !stop() {
			<-interrupted
		}
	}()
	var chunk [512]byte
	for {
		if i := bytes.IndexByte(t.buf, '\n'); i >= 0 {
			line := strings.TrimRight(string(t.buf[:i]), "\r")
			t.buf = append(t.buf[:0], t.buf[i+1:]...)
			return line, nil
		}
		n, err := t.f.Read(chunk[:])
		t.buf = append(t.buf, chunk[:n]...)
		if len(t.buf) > maxAnswer && bytes.IndexByte(t.buf, '\n') < 0 {
			t.buf = t.buf[:maxAnswer] // no valid answer is that long
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(err, io.EOF), errors.Is(err, syscall.EIO): // ^D, or hung up
			if len(t.buf) > 0 {
				line := string(t.buf)
				t.buf = t.buf[:0]
				return line, nil
			}
			return "", io.EOF
		default:
			return "", err
		}
	}
}
