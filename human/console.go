// Package human lets people decide approval and review requests (SPEC §7).
// It provides the console surface: a Console shows each request on a writer
// and reads a one-line answer from a terminal (NewTerminal) or a reader
// (NewConsole). The package registers the approver and the reviewer
// "human", which prompt on the process's console (see Default) and, when
// the request's context carries a Surface (WithSurface; internal/queue's
// WithQueue puts the web panel and the API there), on that surface too,
// whichever answers first deciding. It links no database.
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
// A person approves only what they could see: when a part of a call (or of
// a review's result) is too long to show and was cut, Approve is not
// offered until the person answers "v" and the whole request is shown. A
// shell call lists the simple commands it runs above its text.
//
// Requests are serialized (SPEC H4): while one is on the console the others
// queue, in arrival order, each waiting for its turn or for its context to
// end.
//
// A Console is safe for concurrent use.
type Console struct {
	in  input
	out io.Writer
	// columns returns the terminal's width, 0 when unknown.
	columns func() int

	// turn holds a token while a request is on the console.
	turn chan struct{}

	// logMu guards prompting and held: what Log writes while a request is
	// on the console is held back until the request ends.
	logMu     sync.Mutex
	prompting bool
	held      bytes.Buffer
}

// terminal reports whether answers come from a person's terminal, where
// someone may be watching (not a pipe or a file).
func (c *Console) terminal() bool {
	_, ok := c.in.(*terminalInput)
	return ok
}

// input is where answers come from.
type input interface {
	// discard drops the input that arrived before it was called:
	// typeahead that must not answer a prompt just drawn.
	discard() error
	// next returns the next line, without its end. It returns io.EOF when
	// the input has ended and ctx's error when ctx ends first.
	next(ctx context.Context) (string, error)
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
// to out, for an 80-column terminal. Nothing is read from in before the
// first prompt; after that, a line read while no prompt is pending answers
// the next one, so in must be the person's alone. Use NewTerminal for a
// terminal, which discards what was typed before a prompt.
func NewConsole(in io.Reader, out io.Writer) *Console {
	return newConsole(&streamInput{r: in, lines: make(chan string)}, out, func() int { return 0 })
}

func newConsole(in input, out io.Writer, columns func() int) *Console {
	return &Console{in: in, out: out, columns: columns, turn: make(chan struct{}, 1)}
}

// width returns the columns to render for.
func (c *Console) width() int {
	if n := c.columns(); n > 0 {
		return n
	}
	return defaultColumns
}

// streamInput reads lines from a reader with one goroutine, started by the
// first prompt, that hands them to whichever prompt is pending. That
// goroutine lives until the input ends.
type streamInput struct {
	r       io.Reader
	once    sync.Once
	lines   chan string
	readErr error // the input's error other than EOF; set before lines closes
}

// discard starts reading. A stream cannot tell typeahead from answers
// written ahead by a script, so it keeps them.
func (s *streamInput) discard() error {
	s.once.Do(func() { go s.read() })
	return nil
}

func (s *streamInput) next(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case line, ok := <-s.lines:
		if !ok {
			if s.readErr != nil {
				return "", s.readErr
			}
			return "", io.EOF
		}
		return line, nil
	}
}

