package human

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/bgtest"
	"github.com/wardenhq/warden/internal/syncbuf"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// waitFor waits until the output holds at least n copies of s.
func waitFor(t *testing.T, out fmt.Stringer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("output never held %d× %q:\n%s", n, s, out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// pipedConsole returns a console that reads the lines the test writes to
// in and writes its prompts to out.
func pipedConsole(t *testing.T) (c *Console, in *io.PipeWriter, out *syncbuf.Buffer) {
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	out = &syncbuf.Buffer{}
	return NewConsole(pr, out), pw, out
}

// approveLater asks c to approve approvalReq() in a goroutine; the
// channel receives the decision.
func approveLater(c *Console) <-chan bgtest.Result[approval.Approval] {
	return bgtest.Go(func() (approval.Approval, error) {
		return c.Approver(nil, 0).Approve(context.Background(), approvalReq())
	})
}

// answerNext asks c about a new request, waits for the console's n-th
// prompt, answers line and fails the test unless the decision is want.
func answerNext(t *testing.T, c *Console, in io.Writer, out *syncbuf.Buffer, n int, line string, want approval.Decision) {
	t.Helper()
	done := approveLater(c)
	waitFor(t, out, "Decide:", n)
	fmt.Fprintln(in, line)
	if d := (<-done).Value.Decision; d != want {
		t.Errorf("the next request: %q, want %q", d, want)
	}
}

func approvalReq() *approval.Request {
	call := tool.NewCall("call_1", "bash", `{"cmd":"ls -la"}`)
	return &approval.Request{
		Message: "I'll list the files.",
		Call:    call,
		View:    tool.View{Title: "bash", Format: "bash", Content: "ls -la"},
	}
}

func reviewReq(content string) *review.Request {
	call := tool.NewCall("call_1", "bash", `{"cmd":"ls"}`)
	return &review.Request{
		Message: "Listing.",
		Call:    call,
		Result:  tool.Result{Content: content},
		Output:  content,
		View:    tool.View{Title: "bash", Format: "bash", Content: "ls"},
	}
}

func askApproval(t *testing.T, input string, choices []approval.Decision, timeout time.Duration) (approval.Approval, string) {
	t.Helper()
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader(input), &out)
	a, err := c.Approver(choices, timeout).Approve(context.Background(), approvalReq())
	if err != nil {
		t.Fatalf("Approve(%q): %v", input, err)
	}
	return a, out.String()
}

func askReview(t *testing.T, input string, choices []review.Decision, timeout time.Duration, req *review.Request) (review.Review, string) {
	t.Helper()
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader(input), &out)
	r, err := c.Reviewer(choices, timeout).Review(context.Background(), req)
	if err != nil {
		t.Fatalf("Review(%q): %v", input, err)
	}
	return r, out.String()
}

func TestH1_ApprovalAnswers(t *testing.T) {
	withEscalate := []approval.Decision{approval.Approve, approval.Reject, approval.Terminate, approval.Escalate}
	for _, tc := range []struct {
		in      string
		choices []approval.Decision
		want    approval.Decision
	}{
		{"a\n", nil, approval.Approve},
		{"approve\n", nil, approval.Approve},
		{"  A  \n", nil, approval.Approve},
		{"APPROVE\r\n", nil, approval.Approve},
		{"r\n", nil, approval.Reject},
		{"Reject\n", nil, approval.Reject},
		{"t\n", nil, approval.Terminate},
		{"\tterminate \n", nil, approval.Terminate},
		{"e\n", withEscalate, approval.Escalate},
		{"escalate", withEscalate, approval.Escalate}, // last line without newline
	} {
		got, out := askApproval(t, tc.in, tc.choices, 0)
		if got.Decision != tc.want {
			t.Errorf("answer %q: decision %q, want %q\n%s", tc.in, got.Decision, tc.want, out)
		}
		if got.Explanation == "" || got.Metadata["surface"] != "console" {
			t.Errorf("answer %q: explanation %q, metadata %v", tc.in, got.Explanation, got.Metadata)
		}
	}
}

