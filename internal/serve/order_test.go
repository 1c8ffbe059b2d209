package serve

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/render"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/editor"
)

// panelCalls finds the calls a page shows: a request card's call is split
// into lines (<span class="ln">), which a copy joins with line breaks.
var panelCalls = regexp.MustCompile(`(?s)<pre class="call(?: lines(?: long)?)?" tabindex="0"(?: id="[^"]*")?>(.*?)</pre>`)

// lineSpans are the line elements of a call split into lines.
var lineSpans = strings.NewReplacer(`<span class="ln">`, "", `</span>`, "")

// Issue 18 item 9 (SPEC P2): a pattern copied from the web panel — a
// pending request the human queue put there, and the calls of a run's
// recorded events — matches the call that runs: the panel shows each call
// as policy patterns see it, its arguments in the tool's schema order,
// then sorted, whatever order the model sent them in.
func TestP2_PatternCopiedFromThePanelMatches(t *testing.T) {
	ed, err := editor.New(editor.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	order := tool.OrderOf(ed)
	st := openStore(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	hs := httptest.NewServer((&Server{Store: st, Token: panelToken, Sealer: testKey(t), Orders: render.OrdersOf(ed)}).Handler())
	t.Cleanup(hs.Close)

	args := `{"path":"a.txt","file_text":"x","zz":1,"command":"create","aa":2}`
	call := tool.NewCall("c1", editor.Name, args)
	matches := func(where, shown string) {
		t.Helper()
		copied := strings.TrimSuffix(htmlUnescape(lineSpans.Replace(shown)), "\n")
		p, err := policy.Compile(copied)
		if err != nil {
			t.Fatalf("%s: pattern %q: %v", where, copied, err)
		}
		if !p.Match(policy.NewTarget(&call, order)) {
			t.Errorf("%s: pattern %q copied from the panel does not match the call (policy sees %s)", where, copied, call.TextIn(order))
		}
	}

	// A pending request, put on the queue by the human approver.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := queue.Approver(st, "run-p", nil, 0).Approve(ctx, &approval.Request{Call: call, Tool: ed, Order: order})
		done <- err
	}()
	deadline := time.Now().Add(bound(10 * time.Second))
	for {
		reqs, err := st.Requests(context.Background(), "pending")
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the queue")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b := newBrowser(t, hs.URL)
	b.login()
	_, page := b.do("GET", "/", nil)
	shown := panelCalls.FindAllStringSubmatch(page, -1)
	if len(shown) == 0 {
		t.Fatalf("no call on the queue page:\n%s", page)
	}
	matches("pending request", shown[0][1])
	cancel()
	<-done

	// The calls of a run's events, recorded as the model sent them.
	now := time.Now().UTC()
	for i, d := range []event.Data{
		event.Model{Output: chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{call}}},
		event.Approval{CallID: "c1", Call: call, Approver: "auto", Decision: "approve"},
		event.Tool{CallID: "c1", Function: editor.Name, Arguments: json.RawMessage(args), Result: "ok"},
	} {
		if err := st.Write(event.Event{ID: string(rune('1' + i)), Time: now, RunID: "run-e", Agent: "main", Data: d}); err != nil {
			t.Fatal(err)
		}
	}
	_, page = b.do("GET", "/runs/run-e", nil)
	shown = panelCalls.FindAllStringSubmatch(page, -1)
	if len(shown) != 3 {
		t.Fatalf("%d calls on the run page, want 3:\n%s", len(shown), page)
	}
	for _, s := range shown {
		matches("run page", s[1])
	}
	if want := "text_editor(command=&#39;create&#39;, path=&#39;a.txt&#39;, file_text=&#39;x&#39;, aa=2, zz=1)"; !strings.Contains(page, want) {
		t.Errorf("the run page does not show %s", htmlUnescape(want))
	}
}
