package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
)

// TestS4_PanelNeverApprovesTheUnseen drives the queue in headless Chromium
// as the attack of issue 21 did: the selected card is decided elsewhere
// and `a` follows at once; a long shell call with `rm -rf ~/project` in its
// middle; a card below the fold. The effects checked are in the store:
// nothing is decided that the person could not see whole. It also checks
// that the operator who decided shows by name, that wrapped lines keep
// their continuation mark at 390 px, and writes the screenshots of
// docs/panel-1280.png and docs/panel-390.png to $WARDEN_ARTIFACTS.
func TestS4_PanelNeverApprovesTheUnseen(t *testing.T) {
	bin := chromium(t)
	shots := artifacts(t)
	env := newPanelEnv(t)
	env.srv.Operator = "dana" // the holder of the panel's token
	env.srv.RunToken = runToken
	st := env.st
	bctx := context.Background()

	ctx, do, eval, waitFor := startChromium(t, bin)
	status := func(id string) store.Request {
		t.Helper()
		r, err := st.Request(bctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A run with its task, then three requests: a short one, a long shell
	// script with a dangerous command in its middle, another short one.
	run := &serveclient.Client{URL: env.url, Token: runToken} // the run's own credential, as warden run --server holds
	writeEvents(t, run, "run-7c2e", 1,
		event.RunStart{Task: "Clean the build and rerun the tests", Model: "claude-sonnet", Workdir: "/home/dev/project",
			Settings: &event.RunSettings{Sandbox: &event.SandboxSettings{Mode: "workspace-write"}}},
	)
	short := func(callID, cmd string) store.Request {
		args, _ := json.Marshal(map[string]string{"cmd": cmd})
		r := store.Request{Kind: "approval", RunID: "run-7c2e", Agent: "main", Call: store.Call{ID: callID, Function: "bash", Arguments: args},
			Message: "Next step.", Choices: []string{"approve", "reject", "terminate"},
			Context: &store.RequestContext{Host: "devbox", Message: "Next step.", Turns: []store.Turn{{Role: "user", Text: "Clean the build and rerun the tests"}, {Role: "assistant", Text: "Cleaning first."}}}}
		if err := run.Submit(bctx, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := short("call_1", "go build ./...")
	script := "set -e\ncd build\n" + strings.Repeat("make -C module test  # each module in turn, with its own long list of flags that wraps on a phone\n", 14) +
		"rm -rf ~/project\n" + strings.Repeat("echo cleaning step\n", 10) + "echo done"
	long := short("call_2", script)
	last := short("call_3", "rm -f important.txt")

	do("log in",
		chromedp.Navigate(env.url+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), panelToken),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#req-"+last.ID)),
	)
	waitFor("the live stream", `document.querySelector('#live.on') !== null`)
	if cur := eval("current", `document.querySelector('.req.current').id`); cur != "req-"+first.ID {
		t.Fatalf("the first card selected is %s, want the oldest", cur)
	}

	// 1. The selected card is decided elsewhere; a follows at once. Nothing
	// is selected, a notice says what happened, and a decides nothing.
	// Another operator, alice, decides it with her own credential.
	aliceCred := "alice-credential-0123456789abcdef0123456789abcdef"
	if err := st.AddOperator(bctx, "alice", proof.Hash(aliceCred)); err != nil {
		t.Fatal(err)
	}
	alice := &serveclient.Client{URL: env.url, Token: aliceCred}
	if _, err := alice.Decide(bctx, first.ID, store.Answer{Decision: "reject", Explanation: "not now"}); err != nil {
		t.Fatal(err)
	}
	waitFor("the decided card", `document.querySelector('#req-`+first.ID+`.gone') !== null`)
	if n := eval("selected", `String(document.querySelectorAll('#queue .req.current').length)`); n != "0" {
		t.Fatalf("after the selected card was decided elsewhere %s card(s) are selected, want none", n)
	}
	if msg := eval("notice", `document.getElementById('panel-notice').hidden ? '' : document.getElementById('panel-notice').textContent`); !strings.Contains(msg, "was rejected by alice") || !strings.Contains(msg, "Nothing is selected") {
		t.Errorf("the notice says %q; want what happened and that nothing is selected", msg)
	}
	do("a right after", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent("a"))
	time.Sleep(700 * time.Millisecond)
	if r := status(long.ID); r.Status != "pending" {
		t.Fatalf("a after the selected card went decided the long call: %s", r.Decision)
	}
	if r := status(last.ID); r.Status != "pending" {
		t.Fatalf("a after the selected card went decided %s: %s", last.Call.Arguments, r.Decision)
	}
	waitFor("the decided card to leave", `document.querySelector('#req-`+first.ID+`') === null`)
	if n := eval("selected", `String(document.querySelectorAll('#queue .req.current').length)`); n != "0" {
		t.Fatalf("when the decided card left, %s card(s) were selected, want none until the person moves", n)
	}
	// The operator who decided shows by name, as the store recorded it.
	decidedBy := status(first.ID).DecidedBy
	do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".decided-list .decided-by")))
	if got := eval("decided by", `document.querySelector('.decided-list .decided-by').textContent`); got != decidedBy || got != "alice" {
		t.Errorf("the panel shows decided by %q, the store %q; want alice", got, decidedBy)
	}

	// 2. The long call: its length shows, Approve waits until it is
	// expanded, and a does nothing before.
	card := "#req-" + long.ID
	if cur := eval("current", `document.querySelector('.req.current').id`); cur != "req-"+long.ID {
		t.Fatalf("after a reload the selected card is %s, want the long call", cur)
	}
	if size := eval("size", `document.querySelector('`+card+` .size').textContent`); !strings.Contains(size, "28 lines") {
		t.Errorf("the long call says its size is %q", size)
	}
	if v := eval("approve", `String(document.querySelector('`+card+` button[value="approve"]').disabled)`); v != "true" {
		t.Error("Approve of a long call not yet expanded can be clicked")
	}
	rows := eval("commands", `Array.from(document.querySelectorAll('`+card+` ol.commands li')).map(function (li) { return li.querySelector('.num').textContent + (li.classList.contains('risky') ? '!' : '') + ' ' + li.querySelector('code').textContent; }).join('\n')`)
	if !strings.Contains(rows, "17! rm -rf ~/project") {
		t.Errorf("the commands do not list rm -rf ~/project as number 17, marked risky:\n%s", rows)
	}
	shot("panel-1280")
	do("a before expanding", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`), chromedp.KeyEvent("a"))
	time.Sleep(700 * time.Millisecond)
	if r := status(long.ID); r.Status != "pending" {
		t.Fatalf("a approved a long call never expanded: %s", r.Decision)
	}
	if msg := eval("notice", `document.getElementById('panel-notice').textContent`); !strings.Contains(msg, "not shown whole") && !strings.Contains(msg, "not in view") {
		t.Errorf("the notice says %q; want why nothing was approved", msg)
	}

	// 3. At 390 px, wrapped lines keep their continuation mark.
	do("narrow", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(card)))
	marks := eval("continuation", `(function () {
	  var wrapped = 0, marked = 0;
	  document.querySelectorAll('.req .lines .ln').forEach(function (ln) {
	    var lh = parseFloat(getComputedStyle(ln).lineHeight);
	    if (ln.getBoundingClientRect().height > lh * 1.5) {
	      wrapped++;
	      if (getComputedStyle(ln).backgroundImage.indexOf('cont.svg') >= 0) { marked++; }
	    }
	  });
	  return wrapped + '/' + marked;
	})()`)
	if parts := strings.Split(marks, "/"); parts[0] == "0" || parts[0] != parts[1] {
		t.Errorf("wrapped lines at 390 px / with a continuation mark: %s; want some, all marked", marks)
	}
	if v := eval("page width", `String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); v != "0" {
		t.Errorf("the queue scrolls sideways by %s px at 390", v)
	}
	shot("panel-390")
	do("wide", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(card)))

	// Expanded, the long call can be approved with a.
	do("expand with v", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`), chromedp.KeyEvent("v"))
	waitFor("the whole call", `document.querySelector('`+card+` pre.call.whole') !== null && !document.querySelector('`+card+` button[value="approve"]').disabled`)
	// The whole call is taller than the window: a first shows its buttons.
	time.Sleep(time.Second)
	do("a with the buttons out of view", chromedp.KeyEvent("a"))
	time.Sleep(300 * time.Millisecond)
	if r := status(long.ID); r.Status != "pending" {
		t.Fatalf("a approved the long call with its buttons out of view: %s", r.Decision)
	}
	waitFor("the card in view", `(function () { var r = document.querySelector('`+card+` .choices').getBoundingClientRect(); return r.top >= -2 && r.bottom <= window.innerHeight + 2; })()`)
	time.Sleep(time.Second)
	do("a once expanded and in view", chromedp.KeyEvent("a"), chromedp.WaitVisible(chromedp.CSS(".notice.ok")))
	if r := status(long.ID); r.Status != "decided" || r.Decision != "approve" {
		t.Fatalf("the expanded long call is %s %s, want approved", r.Status, r.Decision)
	}

	// 4. A card below the fold: a brings it into view and decides nothing;
	// a second a, with the card in view, approves.
	card = "#req-" + last.ID
	do("push the card below the fold", chromedp.WaitVisible(chromedp.CSS(card)), chromedp.Evaluate[chromedp.Void](`var d = document.createElement('div'); d.id = 'spacer'; d.style.height = '3000px'; document.getElementById('queue').before(d); window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()`))
	if cur := eval("current", `document.querySelector('.req.current').id`); cur != "req-"+last.ID {
		t.Fatalf("the selected card is %s, want %s", cur, card)
	}
	do("a below the fold", chromedp.KeyEvent("a"))
	time.Sleep(700 * time.Millisecond)
	if r := status(last.ID); r.Status != "pending" {
		t.Fatalf("a approved a card below the fold: %s", r.Decision)
	}
	if msg := eval("notice", `document.getElementById('panel-notice').textContent`); !strings.Contains(msg, "not in view") {
		t.Errorf("the notice says %q; want that the card was not in view", msg)
	}
	waitFor("the card in view", `(function () { var r = document.querySelector('`+card+` .choices').getBoundingClientRect(); return r.top >= -2 && r.bottom <= window.innerHeight + 2; })()`)
	time.Sleep(time.Second)
	do("a in view", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.notice.ok').forEach(function (n) { n.remove(); })`),
		chromedp.KeyEvent("a"), chromedp.WaitVisible(chromedp.CSS(".notice.ok")))
	if r := status(last.ID); r.Status != "decided" || r.Decision != "approve" || r.DecidedBy == "" {
		t.Fatalf("the card in view is %s %s by %q, want approved by the operator", r.Status, r.Decision, r.DecidedBy)
	}

	// A run's page says, live, when the run waits for a person, and links
	// to the request; the link selects it on the queue.
	do("the run's page", chromedp.Navigate(env.url+"/runs/run-7c2e"), chromedp.WaitVisible(chromedp.ID("events")))
	waitFor("the live stream", `document.querySelector('#live.on') !== null`)
	next := short("call_4", "make test")
	waitFor("the run to say it waits", `document.querySelector('#run-waiting a[href="/#req-`+next.ID+`"]') !== null`)
	do("follow the link", chromedp.Click(chromedp.CSS(`#run-waiting a[href="/#req-`+next.ID+`"]`)), chromedp.WaitVisible(chromedp.CSS("#req-"+next.ID)))
	waitFor("the linked card selected", `document.querySelector('#req-`+next.ID+`.current') !== null`)

	// Notifications, once the person allowed them: a new request raises
	// one while the panel is not in front. (The page's Notification is
	// recorded rather than shown; permission is the browser's, granted.)
	do("allow notifications", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: env.url})
		return err
	}), chromedp.Navigate(env.url+"/"), chromedp.WaitVisible(chromedp.ID("notify")))
	waitFor("the live stream", `document.querySelector('#live.on') !== null`)
	if b := eval("notify button", `document.getElementById('notify').textContent`); b != "Notifications on" {
		t.Errorf("with notifications allowed the button says %q", b)
	}
	eval("record notifications", `(function () {
	  window.shown = [];
	  var N = function (title, opts) { window.shown.push(title + ' | ' + opts.body); };
	  N.permission = 'granted';
	  window.Notification = N;
	  document.hasFocus = function () { return false; };
	  return 'ok';
	})()`)
	another := short("call_5", "make lint")
	waitFor("the new card", `document.getElementById('req-`+another.ID+`') !== null`)
	if got := eval("notifications", `(window.shown || []).join(' ;; ')`); !strings.Contains(got, "warden: approval waiting | bash") {
		t.Errorf("a new request raised %q, want a notification of the approval", got)
	}

	// The header names who is logged in.
	if who := eval("header", `document.getElementById('operator').textContent`); who != "logged in as dana" {
		t.Errorf("the header says %q, want logged in as dana", who)
	}
	// "Allow this exact prefix for this run": the person picks the prefix
	// `git status` on the card of `git status --short` and approves. The
	// call is approved by dana, the rule is the run's, a later `git
	// status` is approved by it without a card, and a script that does
	// more waits for the person.
	grant := short("call_6", "git status --short")
	card = "#req-" + grant.ID
	waitFor("the card with a prefix", `document.querySelector('`+card+` select[name="allow_prefix"]') !== null`)
	if opts := eval("prefixes", `Array.from(document.querySelectorAll('`+card+` select[name="allow_prefix"] option')).map(function (o) { return o.textContent; }).join(' | ')`); opts != "git status --short | git status" {
		t.Errorf("the card offers the prefixes %q", opts)
	}
	do("allow the prefix git status",
		chromedp.SetValue(chromedp.CSS(card+` select[name="allow_prefix"]`), `["git","status"]`),
		chromedp.Click(chromedp.CSS(card+` button[value="approve-prefix"]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice.ok")))
	if msg := eval("notice", `document.querySelector('.notice.ok').textContent`); !strings.Contains(msg, "start with `git status` are approved in your name without asking") {
		t.Errorf("after allowing the prefix the notice says %q", msg)
	}
	if r := status(grant.ID); r.Decision != "approve" || r.DecidedBy != "dana" {
		t.Fatalf("the call whose prefix was allowed: %s %s by %q", r.Status, r.Decision, r.DecidedBy)
	}
	if again := short("call_7", "git status"); again.Status != "decided" || again.DecidedBy != "dana" || again.DecidedVia != "rule" {
		t.Errorf("a later git status: %s by %q via %q, want approved by dana's rule", again.Status, again.DecidedBy, again.DecidedVia)
	}
	more := short("call_8", "git status; rm -f important.txt")
	waitFor("the script that does more to wait", `document.getElementById('req-`+more.ID+`') !== null`)
	if r := status(more.ID); r.Status != "pending" {
		t.Fatalf("git status; rm -f important.txt is %s %s, want pending", r.Status, r.Decision)
	}
	do("the run's rules", chromedp.Navigate(env.url+"/runs/run-7c2e"), chromedp.WaitVisible(chromedp.ID("run-rules")))
	if rule := eval("rule", `document.getElementById('run-rules').textContent.replace(/\s+/g, ' ')`); !strings.Contains(rule, "start with exactly git status") || !strings.Contains(rule, "allowed by dana") {
		t.Errorf("the run's page lists the rule as %q", rule)
	}
	t.Logf("screenshots in %s", shots)
}
