package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/storetest/stores"
)

// served starts `warden serve` as a real process on a free loopback port
// and a SQLite store, and returns its URL and the environment (home and
// token) a run needs to reach it.
func served(t *testing.T, extra ...string) (url string, env []string) {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	env = append(os.Environ(), "WARDEN_HOME="+filepath.Join(dir, "home"), "WARDEN_TOKEN=test-token-0123456789abcdefghij-"+filepath.Base(dir), "WARDEN_SERVER=", "WARDEN_DB=")
	env = append(env, extra...)
	cmd := exec.Command(binary(t), "serve", "--addr", addr, "--db", "sqlite:"+filepath.Join(dir, "warden.db"))
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	url = "http://" + addr
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return url, env
			}
		}
	}
	t.Fatalf("warden serve did not start:\n%s", stderr.String())
	return "", nil
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
