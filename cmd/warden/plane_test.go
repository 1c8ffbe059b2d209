package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proof"

	"github.com/wardenhq/warden/internal/storetest/stores"
)

// served starts `warden serve` as a real process on a free loopback port
// and a SQLite store, and returns its URL and the environment (home and
// token) a run needs to reach it.
func served(t *testing.T, extra ...string) (url string, env []string) {
	t.Helper()
	dir := t.TempDir()
	vars := append([]string{"WARDEN_HOME=" + filepath.Join(dir, "home"), "WARDEN_TOKEN=test-token-0123456789abcdefghij-" + filepath.Base(dir), "WARDEN_SERVER=", "WARDEN_DB="}, extra...)
	p := startServe(t, vars, "--addr", "127.0.0.1:0", "--db", "sqlite:"+filepath.Join(dir, "warden.db"))
	return p.url, append(os.Environ(), vars...)
}

// startRun starts `warden run ARGS…` with env and returns its stderr and
// a channel that receives its exit; the process is killed when the test
// ends.
func startRun(t *testing.T, env []string, args ...string) (*bytes.Buffer, <-chan error) {
	t.Helper()
	_, exited, stderr := runInBackground(t, env, append([]string{"run"}, args...)...)
	return stderr, exited
}

// api calls the server's API with the token of env.
func api(t *testing.T, env []string, method, url string, body any, out any) int {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		if tok, ok := strings.CutPrefix(kv, "WARDEN_TOKEN="); ok {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
	}
	return resp.StatusCode
}

type apiRequest struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	RunID   string   `json:"run_id"`
	Agent   string   `json:"agent"`
	Choices []string `json:"choices"`
	Status  string   `json:"status"`
	Call    struct {
		Function  string          `json:"function"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"call"`
}

// A run started with --server waits for a person deciding through the
// server's API: the modified command runs, the proposed one never does,
// and the run's events reach the server's store (SPEC H1, H2, S2).
func TestH1_RunWaitsForAPersonThroughTheServer(t *testing.T) {
	url, env := served(t)
	dir := t.TempDir()
	proposed, modified := filepath.Join(dir, "proposed"), filepath.Join(dir, "modified")
	script := write(t, dir, "turns.yaml", `
- tool_calls: [{id: c1, function: bash, arguments: {cmd: "touch `+proposed+`"}}]
- content: done
`)
	tk := write(t, dir, "task.yaml", "name: queued\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	run, exited, stderr := runInBackground(t, env, "run", tk, "--model", "scripted:"+script, "--approval", "human", "--server", url, "--transcript", tr)

	var req apiRequest
	for start := time.Now(); req.ID == ""; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			run.Process.Kill()
			t.Fatalf("no request became pending\nstderr:\n%s", stderr.String())
		}
		var list struct{ Requests []apiRequest }
		if code := api(t, env, "GET", url+"/api/requests?status=pending", nil, &list); code != 200 {
			t.Fatalf("GET /api/requests: %d", code)
		}
		if len(list.Requests) > 0 {
			req = list.Requests[0]
		}
	}
	if req.Kind != "approval" || req.Agent != "main" || req.Call.Function != "bash" || !strings.Contains(strings.Join(req.Choices, ","), "modify") {
		t.Fatalf("pending request %+v", req)
	}
	select {
	case err := <-exited:
		t.Fatalf("the run ended (%v) before the person decided\n%s", err, stderr.String())
	default:
	}
	var decided apiRequest
	code := api(t, env, "POST", url+"/api/requests/"+req.ID+"/decision",
		map[string]any{"decision": "modify", "modified": map[string]string{"cmd": "touch " + modified}}, &decided)
	if code != 200 || decided.Status != "decided" {
		t.Fatalf("decision: %d %+v", code, decided)
	}
	waitOK(t, exited, stderr)
	if _, err := os.Stat(proposed); err == nil {
		t.Error("the proposed command ran although the person modified it")
	}
	if _, err := os.Stat(modified); err != nil {
		t.Errorf("the modified command did not run: %v", err)
	}
	// The server's store has the run and its events, the decision among them.
	var events []map[string]any
	if code := api(t, env, "GET", url+"/api/runs/"+req.RunID+"/events", nil, &events); code != 200 {
		t.Fatalf("GET events: %d", code)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, fmt.Sprint(e["event"]))
		if e["event"] == "approval" && e["decision"] != "modify" {
			t.Errorf("approval event %v, want decision modify", e)
		}
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, "run_start") || !strings.Contains(got, "approval") || !strings.HasSuffix(got, "run_end") {
		t.Errorf("stored events %s", got)
	}
}

