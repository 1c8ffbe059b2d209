package human

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/bgtest"
	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/internal/syncbuf"
	"github.com/wardenhq/warden/review"
)

// typeAhead types s on the keyboard and waits until the terminal holds it
// unread, as input that arrived before a prompt.
func typeAhead(t *testing.T, master, term *os.File, s string) {
	t.Helper()
	if _, err := io.WriteString(master, s); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var n int
		_ = control(term, func(fd int) error {
			var err error
			n, err = unix.IoctlGetInt(fd, unix.TIOCINQ)
			return err
		})
		if n >= len(s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never held the typeahead (%d bytes)", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// drain reads what the terminal echoes back to the master, so echo never
// fills the pseudo-terminal's buffer.
func drain(master *os.File) { go func() { _, _ = io.Copy(io.Discard, master) }() }

func newTerminal(t *testing.T, term *os.File, out io.Writer) *Console {
	t.Helper()
	c, err := NewTerminal(term, out)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestH1_TypeaheadDoesNotAnswerTerminalPrompt: an answer typed (or pushed
// into the terminal) before the prompt was drawn is discarded; the answer
// typed after it is taken. So is typeahead between two prompts.
func TestH1_TypeaheadDoesNotAnswerTerminalPrompt(t *testing.T) {
	master, term := ptytest.Open(t)
	scr := newScreen()
	c := newTerminal(t, term, scr)

	typeAhead(t, master, term, "a\n")
	done := bgtest.Go(func() (approval.Approval, error) {
		return c.Approver(nil, 0).Approve(context.Background(), bashRequest("rm -rf ~/victim"))
	})
	waitFor(t, scr, "Decide:", 1)
	select {
	case r := <-done:
		t.Fatalf("typeahead answered the prompt: %+v, %v", r.Value, r.Err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := io.WriteString(master, "r\n"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Err != nil || r.Value.Decision != approval.Reject {
		t.Fatalf("decision %+v, %v; want the reject typed after the prompt\n%s", r.Value, r.Err, scr.String())
	}

	// Typed while no prompt is pending: discarded at the next prompt.
	typeAhead(t, master, term, "c\n")
	rdone := bgtest.Go(func() (review.Review, error) {
		return c.Reviewer(nil, 0).Review(context.Background(), reviewReq("ok"))
	})
	waitFor(t, scr, "Decide:", 2)
	if _, err := io.WriteString(master, "t\n"); err != nil {
		t.Fatal(err)
	}
	if rv := (<-rdone).Must(t); rv.Decision != review.Terminate {
		t.Fatalf("review decision %s, want the terminate typed after the prompt", rv.Decision)
	}
	drain(master)
}

// TestH1_TerminalShowAllThenApprove: "v" then "a" on a terminal; the "a"
// counts only once typed after the whole call is on the screen.
func TestH1_TerminalShowAllThenApprove(t *testing.T) {
	master, term := ptytest.Open(t)
	drain(master)
	scr := newScreen()
	c := newTerminal(t, term, scr)
	done := bgtest.Go(func() (approval.Approval, error) {
		return c.Approver(nil, 0).Approve(context.Background(), bashRequest(strings.Repeat("echo hi\n", 100)))
	})
	waitFor(t, scr, "Decide:  [v] Show all", 1)
	_, _ = io.WriteString(master, "v\n")
	waitFor(t, scr, "Decide:  [a] Approve", 1)
	_, _ = io.WriteString(master, "a\n")
	if d := (<-done).Must(t).Decision; d != approval.Approve {
		t.Fatalf("decision %s, want approve\n%s", d, scr.String())
	}
}

// TestH3_TerminalHangupRejects: a terminal that ends (^D) or hangs up
// dismisses the request: rejected, never approved.
func TestH3_TerminalHangupRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(master *os.File)
	}{
		{"end of input", func(m *os.File) { _, _ = io.WriteString(m, "\x04") }},
		{"hang up", func(m *os.File) { _ = m.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, term := ptytest.Open(t)
			scr := newScreen()
			c := newTerminal(t, term, scr)
			done := bgtest.Go(func() (approval.Approval, error) {
				return c.Approver(nil, 0).Approve(context.Background(), bashRequest("ls"))
			})
			waitFor(t, scr, "Decide:", 1)
			tc.end(master)
			select {
			case r := <-done:
				if a := r.Must(t); a.Decision != approval.Reject || a.Metadata["dismissed"] != true {
					t.Errorf("approval %+v, want a dismissed reject", a)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the prompt did not end")
			}
		})
	}
}

// TestH4_TerminalPromptHonoursCancelAndTimeout: a pending terminal read
// ends when the request is cancelled or times out.
func TestH4_TerminalPromptHonoursCancelAndTimeout(t *testing.T) {
	master, term := ptytest.Open(t)
	drain(master)
	c := newTerminal(t, term, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := c.Approver(nil, 0).Approve(ctx, bashRequest("ls")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	a, err := c.Approver(nil, 50*time.Millisecond).Approve(context.Background(), bashRequest("ls"))
	if err != nil || a.Decision != approval.Reject || a.Metadata["timed_out"] != true {
		t.Errorf("timed out: %+v, %v", a, err)
	}
	// After both, the terminal still answers.
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(master, "a\n")
	}()
	if a, err := c.Approver(nil, 0).Approve(context.Background(), bashRequest("ls")); err != nil || a.Decision != approval.Approve {
		t.Errorf("after cancel and timeout: %+v, %v", a, err)
	}
}

// TestH5_TerminalWidthIsHonoured: text is wrapped to the terminal's own
// width, so a narrow terminal never wraps a line to column 0 itself.
func TestH5_TerminalWidthIsHonoured(t *testing.T) {
	master, term := ptytest.Open(t)
	drain(master)
	if err := control(term, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 40})
	}); err != nil {
		t.Fatal(err)
	}
	var out syncbuf.Buffer
	c := newTerminal(t, term, &out)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = io.WriteString(master, "r\n")
	}()
	if _, err := c.Approver(nil, 0).Approve(context.Background(), bashRequest("echo "+strings.Repeat("日", 60)+" Decide:  [a] Approve")); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.ContainsAny(line, "日") && textWidth(line) > 40 {
			t.Errorf("line of %d columns on a 40-column terminal: %q", textWidth(line), line)
		}
	}
}

func TestNewTerminalRefusesOtherFiles(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := NewTerminal(f, io.Discard); err == nil {
		t.Error("a regular file was accepted as a terminal")
	}
}