// read sends each input line to s.lines and closes it when the input ends.
func (s *streamInput) read() {
	r := bufio.NewReader(s.r)
	for {
		line, err := readLine(r)
		if err == nil || (line != "" && errors.Is(err, io.EOF)) {
			s.lines <- line
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.readErr = err
			}
			close(s.lines)
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
	// gated options are offered only once the whole request was shown.
	gated bool
}

// showAll returns the choice that shows a request whole.
func showAll() option {
	return option{key: "v", label: "Show all", words: []string{"v", "view", "show"}}
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

// offered returns the options a menu offers before a cut request is shown
// whole: "show all" and the options that are not gated.
func offered(opts []option) []option {
	out := []option{showAll()}
	for _, o := range opts {
		if !o.gated {
			out = append(out, o)
		}
	}
	return out
}

// errNoAnswer is the cause of a prompt's timeout.
var errNoAnswer = errors.New("no answer in time")

// ask waits for its turn, shows the request draw renders and the menu of
// opts, and reads answers until one selects an option, the input ends,
// timeout (if > 0) passes or ctx ends. Gated options are offered only when
// the request is shown whole: if it was cut, the person answers "v" first.
// An empty answer shows the request again. failsafe is what the console
// says the request comes to when it ends without an answer.
func (c *Console) ask(ctx context.Context, draw func(columns int) prompt, opts []option, failsafe string, timeout time.Duration) (option, outcome, error) {
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

	pr := draw(c.width())
	shown, whole := pr.short, pr.full == ""
	// screen is the request as now shown, with the menu it offers.
	screen := func() (string, []option) {
		switch {
		case whole:
			return shown, opts
		case pr.hidden == "": // what was cut does not gate any choice
			return shown, append([]option{showAll()}, opts...)
		}
		note := pr.hidden + " was cut: answer v to see the whole request; approve is offered once it is shown\n"
		return shown + note, offered(opts)
	}
	text, menuOpts := screen()
	if err := c.show(text + menu(menuOpts)); err != nil {
		return option{}, 0, err
	}

	wait := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeoutCause(ctx, timeout, errNoAnswer)
		defer cancel()
	}
	for {
		line, err := c.in.next(wait)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			var elsewhere *DecidedElsewhere
			if errors.As(context.Cause(ctx), &elsewhere) {
				_ = c.write("\n→ " + escapeLine(elsewhere.Error()) + "\n")
			} else {
				_ = c.write("\n→ request cancelled\n")
			}
			return option{}, 0, ctx.Err()
		case wait.Err() != nil:
			err := c.write(fmt.Sprintf("\n→ no answer within %s: %s\n", timeout, failsafe))
			return option{}, timedOut, err
		case errors.Is(err, io.EOF):
			err := c.write(fmt.Sprintf("\n→ end of input, request dismissed: %s\n", failsafe))
			return option{}, dismissed, err
		default:
			_ = c.write("\n→ cannot read the console\n")
			return option{}, 0, fmt.Errorf("human: reading the console: %w", err)
		}
		if strings.TrimSpace(line) == "" {
			// The screen may have been written over: show it all again.
			text, menuOpts = screen()
			if err := c.show(text + menu(menuOpts)); err != nil {
				return option{}, 0, err
			}
			continue
		}
		o, ok := match(menuOpts, line)
		switch {
		case ok && o.key == showAll().key:
			shown, whole = pr.full, true
			text, menuOpts = screen()
			if err := c.show(text + menu(menuOpts)); err != nil {
				return option{}, 0, err
			}
			continue
		case ok:
			said := o.value
			if l := strings.ToLower(o.label); l != o.value {
				said = l + " (" + o.value + ")"
			}
			return o, answered, c.write("→ " + said + "\n")
		}
		msg := fmt.Sprintf("\"%s\" is not an answer here; answer one of: %s\n",
			cutWidth(escapeLine(strings.TrimSpace(line)), 40), valid(menuOpts))
		if g, ok := match(opts, line); ok && g.gated {
			msg = fmt.Sprintf("%s is not offered yet: %s was cut; answer v to see the whole request first\n", strings.ToLower(g.label), pr.hidden)
		}
		if err := c.show(msg + menu(menuOpts)); err != nil {
			return option{}, 0, err
		}
	}
}

// show writes s, whose last line is a prompt, discarding what was typed
// before the prompt was on the screen: the request is drawn, the input
// that arrived meanwhile is dropped, then the prompt line is drawn, so
// whoever sees the prompt may answer it at once.
func (c *Console) show(s string) error {
	body, prompt := "", s
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		body, prompt = s[:i+1], s[i+1:]
	}
	if err := c.write(body); err != nil {
		return err
	}
	if err := c.in.discard(); err != nil {
		return fmt.Errorf("human: discarding typeahead: %w", err)
	}
	return c.write(prompt)
}

// write writes s to the output; a prompt nobody can see must not wait for an
// answer, so a failed write is an error.
func (c *Console) write(s string) error {
	if _, err := io.WriteString(c.out, s); err != nil {
		return fmt.Errorf("human: writing to the console: %w", err)
	}
	return nil
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
	if err := c.show(prompt); err != nil {
		return "", err
	}
	line, err := c.in.next(ctx)
	switch {
	case err == nil:
		return line, nil
	case ctx.Err() != nil, errors.Is(err, io.EOF):
		return "", err
	}
	return "", fmt.Errorf("human: reading the console: %w", err)
}