// A server that refuses the token is a configuration error before anything
// runs, naming the variable to set.
func TestS2_RunWithWrongTokenIsAConfigError(t *testing.T) {
	url, env := served(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := write(t, dir, "turns.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch "+marker+"\"}}]\n- content: done\n")
	tk := write(t, dir, "task.yaml", "name: q\ninput: go\ntools: [bash]\n")
	code, _, stderr := wardenProc{env: append(env, "WARDEN_TOKEN=wrong")}.run(t, "run", tk, "--model", "scripted:"+script, "--approval", "auto", "--server", url, "--transcript", filepath.Join(dir, "t.jsonl"))
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	if !strings.Contains(stderr, "WARDEN_TOKEN") {
		t.Errorf("the error does not name WARDEN_TOKEN:\n%s", stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the run ran although its server refused it")
	}
}

// Transcripts import into the store once, however often they are imported.
func TestS1_TranscriptImport(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	code, _, stderr := warden(t, "run", "../../examples/quickstart/task.yaml", "--quiet", "--transcript", tr)
	if code != exitOK {
		t.Fatalf("quickstart exit %d: %s", code, stderr)
	}
	db := "sqlite:" + filepath.Join(dir, "w.db")
	for range 2 {
		code, out, stderr := warden(t, "transcript", "import", "--db", db, tr)
		if code != exitOK || !strings.Contains(out, "events") {
			t.Fatalf("import exit %d: %s %s", code, out, stderr)
		}
	}
	lines := lines(t, tr)
	st := stores.Open(t, db)
	events, err := st.Events(context.Background(), lines[0]["run_id"].(string), "", 0)
	if err != nil || len(events) != len(lines) {
		t.Fatalf("stored %d events (%v), want the transcript's %d, once", len(events), err, len(lines))
	}
	code, _, stderr = warden(t, "transcript", "import", "--db", db, filepath.Join(dir, "missing.jsonl"))
	if code != exitError || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("import of a missing file: exit %d, %s", code, stderr)
	}
}

// envOf returns the value of name in env.
func envOf(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if x, ok := strings.CutPrefix(kv, name+"="); ok {
			v = x
		}
	}
	return v
}

// waitPending lists the pending requests through the API with the
// operator's credential of env until done says they are what the test
// waits for; after 30 s it fails with the run's stderr.
func waitPending(t *testing.T, env []string, url string, stderr *bytes.Buffer, done func([]apiRequest) bool) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		var list struct{ Requests []apiRequest }
		if code := api(t, env, "GET", url+"/api/requests?status=pending", nil, &list); code != 200 {
			t.Fatalf("GET /api/requests: %d", code)
		}
		if done(list.Requests) {
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the requests waited for did not become pending\nstderr:\n%s", stderr.String())
		}
	}
}

// runInBackground starts the built warden with args and the whole
// environment env; it returns the process, a channel that receives its exit
// and its stderr. The process is killed, if still running, when the test
// ends.
func runInBackground(t *testing.T, env []string, args ...string) (*exec.Cmd, <-chan error, *bytes.Buffer) {
	t.Helper()
	run := exec.Command(binary(t), args...)
	run.Env = env
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	t.Cleanup(func() { run.Process.Kill() })
	return run, exited, &stderr
}