func TestH1_ApprovalPromptShowsCall(t *testing.T) {
	_, out := askApproval(t, "a\n", nil, 0)
	for _, want := range []string{
		"approval requested: bash",
		contentGutter + "I'll list the files.\n",                  // the assistant message
		"commands (1, as the shell splits them):\n  1 │ ls -la\n", // the simple commands
		"call:\n" + contentGutter + "bash(cmd='ls -la')\n",        // the call
		"Decide:  [a] Approve  [r] Reject  [t] Terminate > ",
		"→ approve\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[e]") {
		t.Errorf("escalate offered though not a choice:\n%s", out)
	}
	if strings.Contains(out, "view") {
		t.Errorf("a view the call text already shows is shown again:\n%s", out)
	}

	// A view that says more than the call text is shown too.
	var buf syncbuf.Buffer
	req := approvalReq()
	req.Call = tool.NewCall("c", "text_editor", `{"command":"str_replace","path":"a.go","old_str":"x","new_str":"y"}`)
	req.View = tool.View{Title: "edit a.go", Format: "diff", Content: "--- a.go\n+++ a.go\n-x\n+y"}
	if _, err := NewConsole(strings.NewReader("a\n"), &buf).Approver(nil, 0).Approve(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "view — edit a.go (diff):\n"+contentGutter+"--- a.go\n") || strings.Contains(buf.String(), "commands (") {
		t.Errorf("editor prompt:\n%s", buf.String())
	}
}

func TestH1_ApprovalPromptFallsBackToCallText(t *testing.T) {
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader("r\n"), &out)
	req := approvalReq()
	req.View = tool.View{}
	if _, err := c.Approver(nil, 0).Approve(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "call:\n"+contentGutter+"bash(cmd='ls -la')\n") || strings.Contains(out.String(), "view") {
		t.Errorf("prompt without a view:\n%s", out.String())
	}
}

func TestH1_ReviewPromptShowsResult(t *testing.T) {
	req := reviewReq("file1\nfile2\n")
	req.Output = "file1\nfile2\nfile3\nfile4\n"
	_, out := askReview(t, "c\n", nil, 0, req)
	for _, want := range []string{
		"review requested: bash",
		"the model will receive:\n" + contentGutter + "file1\n" + contentGutter + "file2\n",
		"truncated: the tool's output is 24 bytes, the model receives 12",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}

	req = reviewReq("")
	req.Result = tool.Result{Error: &tool.Error{Type: tool.ErrPermission, Message: "denied: /etc/shadow"}}
	req.Output = ""
	_, out = askReview(t, "c\n", nil, 0, req)
	if !strings.Contains(out, "the model will receive an error (permission):\n"+contentGutter+"denied: /etc/shadow\n") {
		t.Errorf("prompt does not show the error:\n%s", out)
	}
}

func TestH2_ReviewAnswers(t *testing.T) {
	withEscalate := []review.Decision{review.Continue, review.Terminate, review.Escalate}
	for _, tc := range []struct {
		in      string
		choices []review.Decision
		want    review.Decision
	}{
		{"a\n", nil, review.Continue},
		{"approve\n", nil, review.Continue},
		{"c\n", nil, review.Continue},
		{" CONTINUE \n", nil, review.Continue},
		{"t\n", nil, review.Terminate},
		{"terminate\n", nil, review.Terminate},
		{"e\n", withEscalate, review.Escalate},
		{"Escalate\n", withEscalate, review.Escalate},
	} {
		got, out := askReview(t, tc.in, tc.choices, 0, reviewReq("ok"))
		if got.Decision != tc.want {
			t.Errorf("answer %q: decision %q, want %q\n%s", tc.in, got.Decision, tc.want, out)
		}
	}
}

func TestH2_ReviewContinueIsLabelledApprove(t *testing.T) {
	_, out := askReview(t, "a\n", nil, 0, reviewReq("ok"))
	if !strings.Contains(out, "Decide:  [a] Approve  [t] Terminate > ") {
		t.Errorf("review menu:\n%s", out)
	}
	if strings.Contains(out, "[c]") || strings.Contains(out, "Continue") || strings.Contains(out, "[e]") {
		t.Errorf("review menu offers more than Approve and Terminate:\n%s", out)
	}
	_, out = askReview(t, "a\n", []review.Decision{review.Escalate, review.Continue}, 0, reviewReq("ok"))
	if !strings.Contains(out, "Decide:  [a] Approve  [e] Escalate > ") {
		t.Errorf("review menu with escalate:\n%s", out)
	}
}

