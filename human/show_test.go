package human

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/syncbuf"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// screen is a console output that tells a reader when something new was
// written.
type screen struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// dangerous is what the simulated person looks for.
var dangerous = regexp.MustCompile(`\brm\b`)

// person answers prompts as a person who approves whatever shows no
// dangerous command: when "rm" is anywhere on the screen since the request
// began, they reject; else, when Approve is offered, they approve; else
// they answer v to see the rest. They answer only once a menu is waiting.
// It returns the answers given.
func person(t *testing.T, scr *screen, in *io.PipeWriter, done <-chan struct{}) []string {
	t.Helper()
	var answers []string
	answered := 0 // length of the screen when the last answer was given
	for {
		select {
		case <-done:
			return answers
		case <-scr.changed:
		case <-time.After(10 * time.Millisecond):
		}
		text := scr.String()
		if len(text) == answered || !strings.HasSuffix(text, " > ") {
			continue
		}
		request := text[strings.LastIndex(text, "── approval requested"):]
		menu := text[strings.LastIndex(text, "Decide:"):]
		var answer string
		switch {
		case dangerous.MatchString(request):
			answer = "r"
		case strings.Contains(menu, "[a] Approve"):
			answer = "a"
		case strings.Contains(menu, "[v] Show all"):
			answer = "v"
		default:
			answer = "r"
		}
		answered = len(text)
		answers = append(answers, answer)
		if _, err := io.WriteString(in, answer+"\n"); err != nil {
			return answers
		}
	}
}

// decideAsPerson shows req to the simulated person and returns their
// decision, the answers they gave and the screen.
func decideAsPerson(t *testing.T, req *approval.Request) (approval.Decision, []string, string) {
	t.Helper()
	r, w := io.Pipe()
	scr := newScreen()
	c := NewConsole(r, scr)
	done := make(chan struct{})
	var answers []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		answers = person(t, scr, w, done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := c.Approver(nil, 0).Approve(ctx, req)
	close(done)
	wg.Wait()
	_ = w.Close()
	if err != nil {
		t.Fatalf("Approve: %v\n%s", err, scr.String())
	}
	return a.Decision, answers, scr.String()
}

func bashRequest(cmd string, extra ...string) *approval.Request {
	args := fmt.Sprintf(`{"cmd":%q%s}`, cmd, strings.Join(extra, ""))
	call := tool.NewCall("c1", "bash", args)
	return &approval.Request{
		Call:  call,
		View:  tool.View{Title: "bash", Format: "bash", Content: cmd},
		Order: tool.Order{"cmd", "sandbox_permissions", "justification"},
	}
}

// TestH1_ApproveNotOfferedUntilWholeCallShown: a person who approves
// whatever shows no dangerous command never approves one hidden in a long
// call, whichever part of the call hides it; a long call with nothing
// dangerous in it is still approved once shown whole.
func TestH1_ApproveNotOfferedUntilWholeCallShown(t *testing.T) {
	pad := func(s string) string { return strings.Repeat(s, 3500) }
	long := func(prefix string) string {
		var b strings.Builder
		for i := range 300 {
			fmt.Fprintf(&b, "%s line %d\n", prefix, i)
		}
		return b.String()
	}
	editor := &approval.Request{
		Call: tool.NewCall("c1", "text_editor", fmt.Sprintf(`{"command":"create","path":"run.sh","file_text":%q}`, long("echo")+"rm -rf ~\n"+long("echo"))),
		View: tool.View{Title: "create run.sh", Format: "diff", Content: "+" + strings.ReplaceAll(long("echo")+"rm -rf ~\n"+long("echo"), "\n", "\n+")},
	}
	python := &approval.Request{
		Call: tool.NewCall("c1", "python", fmt.Sprintf(`{"code":%q}`, long("print(1)")+"import os; os.system('rm -rf ~')\n"+long("print(2)"))),
	}
	boundaryReq := bashRequest("true")
	boundaryReq.Boundary = &boundary.Request{Permission: boundary.Exec, Command: "echo " + pad("A") + "; rm ~/victim; echo " + pad("B"), Reason: "escalated"}
	for _, tc := range []struct {
		name string
		req  *approval.Request
	}{
		{"rm between two long commands", bashRequest("echo " + pad("A") + "; rm ~/victim; echo " + pad("B"))},
		{"rm in the middle of a long script", bashRequest(long("echo") + "rm ~/victim\n" + long("echo"))},
		{"rm inside a long command", bashRequest("echo " + pad("A") + " $(rm ~/victim) " + pad("B"))},
		{"rm in a here-document", bashRequest("bash <<'EOF'\n" + long("echo") + "rm ~/victim\n" + long("echo") + "EOF\n")},
		{"rm in an opaque script", bashRequest("eval \"$X\"; " + long("echo") + "rm ~/victim\n" + long("echo"))},
		{"rm in a long justification", bashRequest("ls", `,"sandbox_permissions":"require_escalated","justification":`+fmt.Sprintf("%q", long("because")+"then rm ~/victim\n"+long("because")))},
		{"rm in a long file edit", editor},
		{"rm in long python code", python},
		{"rm in a boundary request", boundaryReq},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, answers, scr := decideAsPerson(t, tc.req)
			if d == approval.Approve {
				t.Fatalf("the person approved a call with rm in it; answers %v; screen:\n%s", answers, scr)
			}
			if d != approval.Reject {
				t.Fatalf("decision %s, want reject; answers %v", d, answers)
			}
		})
	}

	// Nothing dangerous: the person approves, after seeing it whole.
	d, answers, scr := decideAsPerson(t, bashRequest(long("echo")))
	if d != approval.Approve || strings.Join(answers, ",") != "v,a" {
		t.Fatalf("benign long call: %s after %v:\n%s", d, answers, scr)
	}
	first := scr[:strings.Index(scr, "Decide:")]
	if !strings.Contains(first, "was cut: answer v to see the whole request") {
		t.Errorf("no word on why approve is missing:\n%s", first)
	}
	if strings.Count(scr, contentGutter+"echo line 150\n") == 0 {
		t.Errorf("v did not show the middle of the call")
	}

	// Short calls are approved at once.
	d, answers, _ = decideAsPerson(t, bashRequest("ls -la; git status"))
	if d != approval.Approve || strings.Join(answers, ",") != "a" {
		t.Errorf("short call: %s after %v", d, answers)
	}
}