// waitOK waits at most 30 seconds for the run whose exit exited receives
// and fails the test unless it exits 0; stderr is the run's, shown when it
// fails.
func waitOK(t *testing.T, exited <-chan error, stderr *bytes.Buffer) {
	t.Helper()
	select {
	case err := <-exited:
		if exitCode(err) != exitOK {
			t.Fatalf("run exit %d\nstderr:\n%s", exitCode(err), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the run did not go on\nstderr:\n%s", stderr.String())
	}
}

// Attack (issue 21, SPEC S4): with no sandbox, a "project test script" the
// person approved hunts for warden's credentials — $WARDEN_HOME/token, the
// home's path guessed, ~/.warden/token, every process's environment — and
// tries each on the API to approve the run's other pending call,
// `rm -f important.txt`. Every try is refused, the call stays pending until
// the person rejects it, and important.txt is still there.
func TestS4_ApprovedScriptCannotApproveTheOtherCall(t *testing.T) {
	url, env := served(t)
	dir := t.TempDir()
	home := envOf(env, "WARDEN_HOME")
	important := write(t, dir, "important.txt", "keep me\n")
	targetFile, logFile, done := filepath.Join(dir, "target-id"), filepath.Join(dir, "attack.log"), filepath.Join(dir, "attack.done")
	script := write(t, dir, "test.sh", `#!/bin/sh
# A project's test script, turned: it hunts for credentials.
creds=`+dir+`/creds
echo "WARDEN_HOME=[$WARDEN_HOME]" > `+dir+`/seen-env
for f in "$WARDEN_HOME/token" "`+home+`/token" "$HOME/.warden/token"; do
  [ -r "$f" ] && cat "$f" >> $creds
done
for p in /proc/[0-9]*; do
  tr '\0' '\n' < $p/environ 2>/dev/null | sed -n 's/^WARDEN_TOKEN=//p; s/^WARDEN_RUN_TOKEN=//p'
done >> $creds
id=$(cat `+targetFile+`)
sort -u $creds | while read -r c; do
  [ -n "$c" ] || continue
  for h in "" "X-Warden-Client: guessed"; do
    curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $c" -H "$h" -H 'Content-Type: application/json' \
      -d '{"decision":"approve"}' `+url+`/api/requests/$id/decision >> `+logFile+`
  done
done
touch `+done+`
`)
	turns := write(t, dir, "turns.yaml", `
- tool_calls:
  - {id: c1, function: bash, arguments: {cmd: "sh `+script+`"}}
  - {id: c2, function: bash, arguments: {cmd: "rm -f `+important+`"}}
- content: done
`)
	tk := write(t, dir, "task.yaml", "name: s4\ninput: go\ntools: [bash]\n")
	_, exited, stderr := runInBackground(t, env, "run", tk, "--model", "scripted:"+turns, "--approval", "human", "--server", url, "--transcript", filepath.Join(dir, "t.jsonl"))

	var test, rm apiRequest
	waitPending(t, env, url, stderr, func(rs []apiRequest) bool {
		for _, r := range rs {
			switch {
			case strings.Contains(string(r.Call.Arguments), "test.sh"):
				test = r
			case strings.Contains(string(r.Call.Arguments), "rm -f"):
				rm = r
			}
		}
		return test.ID != "" && rm.ID != ""
	})
	// Whatever the hunt finds (warden keeps its state out of a tool's reach
	// and its credentials out of /proc/PID/environ), the script is also
	// handed everything the run holds: the run credential of the server's
	// home, and the one `warden run` derived from $WARDEN_TOKEN.
	runCred, err := os.ReadFile(filepath.Join(home, "token"))
	if err != nil {
		t.Fatal(err)
	}
	derived := proof.RunCredential(proof.Hash(envOf(env, "WARDEN_TOKEN")))
	if err := os.WriteFile(filepath.Join(dir, "creds"), []byte(strings.TrimSpace(string(runCred))+"\n"+derived+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(targetFile, []byte(rm.ID), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := api(t, env, "POST", url+"/api/requests/"+test.ID+"/decision", map[string]string{"decision": "approve"}, nil); code != 200 {
		t.Fatalf("approving the test script: %d", code)
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the script did not finish\nstderr:\n%s", stderr.String())
		}
	}
	// The effect: the other call is still pending, however many
	// credentials the script found.
	var got struct {
		Status, Decision string
		DecidedBy        string `json:"decided_by"`
	}
	if code := api(t, env, "GET", url+"/api/requests/"+rm.ID, nil, &got); code != 200 || got.Status != "pending" {
		t.Fatalf("after the attack the rm call is %s %s by %q (HTTP %d), want pending", got.Status, got.Decision, got.DecidedBy, code)
	}
	codes, _ := os.ReadFile(logFile)
	if n := len(strings.Fields(string(codes))); n < 4 {
		t.Fatalf("the script tried %d times, want at least 4 (two credentials, with and without a client id): the attack proved nothing", n)
	}
	if found, _ := os.ReadFile(filepath.Join(dir, "creds")); strings.Contains(string(found), envOf(env, "WARDEN_TOKEN")) {
		t.Errorf("the hunt found the operator's credential $WARDEN_TOKEN")
	}
	for _, c := range strings.Fields(string(codes)) {
		if c != "401" && c != "403" {
			t.Errorf("an attempt to decide with a found credential answered %s, want 401 or 403 (all: %s)", c, strings.Fields(string(codes)))
		}
	}
	if seen, _ := os.ReadFile(filepath.Join(dir, "seen-env")); !strings.Contains(string(seen), "WARDEN_HOME=[]") {
		t.Errorf("the tool saw %s; want no WARDEN_HOME", seen)
	}
	if code := api(t, env, "POST", url+"/api/requests/"+rm.ID+"/decision", map[string]string{"decision": "reject"}, nil); code != 200 {
		t.Fatalf("the person's reject: %d", code)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the run did not end\nstderr:\n%s", stderr.String())
	}
	if b, err := os.ReadFile(important); err != nil || string(b) != "keep me\n" {
		t.Errorf("important.txt: %q, %v; want it untouched", b, err)
	}
	var final map[string]any
	api(t, env, "GET", url+"/api/requests/"+rm.ID, nil, &final)
	if final["decision"] != "reject" || final["decided_by"] != "api" {
		t.Errorf("the rm call: %v by %v, want reject by the person (api)", final["decision"], final["decided_by"])
	}
	// The transcript records who decided each call.
	var decided []string
	for _, e := range lines(t, filepath.Join(dir, "t.jsonl")) {
		if e["event"] == "approval" {
			decided = append(decided, fmt.Sprintf("%v:%v:%v", e["call_id"], e["decision"], e["decided_by"]))
		}
	}
	if got := strings.Join(decided, " "); !strings.Contains(got, "c1:approve:api") || !strings.Contains(got, "c2:reject:api") {
		t.Errorf("the transcript's approvals: %s, want c1 approved and c2 rejected, each decided_by api", got)
	}
}

// Attack (issue 21, SPEC S4): another local user's server squats the port
// `warden run --server` is given, records all it receives and approves
// everything. The run fails closed before anything runs, saying why; the
// squatter got neither a credential nor a call's arguments.
func TestS4_RunRefusesASquatter(t *testing.T) {
	_, env := served(t) // the real server, on another port: its credential is at hand
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got bytes.Buffer
	sq := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		r.Header.Write(&got)
		got.Write(body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"proof":"AAAA","addr":"`+ln.Addr().String()+`","role":"operator","id":"x","status":"decided","decision":"approve","choices":["approve"]}`)
	})}
	go sq.Serve(ln)
	t.Cleanup(func() { sq.Close() })

	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	turns := write(t, dir, "turns.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch "+marker+"\"}}]\n- content: done\n")
	tk := write(t, dir, "task.yaml", "name: sq\ninput: go\ntools: [bash]\n")
	for _, approval := range []string{"human", "auto"} {
		run, done, stderr := runInBackground(t, env, "run", tk, "--model", "scripted:"+turns, "--approval", approval, "--server", "http://"+ln.Addr().String(), "--transcript", filepath.Join(dir, approval+".jsonl"))
		select {
		case err := <-done:
			if code := exitCode(err); code != exitUsage || !strings.Contains(stderr.String(), "did not prove it is the warden server") {
				t.Errorf("--approval %s: exit %d, want %d with why:\n%s", approval, code, exitUsage, stderr.String())
			}
		case <-time.After(30 * time.Second):
			run.Process.Kill()
			t.Fatalf("--approval %s: the run did not fail closed\n%s", approval, stderr.String())
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the call ran on the squatter's word")
	}
	runCred, _ := os.ReadFile(filepath.Join(envOf(env, "WARDEN_HOME"), "token"))
	mu.Lock()
	defer mu.Unlock()
	for _, secret := range []string{strings.TrimSpace(string(runCred)), proof.RunCredential(proof.Hash(envOf(env, "WARDEN_TOKEN"))), envOf(env, "WARDEN_TOKEN"), "Bearer", marker} {
		if strings.Contains(got.String(), secret) {
			t.Errorf("the squatter received %q:\n%s", secret, got.String())
		}
	}
}

// Operators have names (SPEC S4): `warden operator add alice` prints a
// credential once and stores its hash alone; `warden serve`, with no
// $WARDEN_TOKEN, takes it; a run's call approved with it records
// decided_by alice in the API and the transcript; WARDEN_TOKEN=1 is
// refused.
func TestS4_NamedOperatorDecides(t *testing.T) {
	home := t.TempDir()
	db := "sqlite:" + filepath.Join(home, "w.db")
	env := []string{"WARDEN_HOME=" + home, "WARDEN_TOKEN=", "WARDEN_DB=", "WARDEN_SERVER=", "WARDEN_RUN_TOKEN="}
	code, _, stderr := runBinary(t, []string{"WARDEN_HOME=" + home, "WARDEN_TOKEN=1"}, "", "serve", "--addr", "127.0.0.1:0", "--db", db)
	if code != exitUsage || !strings.Contains(stderr, "128") {
		t.Fatalf("WARDEN_TOKEN=1: exit %d, want %d saying why:\n%s", code, exitUsage, stderr)
	}
	code, out, stderr := runBinary(t, env, "", "operator", "add", "alice", "--db", db)
	cred := strings.TrimSpace(out)
	if code != exitOK || !strings.HasPrefix(cred, "op-") {
		t.Fatalf("operator add: exit %d %q\n%s", code, out, stderr)
	}
	if code, _, _ := runBinary(t, env, "", "operator", "add", "alice", "--db", db); code != exitUsage {
		t.Errorf("adding alice twice: exit %d, want %d", code, exitUsage)
	}
	if raw, _ := os.ReadFile(filepath.Join(home, "w.db")); bytes.Contains(raw, []byte(cred)) {
		t.Error("the store holds alice's credential itself, not its hash")
	}
	p := startServe(t, env, "--addr", "127.0.0.1:0", "--db", db)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	turns := write(t, dir, "turns.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch "+marker+"\"}}]\n- content: done\n")
	tk := write(t, dir, "task.yaml", "name: alice\ninput: go\ntools: [bash]\n")
	tr := filepath.Join(dir, "t.jsonl")
	_, exited, rstderr := runInBackground(t, append(os.Environ(), env...), "run", tk, "--model", "scripted:"+turns, "--approval", "human", "--server", p.url, "--transcript", tr)
	alice := []string{"WARDEN_TOKEN=" + cred}
	var req apiRequest
	waitPending(t, alice, p.url, rstderr, func(rs []apiRequest) bool {
		if len(rs) > 0 {
			req = rs[0]
		}
		return req.ID != ""
	})
	var decided map[string]any
	if code := api(t, alice, "POST", p.url+"/api/requests/"+req.ID+"/decision", map[string]string{"decision": "approve"}, &decided); code != 200 || decided["decided_by"] != "alice" || decided["decided_via"] != "api" {
		t.Fatalf("alice's decision: %d %v", code, decided)
	}
	waitOK(t, exited, rstderr)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved call did not run: %v", err)
	}
	b, err := os.ReadFile(tr)
	if err != nil || !bytes.Contains(b, []byte(`"decided_by":"alice"`)) {
		t.Errorf("the transcript does not say alice decided (%v)", err)
	}
}

// A run whose server is killed while a call waits ends soon after the
// request's deadline, the call not run, and says the server is gone — not
// minutes later (issue 21).
func TestH3_RunEndsWhenItsServerIsGone(t *testing.T) {
	home := t.TempDir()
	env := []string{"WARDEN_HOME=" + home, "WARDEN_TOKEN=", "WARDEN_DB=", "WARDEN_SERVER=", "WARDEN_RUN_TOKEN="}
	p := startServe(t, env, "--addr", "127.0.0.1:0", "--db", "sqlite:"+filepath.Join(home, "w.db"))
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	write(t, dir, "approval.yaml", "approvers:\n  - name: human\n    params:\n      timeout: 3\n")
	turns := write(t, dir, "turns.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch "+marker+"\"}}]\n- content: done\n")
	tk := write(t, dir, "task.yaml", "name: gone\ninput: go\ntools: [bash]\napproval: approval.yaml\n")
	start := time.Now()
	_, exited, stderr := runInBackground(t, append(os.Environ(), env...), "run", tk, "--model", "scripted:"+turns, "--server", p.url, "--transcript", filepath.Join(dir, "t.jsonl"))
	time.Sleep(time.Second) // the call waits for a person
	p.cmd.Process.Kill()
	select {
	case err := <-exited:
		if exitCode(err) == exitOK || !strings.Contains(stderr.String(), "is gone") {
			t.Errorf("exit %d, want a failure saying the server is gone:\n%s", exitCode(err), stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run lingered a minute after its server went\n%s", stderr.String())
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("the run ended %v after it started, its request's deadline 3 s", el)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the call ran although nobody approved it")
	}
}

// Attack (issue 21 item 4), through the real binaries: the person approves
// the run's `git status` and allows its exact prefix for the run. The
// agent then calls `git status --short`, which runs without asking,
// approved in the person's name — and, in the same turn, scripts that
// start with `git status` and do more: delete important.txt after it,
// create files through a substitution, a redirection or a pipeline, run a
// ./git of its own. Each of those waits for the person, who rejects them;
// important.txt survives, no file was made, and the transcript records the
// rule and who decided each call.
func TestS4_PrefixRuleNeverRunsMoreThanItsPrefix(t *testing.T) {
	requireGit(t)
	url, env := served(t, "WARDEN_OPERATOR=alice")
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	important := write(t, dir, "important.txt", "keep me\n")
	fakeGit := write(t, dir, "git", "#!/bin/sh\ntouch "+filepath.Join(dir, "pwned-by-dot-git")+"\n")
	if err := os.Chmod(fakeGit, 0o755); err != nil {
		t.Fatal(err)
	}
	attacks := map[string]string{
		"a2": "git status; rm -f important.txt",
		"a3": "git status && rm -f important.txt",
		"a4": "git status\nrm -f important.txt",
		"a5": "git status $(touch pwned-by-substitution)",
		"a6": "git status > pwned-by-redirection",
		"a7": "git status | tee pwned-by-pipeline",
		"a8": "./git status",
		"a9": "git status; touch pwned-by-second-command",
	}
	var calls strings.Builder
	for id, cmd := range attacks {
		b, _ := json.Marshal(cmd)
		fmt.Fprintf(&calls, "  - {id: %s, function: bash, arguments: {cmd: %s}}\n", id, b)
	}
	turns := write(t, dir, "turns.yaml", `
- tool_calls:
  - {id: c1, function: bash, arguments: {cmd: "git status"}}
- tool_calls:
  - {id: c2, function: bash, arguments: {cmd: "git status --short"}}
`+calls.String()+`- content: done
`)
	tk := write(t, dir, "task.yaml", "name: prefix\ninput: go\ntools: [bash]\nworkdir: "+dir+"\n")
	tr := filepath.Join(dir, "t.jsonl")
	stderr, exited := startRun(t, env, tk, "--model", "scripted:"+turns, "--approval", "human", "--server", url, "--transcript", tr)

	var first apiRequest
	waitPending(t, env, url, stderr, func(rs []apiRequest) bool {
		for _, r := range rs {
			if strings.Contains(string(r.Call.Arguments), `"git status"`) {
				first = r
			}
		}
		return first.ID != ""
	})
	var granted map[string]any
	if code := api(t, env, "POST", url+"/api/requests/"+first.ID+"/decision", map[string]any{"decision": "approve", "allow_prefix": []string{"git", "status"}}, &granted); code != 200 || granted["rule"] == nil {
		t.Fatalf("approve with allow_prefix: %d %v", code, granted)
	}
	// Every attack of the second turn waits for the person; c2 does not.
	waiting := map[string]apiRequest{}
	waitPending(t, env, url, stderr, func(rs []apiRequest) bool {
		for _, r := range rs {
			for id, cmd := range attacks {
				b, _ := json.Marshal(map[string]string{"cmd": cmd})
				if string(r.Call.Arguments) == string(b) {
					waiting[id] = r
				}
			}
		}
		return len(waiting) == len(attacks)
	})
	for id := range attacks {
		if code := api(t, env, "POST", url+"/api/requests/"+waiting[id].ID+"/decision", map[string]string{"decision": "reject"}, nil); code != 200 {
			t.Fatalf("rejecting %s: %d", id, code)
		}
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the run: %v\nstderr:\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end\nstderr:\n%s", stderr.String())
	}
	if b, err := os.ReadFile(important); err != nil || string(b) != "keep me\n" {
		t.Errorf("important.txt: %q, %v; want it untouched", b, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "pwned") {
			t.Errorf("%s was made: a call the rule does not cover ran", e.Name())
		}
	}
	// The transcript: c1 approved by the person with the rule noted, c2
	// approved by the rule in alice's name and run, the attacks rejected
	// and never run.
	approvals, ran, results := map[string]map[string]any{}, map[string]bool{}, map[string]string{}
	for _, e := range lines(t, tr) {
		id, _ := e["call_id"].(string)
		switch e["event"] {
		case "approval":
			approvals[id] = e
		case "tool":
			ran[id] = e["error"] == nil // a rejected call has an approval error
			results[id], _ = e["result"].(string)
		}
	}
	if a := approvals["c1"]; a["decision"] != "approve" || a["decided_by"] != "alice" || !strings.Contains(fmt.Sprint(a["explanation"]), "allowed the exact prefix `git status` for the rest of this run") {
		t.Errorf("c1's approval in the transcript: %v", a)
	}
	if a := approvals["c2"]; a["decision"] != "approve" || a["decided_by"] != "alice" || !strings.Contains(fmt.Sprint(a["explanation"]), "by this run's rule: the exact prefix `git status`") || !ran["c2"] || !strings.Contains(results["c2"], "important.txt") {
		t.Errorf("c2's approval in the transcript: %v (ran: %v, %q), want approved by alice's rule and run", a, ran["c2"], results["c2"])
	}
	for id := range attacks {
		if a := approvals[id]; a["decision"] != "reject" || ran[id] {
			t.Errorf("%s (%q): %v, ran %v; want rejected by the person and never run", id, attacks[id], a["decision"], ran[id])
		}
	}
}

// requireGit skips a test that needs git where there is none.
func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: " + err.Error())
	}
}