func TestH2_RepromptOnInvalidAnswer(t *testing.T) {
	// "e" and "modify" are answers of decisions not offered, "x" is no
	// answer at all; each re-prompts until "r". An empty line shows the
	// whole request again.
	got, out := askApproval(t, "x\ne\n\nmodify\nr\n", nil, 0)
	if got.Decision != approval.Reject {
		t.Fatalf("decision %q, want reject\n%s", got.Decision, out)
	}
	if n := strings.Count(out, "── approval requested: bash ──"); n != 2 {
		t.Errorf("request shown %d times, want 2 (an empty line redraws it):\n%s", n, out)
	}
	for _, bad := range []string{`"x"`, `"e"`, `"modify"`} {
		if !strings.Contains(out, bad+" is not an answer here; answer one of: a/approve, r/reject, t/terminate\n") {
			t.Errorf("no re-prompt for %s:\n%s", bad, out)
		}
	}
	if n := strings.Count(out, "Decide:"); n != 5 {
		t.Errorf("menu shown %d times, want 5:\n%s", n, out)
	}

	// Reject is not a review decision: "r" re-prompts.
	rv, out := askReview(t, "r\nreject\nt\n", nil, 0, reviewReq("ok"))
	if rv.Decision != review.Terminate {
		t.Fatalf("review decision %q, want terminate\n%s", rv.Decision, out)
	}
	if !strings.Contains(out, `"r" is not an answer here; answer one of: a/approve/c/continue, t/terminate`) {
		t.Errorf("no re-prompt for r in a review:\n%s", out)
	}
}

func TestH2_RepromptEchoIsEscaped(t *testing.T) {
	_, out := askApproval(t, "\x1b[2J\nr\n", nil, 0)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `"\x1b[2J" is not an answer`) {
		t.Errorf("echo of an invalid answer not escaped:\n%q", out)
	}
}

func TestH3_EndOfInputRejectsApproval(t *testing.T) {
	for _, in := range []string{"", "x\n", "maybe"} {
		// Even when approve is the only choice, a dismissal rejects.
		for _, choices := range [][]approval.Decision{nil, {approval.Approve}} {
			got, out := askApproval(t, in, choices, 0)
			if got.Decision != approval.Reject {
				t.Errorf("input %q, choices %v: decision %q, want reject", in, choices, got.Decision)
			}
			if !strings.Contains(got.Explanation, "dismissed") || got.Metadata["dismissed"] != true {
				t.Errorf("input %q: explanation %q, metadata %v", in, got.Explanation, got.Metadata)
			}
			if !strings.Contains(out, "end of input, request dismissed: rejected") {
				t.Errorf("input %q: console does not say the request was dismissed:\n%s", in, out)
			}
		}
	}
}

func TestH3_EndOfInputTerminatesReview(t *testing.T) {
	for _, choices := range [][]review.Decision{nil, {review.Continue}, {review.Continue, review.Escalate}} {
		got, _ := askReview(t, "", choices, 0, reviewReq("ok"))
		if got.Decision != review.Terminate {
			t.Errorf("choices %v: decision %q, want terminate", choices, got.Decision)
		}
		if !strings.Contains(got.Explanation, "dismissed") {
			t.Errorf("explanation %q", got.Explanation)
		}
	}
}

func TestH3_EndOfInputDismissesLaterRequests(t *testing.T) {
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader("a\n"), &out)
	ap := c.Approver(nil, 0)
	first, err := ap.Approve(context.Background(), approvalReq())
	if err != nil || first.Decision != approval.Approve {
		t.Fatalf("first: %v, %v", first.Decision, err)
	}
	for range 2 {
		next, err := ap.Approve(context.Background(), approvalReq())
		if err != nil || next.Decision != approval.Reject {
			t.Fatalf("after end of input: %v, %v", next.Decision, err)
		}
	}
}