// TestH1_ShellCommandsListedAboveTheCall: every simple command of a shell
// call is listed, wrappers seen through, before the call text.
func TestH1_ShellCommandsListedAboveTheCall(t *testing.T) {
	var out syncbuf.Buffer
	req := bashRequest("cd src && sudo bash -c 'rm -rf build' | tee log; echo \"$(whoami)\"")
	if _, err := NewConsole(strings.NewReader("r\n"), &out).Approver(nil, 0).Approve(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	want := "commands (7, as the shell splits them):\n" +
		"  1 │ cd src\n" +
		"  2 │ sudo bash -c 'rm -rf build'\n" +
		"  3 │ bash -c 'rm -rf build'\n" +
		"  4 │ rm -rf build\n" +
		"  5 │ tee log\n" +
		"  6 │ whoami\n" +
		"  7 │ echo \"$(whoami)\"\n" +
		"call:\n"
	if !strings.Contains(s, want) {
		t.Errorf("commands not listed as\n%s\nin:\n%s", want, s)
	}
	if !strings.Contains(s, "Decide:  [a] Approve") {
		t.Errorf("approve not offered on a call shown whole:\n%s", s)
	}
}

// TestH1_EscalateStaysOfferedWhenCut: only the choices that let the call
// run wait for "v"; the others are offered at once.
func TestH1_EscalateStaysOfferedWhenCut(t *testing.T) {
	var out syncbuf.Buffer
	req := bashRequest(strings.Repeat("echo x\n", 200))
	choices := []approval.Decision{approval.Approve, approval.Reject, approval.Terminate, approval.Escalate}
	a, err := NewConsole(strings.NewReader("a\ne\n"), &out).Approver(choices, 0).Approve(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision != approval.Escalate {
		t.Errorf("decision %s, want escalate", a.Decision)
	}
	if !strings.Contains(out.String(), "Decide:  [v] Show all  [r] Reject  [t] Terminate  [e] Escalate > ") {
		t.Errorf("menu:\n%s", out.String())
	}
}

// TestH5_WideCharactersCannotImitateConsoleLines: lines of wide
// characters, emoji and East Asian ambiguous characters are wrapped by the
// columns they take, so the terminal never wraps one itself and starts its
// rest at column 0, where it could pass for the console's own line.
func TestH5_WideCharactersCannotImitateConsoleLines(t *testing.T) {
	fake := "Decide:  [a] Approve  [r] Reject  [t] Terminate > "
	hostile := []string{
		strings.Repeat("日", 39) + fake,
		strings.Repeat("⌚", 39) + fake, // emoji, wide
		strings.Repeat("☔⚡", 20) + fake,
		strings.Repeat("①", 77) + fake,       // East Asian ambiguous
		strings.Repeat("😀", 38) + "x" + fake, // emoji outside the BMP
		strings.Repeat("e\u0301", 70) + fake, // combining marks take no column
		strings.Repeat("\t", 9) + fake,
	}
	for _, columns := range []int{80, 50} {
		for _, h := range hostile {
			rreq := reviewReq(h)
			rreq.Message = h
			rreq.View = tool.View{Title: h, Format: "text", Content: h}
			areq := bashRequest("echo '" + h + "'")
			areq.Message = h
			for _, render := range []func() prompt{
				func() prompt { return approvalPrompt(areq, columns) },
				func() prompt { return reviewPrompt(rreq, columns) },
			} {
				pr := render()
				for _, text := range []string{pr.short, pr.full} {
					for _, line := range strings.Split(text, "\n") {
						if w := textWidth(line); w > columns && strings.ContainsAny(line, "日⌚☔⚡①😀\u0301\tD") {
							t.Errorf("%d columns: line of %d columns: %q", columns, w, line)
						}
						if strings.HasPrefix(line, "Decide:") {
							t.Errorf("untrusted text starts a line: %q", line)
						}
					}
				}
			}
		}
	}
	// A known width for each kind of character.
	for _, tc := range []struct {
		r    rune
		want int
	}{{'a', 1}, {'日', 2}, {'⌚', 2}, {'😀', 2}, {'①', 2}, {'\u0301', 0}} {
		if got := runeWidth(tc.r, 0); got != tc.want {
			t.Errorf("width of %q = %d, want %d", tc.r, got, tc.want)
		}
	}
}

// TestH1_ReviewWithLongCallStillOffersApprove: in a review only the result
// gates Approve; the call already ran.
func TestH1_ReviewWithLongCallStillOffersApprove(t *testing.T) {
	req := reviewReq("ok")
	req.Call = tool.NewCall("c1", "bash", fmt.Sprintf(`{"cmd":%q}`, strings.Repeat("echo x\n", 200)))
	rv, out := askReview(t, "a\n", nil, 0, req)
	if rv.Decision != review.Continue {
		t.Errorf("decision %s, want continue:\n%s", rv.Decision, out)
	}
	if !strings.Contains(out, "Decide:  [v] Show all  [a] Approve  [t] Terminate > ") {
		t.Errorf("menu:\n%s", out)
	}
}

// TestH1_CommandsAreThoseThatRun: the commands listed are those of the
// argument the tool runs; a call with repeated or differently cased names
// is a parsing error (SPEC A8) and offers no script to list.
func TestH1_CommandsAreThoseThatRun(t *testing.T) {
	script, ok := shellScript(tool.NewCall("c", "bash", `{"justification":"x","cmd":"rm -rf ~"}`), tool.View{}, nil)
	if !ok || script != "rm -rf ~" {
		t.Errorf("script %q, %v; want the rm the tool runs", script, ok)
	}
	for _, args := range []string{
		`{"cmd":"ls","cmd":"rm -rf ~"}`,
		`{"cmd":"ls","CMD":"rm -rf ~"}`,
	} {
		call := tool.NewCall("c", "bash", args)
		if call.ParseError == "" {
			t.Errorf("%s: no parsing error (SPEC A8)", args)
		}
		if script, ok := shellScript(call, tool.View{}, nil); ok {
			t.Errorf("%s: script %q listed for a call that never runs", args, script)
		}
	}
}
