// Package human lets people decide approval and review requests (SPEC §7).
// It provides the console surface: a Console shows each request on a writer
// and reads a one-line answer from a reader. The package registers the
// approver and the reviewer "human", which prompt on the process's console
// (see Default).
package human

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// maxAnswer is the longest answer line kept; the rest of a longer line is
// discarded (no valid answer is that long).
const maxAnswer = 1024

// Console is the console surface for people (SPEC H1): it writes each
// request, with a menu of choices, to an output and reads the answer, one
// line, from an input.
//
// Requests are serialized (SPEC H4): while one is on the console the others
// queue, in arrival order, each waiting for its turn or for its context to
// end. Input is read by a single goroutine, started with the first prompt,
// that hands lines to whichever prompt is pending; a line typed while no
// prompt is pending answers the next one. That goroutine lives until the
// input ends.
//
// A Console is safe for concurrent use.
type Console struct {
	in  io.Reader
	out io.Writer

	// turn holds a token while a request is on the console.
	turn chan struct{}

	readOnce sync.Once
	lines    chan string
	readErr  error // the input's error other than EOF; set before lines closes

	// logMu guards prompting and held: what Log writes while a request is
	// on the console is held back until the request ends.
	logMu     sync.Mutex
	prompting bool
	held      bytes.Buffer
}

// Log returns a writer for other output that shares the console, such as a
// live transcript. What it writes while a request is on the console is held
// and written when the request ends, so it never breaks into a prompt; it
// never waits for a person.
func (c *Console) Log() io.Writer { return consoleLog{c} }

type consoleLog struct{ c *Console }

func (l consoleLog) Write(p []byte) (int, error) {
	c := l.c
	c.logMu.Lock()
	defer c.logMu.Unlock()
	if c.prompting {
		return c.held.Write(p)
	}
	return c.out.Write(p)
}

// holdLog starts or ends holding back Log output; ending flushes it.
func (c *Console) holdLog(on bool) {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	c.prompting = on
	if !on && c.held.Len() > 0 {
		_, _ = c.out.Write(c.held.Bytes())
		c.held.Reset()
	}
}

// NewConsole returns a console that reads answers from in and writes prompts
// to out. Nothing is read from in before the first prompt.
func NewConsole(in io.Reader, out io.Writer) *Console {
	return &Console{
		in:    in,
		out:   out,
		turn:  make(chan struct{}, 1),
		lines: make(chan string),
	}
}

// startReading starts the goroutine that reads the input, once.
func (c *Console) startReading() {
	c.readOnce.Do(func() { go c.read() })
}

// read sends each input line to c.lines and closes it when the input ends.
func (c *Console) read() {
	r := bufio.NewReader(c.in)
	for {
		line, err := readLine(r)
		if err == nil || (line != "" && errors.Is(err, io.EOF)) {
			c.lines <- line
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			close(c.lines)
			return
		}
	}
}

// readLine reads one line without its end, keeping at most maxAnswer bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if room := maxAnswer - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimRight(string(b), "\r\n")
		return s, err
	}
}

// option is one choice of a menu.
type option struct {
	key   string   // the one-letter answer shown in the menu
	label string   // what the menu calls it
	words []string // every accepted answer, lower case
	value string   // the decision it stands for
}

// outcome says how a prompt ended.
type outcome int

const (
	answered outcome = iota
	dismissed
	timedOut
)

// menu renders the choice line that ends a prompt.
func menu(opts []option) string {
	var b strings.Builder
	b.WriteString("Decide:")
	for _, o := range opts {
		fmt.Fprintf(&b, "  [%s] %s", o.key, o.label)
	}
	b.WriteString(" > ")
	return b.String()
}

// valid lists the answers a menu accepts, for the re-prompt message.
func valid(opts []option) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = strings.Join(o.words, "/")
	}
	return strings.Join(parts, ", ")
}

// match returns the option an answer selects.
func match(opts []option, answer string) (option, bool) {
	answer = strings.ToLower(strings.TrimSpace(answer))
	for _, o := range opts {
		for _, w := range o.words {
			if answer == w {
				return o, true
			}
		}
	}
	return option{}, false
}

// ask waits for its turn, shows prompt and the menu of opts, and reads
// answers until one selects an option, the input ends, timeout (if > 0)
// passes or ctx ends. failsafe is what the console says the request comes
// to when it ends without an answer.
func (c *Console) ask(ctx context.Context, prompt string, opts []option, failsafe string, timeout time.Duration) (option, outcome, error) {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return option{}, 0, ctx.Err()
	}
	defer func() { <-c.turn }()
	if err := ctx.Err(); err != nil {
		return option{}, 0, err
	}
	c.holdLog(true)
	defer c.holdLog(false)
	c.startReading()

	if err := c.write(prompt + menu(opts)); err != nil {
		return option{}, 0, err
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case <-ctx.Done():
			_ = c.write("\n→ request cancelled\n")
			return option{}, 0, ctx.Err()
		case <-expired:
			err := c.write(fmt.Sprintf("\n→ no answer within %s: %s\n", timeout, failsafe))
			return option{}, timedOut, err
		case line, ok := <-c.lines:
			if !ok {
				if c.readErr != nil {
					_ = c.write("\n→ cannot read the console\n")
					return option{}, 0, fmt.Errorf("human: reading the console: %w", c.readErr)
				}
				err := c.write(fmt.Sprintf("\n→ end of input, request dismissed: %s\n", failsafe))
				return option{}, dismissed, err
			}
			if o, ok := match(opts, line); ok {
				said := o.value
				if l := strings.ToLower(o.label); l != o.value {
					said = l + " (" + o.value + ")"
				}
				return o, answered, c.write("→ " + said + "\n")
			}
			msg := fmt.Sprintf("\"%s\" is not an answer here; answer one of: %s\n%s",
				escapeLine(cut(strings.TrimSpace(line), 40)), valid(opts), menu(opts))
			if err := c.write(msg); err != nil {
				return option{}, 0, err
			}
		}
	}
}

// write writes s to the output; a prompt nobody can see must not wait for an
// answer, so a failed write is an error.
func (c *Console) write(s string) error {
	if _, err := io.WriteString(c.out, s); err != nil {
		return fmt.Errorf("human: writing to the console: %w", err)
	}
	return nil
}

// cut shortens s to at most n runes, ending it with "…" when cut.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Line shows prompt and returns the next line the person types, for
// free-form input such as a new request between turns. It waits its turn
// behind pending requests, and returns io.EOF when the input has ended.
func (c *Console) Line(ctx context.Context, prompt string) (string, error) {
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-c.turn }()
	c.holdLog(true)
	defer c.holdLog(false)
	c.startReading()
	if err := c.write(prompt); err != nil {
		return "", err
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case line, ok := <-c.lines:
		if !ok {
			if c.readErr != nil {
				return "", fmt.Errorf("human: reading the console: %w", c.readErr)
			}
			return "", io.EOF
		}
		return line, nil
	}
}