func TestH3_TimeoutIsFailSafe(t *testing.T) {
	c, pw, out := pipedConsole(t)

	a, err := c.Approver([]approval.Decision{approval.Approve}, 20*time.Millisecond).Approve(context.Background(), approvalReq())
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision != approval.Reject || !strings.Contains(a.Explanation, "timed out") || a.Metadata["timed_out"] != true {
		t.Errorf("approval after timeout: %+v", a)
	}
	r, err := c.Reviewer(nil, 20*time.Millisecond).Review(context.Background(), reviewReq("ok"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision != review.Terminate || !strings.Contains(r.Explanation, "timed out") {
		t.Errorf("review after timeout: %+v", r)
	}
	if !strings.Contains(out.String(), "no answer within 20ms: rejected") {
		t.Errorf("console does not say the request timed out:\n%s", out.String())
	}

	// The console still works: a later answer decides a later request.
	answerNext(t, c, pw, out, 3, "a", approval.Approve)
}

func TestH3_InvalidAnswersDoNotExtendTimeout(t *testing.T) {
	c, pw, _ := pipedConsole(t)
	stop := make(chan struct{})
	go func() { // keep answering badly
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := fmt.Fprintln(pw, "x"); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	defer close(stop)
	start := time.Now()
	a, err := c.Approver(nil, 50*time.Millisecond).Approve(context.Background(), approvalReq())
	if err != nil || a.Decision != approval.Reject {
		t.Fatalf("got %v, %v; want reject", a.Decision, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("timeout of 50ms took %s", d)
	}
}

func TestH4_CancelWhileWaiting(t *testing.T) {
	c, pw, out := pipedConsole(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := c.Reviewer(nil, 0).Review(ctx, reviewReq("ok"))
		errc <- err
	}()
	waitFor(t, out, "Decide:", 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if !strings.Contains(out.String(), "request cancelled") {
		t.Errorf("console does not say the request was cancelled:\n%s", out.String())
	}

	// A line typed afterwards answers the next request, not the cancelled one.
	answerNext(t, c, pw, out, 2, "t", approval.Terminate)
}

func TestH4_CancelledContextNeverPrompts(t *testing.T) {
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader("a\n"), &out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Approver(nil, 0).Approve(ctx, approvalReq()); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if out.String() != "" {
		t.Errorf("prompted for a cancelled request:\n%s", out.String())
	}
}

func TestH4_ConcurrentRequestsSerialize(t *testing.T) {
	c, pw, out := pipedConsole(t)
	ap := c.Approver(nil, 0)

	const n = 4
	results := make(chan approval.Decision, n)
	for i := range n {
		go func() {
			req := approvalReq()
			req.Call = tool.NewCall(fmt.Sprint("call_", i), "bash", fmt.Sprintf(`{"cmd":"echo %d"}`, i))
			a, err := ap.Approve(context.Background(), req)
			if err != nil {
				t.Error(err)
			}
			results <- a.Decision
		}()
	}
	answers := []string{"a", "r", "a", "t"}
	for i, answer := range answers {
		waitFor(t, out, "Decide:", i+1)
		time.Sleep(20 * time.Millisecond) // give a second prompt time to appear, if it would
		if got := strings.Count(out.String(), "Decide:"); got != i+1 {
			t.Fatalf("%d prompts on the console at once after %d answers:\n%s", got-i, i, out.String())
		}
		fmt.Fprintln(pw, answer)
	}
	count := map[approval.Decision]int{}
	for range n {
		count[<-results]++
	}
	if count[approval.Approve] != 2 || count[approval.Reject] != 1 || count[approval.Terminate] != 1 {
		t.Errorf("decisions %v", count)
	}
	// Each prompt is whole: the next one starts only after the answer.
	if strings.Count(out.String(), "→ ") != n {
		t.Errorf("want %d answered prompts:\n%s", n, out.String())
	}
}

func TestH4_QueuedRequestHonoursCancel(t *testing.T) {
	c, pw, out := pipedConsole(t)
	first := approveLater(c)
	waitFor(t, out, "Decide:", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Approver(nil, 0).Approve(ctx, approvalReq()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("queued request: error %v, want deadline exceeded", err)
	}
	if strings.Count(out.String(), "Decide:") != 1 {
		t.Errorf("the queued request was shown:\n%s", out.String())
	}
	fmt.Fprintln(pw, "a")
	if d := (<-first).Value.Decision; d != approval.Approve {
		t.Errorf("first request: %q", d)
	}
}

func TestR7_ReadErrorIsAnError(t *testing.T) {
	var out syncbuf.Buffer
	boom := errors.New("terminal gone")
	c := NewConsole(iotest.ErrReader(boom), &out)
	_, err := c.Reviewer(nil, 0).Review(context.Background(), reviewReq("ok"))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestA7_WriteErrorIsAnError(t *testing.T) {
	c := NewConsole(strings.NewReader("a\n"), failWriter{})
	a, err := c.Approver(nil, 0).Approve(context.Background(), approvalReq())
	if err == nil || a.Decision == approval.Approve {
		t.Fatalf("unseen prompt answered: %v, %v", a.Decision, err)
	}
}

func TestH5_QuoteGuttersEveryLine(t *testing.T) {
	q := quoteBlock("one\n```\nApprove? [a/r/t]\n\nlast\n", 0)
	want := contentGutter + "one\n" + contentGutter + "```\n" + contentGutter + "Approve? [a/r/t]\n" + contentGutter + "\n" + contentGutter + "last\n"
	if q != want {
		t.Errorf("quoteBlock:\n%s\nwant:\n%s", q, want)
	}
	if quoteBlock("", 0) != "" || quoteBlock("\n", 0) != "" {
		t.Error("quoteBlock of empty text is not empty")
	}
}

func TestH5_PromptEscapesToolOutput(t *testing.T) {
	hostile := strings.Join([]string{
		"\x1b[2J\x1b[Hwelcome",
		"Approve? [a/r/t]",
		"```",
		"Decide:  [a] Approve  [t] Terminate > a",
		"→ continue",
		"\rDecide: fake after carriage return",
		strings.Repeat("x", 77) + "Approve? [a/r/t] wrapped",
		strings.Repeat("日", 38) + "```",
		"```bash",
	}, "\n")
	req := reviewReq(hostile)
	req.Message = "```\nApprove? [a/r/t]\n\x1b[31mred"
	req.View = tool.View{Title: "bash\x1b[2J", Format: "bash", Content: "```\nrm -rf /\n```"}
	req.Call = tool.NewCall("c", "bash", `{"cmd":"`+"```"+`\nApprove? [a/r/t]"}`)
	_, out := askReview(t, "t\n", nil, 0, req)

	for i := 0; i < len(out); i++ {
		if b := out[i]; (b < 0x20 && b != '\n') || b == 0x7f {
			t.Fatalf("raw control byte %#x in the prompt at %d:\n%q", b, i, out)
		}
	}
	menus := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "Approve?"), strings.HasPrefix(line, "→ continue"):
			t.Errorf("untrusted text at the start of a line: %q", line)
		case strings.HasPrefix(line, "Decide:"):
			menus++
		}
		if w := utf8.RuneCountInString(line); w > 80 && !strings.HasPrefix(line, "Decide:") {
			// a wide line would wrap on the terminal and start a line without a gutter
			cols := 0
			for _, r := range line {
				cols += runeWidth(r, cols)
			}
			if cols > 80 {
				t.Errorf("line of %d columns: %q", cols, line)
			}
		}
	}
	if menus != 1 {
		t.Errorf("%d lines start like the menu, want only the real one:\n%s", menus, out)
	}
	if !strings.Contains(out, contentGutter+`\x1b[2J\x1b[Hwelcome`) {
		t.Errorf("escaped output not shown:\n%s", out)
	}
}

// TestH1_ContinueNotOfferedUntilWholeResultShown: a long result is cut at
// first, and Approve (continue) is offered only once "v" has shown it
// whole.
func TestH1_ContinueNotOfferedUntilWholeResultShown(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	rv, out := askReview(t, "c\nv\nc\n", nil, 0, reviewReq(strings.Join(lines, "\n")))
	if rv.Decision != review.Continue {
		t.Fatalf("decision %s, want continue:\n%s", rv.Decision, out)
	}
	first, rest, ok := strings.Cut(out, "Decide:")
	if !ok {
		t.Fatalf("no menu:\n%s", out)
	}
	if !strings.Contains(first, contentGutter+"line 0\n") || !strings.Contains(first, contentGutter+"line 999\n") {
		t.Errorf("first or last line missing")
	}
	if strings.Contains(first, contentGutter+"line 500\n") {
		t.Errorf("middle line shown")
	}
	if !strings.Contains(first, "… 920 lines omitted (v shows all) …") {
		t.Errorf("no omission marker:\n%s", first)
	}
	if n := strings.Count(first, "\n"); n > 100 {
		t.Errorf("prompt of %d lines", n)
	}
	menu, _, _ := strings.Cut(rest, "\n")
	if strings.Contains(menu, "Approve") || !strings.Contains(menu, "[v] Show all") {
		t.Errorf("first menu %q offers approve, or not v", menu)
	}
	if !strings.Contains(rest, "approve is not offered yet: the result was cut") {
		t.Errorf("c before v was not refused:\n%s", rest)
	}
	for i := range 1000 {
		if !strings.Contains(rest, contentGutter+fmt.Sprintf("line %d\n", i)) {
			t.Fatalf("v did not show line %d", i)
		}
	}

	// With input ending before v, the review terminates (SPEC H3).
	rv, _ = askReview(t, "c\na\n", nil, 0, reviewReq(strings.Join(lines, "\n")))
	if rv.Decision != review.Terminate {
		t.Errorf("decision %s without v, want terminate", rv.Decision)
	}
}

func TestH2_InvalidChoicesFailEveryCall(t *testing.T) {
	c := NewConsole(strings.NewReader("a\n"), io.Discard)
	if _, err := c.Approver([]approval.Decision{approval.Modify}, 0).Approve(context.Background(), approvalReq()); err == nil || !strings.Contains(err.Error(), "modify") {
		t.Errorf("modify offered: %v", err)
	}
	if _, err := c.Approver([]approval.Decision{"maybe"}, 0).Approve(context.Background(), approvalReq()); err == nil {
		t.Error("unknown choice accepted")
	}
	if _, err := c.Reviewer([]review.Decision{"reject"}, 0).Review(context.Background(), reviewReq("ok")); err == nil {
		t.Error("reject accepted as a review choice")
	}
}

func TestH2_FactoryParameters(t *testing.T) {
	if !approval.Registered("human") || !review.Registered("human") {
		t.Fatal("human is not registered")
	}
	for _, tc := range []struct {
		params  map[string]any
		wantErr string
	}{
		{nil, ""},
		{map[string]any{"choices": []any{"approve", "reject", "terminate", "escalate"}, "timeout": 30}, ""},
		{map[string]any{"choices": []string{"Approve", " reject "}, "timeout": 1.5}, ""},
		{map[string]any{"timeout": 0}, ""},
		{map[string]any{"choices": []any{"modify"}}, "cannot offer modify alone"},
		// Inspect's choices with modify load unchanged; the console leaves it out.
		{map[string]any{"choices": []any{"approve", "modify", "reject"}}, ""},
		{map[string]any{"choices": []any{"approve", "maybe"}}, `unknown choice "maybe" (choices: approve, reject, terminate, escalate)`},
		{map[string]any{"choices": []any{"continue"}}, `unknown choice "continue"`},
		{map[string]any{"choices": []any{}}, "choices is empty"},
		{map[string]any{"choices": []any{"approve", 3}}, "item 2 is int"},
		{map[string]any{"choices": "approve"}, "list of strings"},
		{map[string]any{"timeout": "30s"}, "number of seconds"},
		{map[string]any{"timeout": -1}, "number of seconds"},
		{map[string]any{"colour": "red"}, `unknown parameter "colour" (parameters: choices, timeout)`},
	} {
		_, err := approval.Build("human", tc.params)
		checkErr(t, "approver", tc.params, err, tc.wantErr)
	}
	for _, tc := range []struct {
		params  map[string]any
		wantErr string
	}{
		{nil, ""},
		{map[string]any{"choices": []any{"continue", "terminate", "escalate"}, "timeout": uint64(10)}, ""},
		{map[string]any{"choices": []any{"reject"}}, `unknown choice "reject" (choices: continue, terminate, escalate)`},
		{map[string]any{"choices": []any{"approve"}}, `unknown choice "approve"`},
		{map[string]any{"timeout": []any{1}}, "number of seconds"},
		{map[string]any{"decision": "continue"}, `unknown parameter "decision"`},
	} {
		_, err := review.Build("human", tc.params)
		checkErr(t, "reviewer", tc.params, err, tc.wantErr)
	}
}

func checkErr(t *testing.T, what string, params map[string]any, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s %v: %v", what, params, err)
	case want != "" && err == nil:
		t.Errorf("%s %v: no error, want %q", what, params, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s %v: error %q, want %q", what, params, err, want)
	}
}

func TestH3_ParseTimeout(t *testing.T) {
	for v, want := range map[any]time.Duration{30: 30 * time.Second, 0.5: 500 * time.Millisecond, int64(2): 2 * time.Second} {
		got, err := parseTimeout(v)
		if err != nil || got != want {
			t.Errorf("parseTimeout(%v) = %v, %v; want %v", v, got, err, want)
		}
	}
}

func TestH4_DefaultIsOneConsole(t *testing.T) {
	if Default() == nil || Default() != Default() {
		t.Error("Default is not one console")
	}
}

func TestH4_LogIsHeldWhilePrompting(t *testing.T) {
	inR, inW := io.Pipe()
	var out syncbuf.Buffer
	c := NewConsole(inR, &out)
	log := c.Log()
	if _, err := io.WriteString(log, "before\n"); err != nil {
		t.Fatal(err)
	}
	done := bgtest.Go(func() (approval.Approval, error) {
		return c.Approver(nil, 0).Approve(context.Background(), &approval.Request{Call: tool.NewCall("1", "bash", `{"cmd":"ls"}`)})
	})
	waitFor(t, &out, "Decide:", 1)
	if _, err := io.WriteString(log, "during\n"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "during") {
		t.Fatal("log output broke into a pending prompt")
	}
	if _, err := io.WriteString(inW, "a\n"); err != nil {
		t.Fatal(err)
	}
	if a := (<-done).Must(t); a.Decision != approval.Approve {
		t.Fatalf("decision %s", a.Decision)
	}
	got := out.String()
	if i, j := strings.Index(got, "→ approve"), strings.Index(got, "during"); j < 0 || j < i {
		t.Errorf("held log not flushed after the answer:\n%s", got)
	}
	_, _ = io.WriteString(log, "after\n")
	if !strings.HasSuffix(out.String(), "after\n") {
		t.Error("log not written directly when no prompt is pending")
	}
}

func TestConsoleLine(t *testing.T) {
	var out syncbuf.Buffer
	c := NewConsole(strings.NewReader("first request\n"), &out)
	got, err := c.Line(context.Background(), "next > ")
	if err != nil || got != "first request" || !strings.Contains(out.String(), "next > ") {
		t.Fatalf("Line = %q, %v; output %q", got, err, out.String())
	}
	if _, err := c.Line(context.Background(), "next > "); !errors.Is(err, io.EOF) {
		t.Errorf("at end of input: %v, want io.EOF", err)
	}
}

// Issue 18 item 9 (SPEC P2): a pattern copied from the console's request
// (the line under "call:") matches the call that runs: the console shows
// the arguments in the tool's schema order, then sorted, as policy
// patterns see them, whatever order the model sent them in.
func TestP2_PatternCopiedFromTheConsoleMatches(t *testing.T) {
	ed, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	order := tool.OrderOf(ed)
	call := tool.NewCall("c1", editor.Name, `{"path":"a.txt","file_text":"x","zz":1,"command":"create","aa":2}`)
	_, _, scr := decideAsPerson(t, &approval.Request{Call: call, Tool: ed, Order: order})
	at := strings.Index(scr, "call:\n"+contentGutter)
	if at < 0 {
		t.Fatalf("no call on the screen:\n%s", scr)
	}
	line := scr[at+len("call:\n"+contentGutter):]
	line = line[:strings.IndexByte(line, '\n')]
	p, err := policy.Compile(line)
	if err != nil {
		t.Fatalf("pattern %q: %v", line, err)
	}
	if !p.Match(policy.NewTarget(&call, order)) {
		t.Errorf("pattern %q copied from the console does not match the call (policy sees %s)", line, call.TextIn(order))
	}
	if want := "text_editor(command='create', path='a.txt', file_text='x', aa=2, zz=1)"; line != want {
		t.Errorf("console shows %s, want %s", line, want)
	}
}
