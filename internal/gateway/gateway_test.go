package gateway

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/gateway/gatewaytest"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook/hosttest"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
)

// npmServer finds a reference MCP server installed from npm (.ci/run pins
// them): $ENV, else BIN on PATH. It skips the test without it, and fails it
// where the peers are required (CI: WARDEN_REQUIRE_HOSTS).
func npmServer(t testing.TB, bin, env string) string { return hosttest.Need(t, bin, env) }

// filesystemServer is the command of @modelcontextprotocol/server-filesystem
// serving dir.
func filesystemServer(t testing.TB, dir string) *exec.Cmd {
	return exec.Command(npmServer(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM"), dir)
}

// testConfig is a gateway configuration whose runs live in a temporary
// directory, with the approval and review policies of the YAML texts
// ("" for none).
func testConfig(t *testing.T, appr, rev string) *govern.Config {
	t.Helper()
	dir := t.TempDir()
	c := &govern.Config{Paths: govern.Paths{Runs: filepath.Join(dir, "runs"), Key: filepath.Join(dir, "keys", "override.key")}, Timeout: 5 * time.Second}
	if appr != "" {
		c.ApprovalEntries = entries(t, appr, "approval.yaml")
		c.Approval = must[*approval.Policy](t)(approval.Compile(c.ApprovalEntries))
	}
	if rev != "" {
		c.ReviewEntries = entries(t, rev, "review.yaml")
		c.Review = must[*review.Policy](t)(review.Compile(c.ReviewEntries))
	}
	return c
}

// entries reads a policy file's entries.
func entries(t testing.TB, text, name string) []policy.Entry {
	f, err := policyfile.Parse([]byte(text), name)
	if err != nil {
		t.Fatal(err)
	}
	return f.Entries
}

// must fails t on an error.
func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// peer is a client session through a gateway, and the gateway's end.
type peer struct {
	*sdk.ClientSession
	done chan error
	g    *Gateway
}

// between connects to upstream and makes the in-memory pair a client
// reaches it through: up is the upstream's connection, sc the server's end
// of the pair (what a gateway or proxy serves on), ct the client's.
func between(tb testing.TB, upstream sdk.Transport) (up, sc sdk.Connection, ct sdk.Transport) {
	tb.Helper()
	ctx := context.Background()
	up, err := upstream.Connect(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	if sc, err = st.Connect(ctx); err != nil {
		tb.Fatal(err)
	}
	return up, sc, ct
}

// connect starts g between a go-sdk client and upstream (a command, or a
// transport to an in-process server), and returns the client's session.
func connect(t *testing.T, g *Gateway, upstream sdk.Transport, opts *sdk.ClientOptions) *peer {
	t.Helper()
	ctx := context.Background()
	up, sc, ct := between(t, upstream)
	p := &peer{done: make(chan error, 1), g: g}
	go func() { p.done <- g.Serve(ctx, sc, up) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "warden-test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("the gateway did not end after the client closed")
		}
	})
	return p
}

// connectFS connects a client through g to the reference filesystem
// server serving dir, as connect does.
func connectFS(t *testing.T, g *Gateway, dir string) *peer {
	t.Helper()
	return connect(t, g, &sdk.CommandTransport{Command: filesystemServer(t, dir)}, nil)
}

// call calls tool with args and returns the result's text and isError.
func (p *peer) call(t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	return gatewaytest.Call(t, p.ClientSession, tool, args)
}

// runEvents returns the events of the gateway's only run, as its
// transcript has them, after the session ended.
func runEvents(t *testing.T, c *govern.Config) []event.Event {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.Paths.Runs, "mcp-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("runs: %v, want one", files)
	}
	return eventtest.ReadFile(t, files[0])
}

// kinds lists the kinds of events.
func kinds(evs []event.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, string(e.Kind()))
	}
	return strings.Join(ks, " ")
}

const fsPolicy = `approvers:
  - name: auto
    decision: reject
    explanation: no writes into secret files
    tool: write_file
    args:
      path: "*secret*"
  - name: auto
    decision: terminate
    explanation: moving files ends the session
    tools: move_file
  - name: auto
    decision: approve
    tools: "*"
`

// fsPolicyPeer connects a client through a gateway in approve mode with
// fsPolicy to the filesystem server serving dir.
func fsPolicyPeer(t *testing.T, dir string) *peer {
	t.Helper()
	return connectFS(t, &Gateway{Config: testConfig(t, fsPolicy, ""), Server: "filesystem", Mode: mcp.Approve}, dir)
}

// The attacks first: a write the policy rejects never reaches the disk; a
// terminate stops every later call, approved or not.
func TestX2_RejectedWriteIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	p := fsPolicyPeer(t, dir)
	secret := filepath.Join(dir, "secret.txt")
	gatewaytest.WriteRefused(t, p.ClientSession, secret, "pwned", "no writes into secret files")
	ok := filepath.Join(dir, "notes.txt")
	if text, isErr := p.call(t, "write_file", map[string]any{"path": ok, "content": "hello"}); isErr {
		t.Fatalf("approved write: %s", text)
	}
	if b, err := os.ReadFile(ok); err != nil || string(b) != "hello" {
		t.Fatalf("approved write on disk: %q, %v", b, err)
	}
	// A name differing by case is the same argument to no one: read
	// strictly (A8), the call is refused before any policy, as a protocol
	// error or an error result: either way, nothing is written.
	_, _ = p.CallTool(context.Background(), &sdk.CallToolParams{Name: "write_file", Arguments: json.RawMessage(`{"path":"` + ok + `","PATH":"` + secret + `","content":"x"}`)})
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Fatal("a case-variant argument reached the disk")
	}
}

func TestX2_TerminateRefusesLaterCalls(t *testing.T) {
	dir := t.TempDir()
	p := fsPolicyPeer(t, dir)
	src := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(src, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	text, isErr := p.call(t, "move_file", map[string]any{"source": src, "destination": filepath.Join(dir, "b.txt")})
	if !isErr || !strings.Contains(text, "stopped this session") || !strings.Contains(text, "moving files ends the session") {
		t.Errorf("terminated call answered %q (isError %v)", text, isErr)
	}
	later := filepath.Join(dir, "later.txt")
	text, isErr = p.call(t, "write_file", map[string]any{"path": later, "content": "x"})
	if !isErr || !strings.Contains(text, "refused") {
		t.Errorf("a call after terminate answered %q (isError %v)", text, isErr)
	}
	for _, f := range []string{later, filepath.Join(dir, "b.txt")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written after the session was stopped", f)
		}
	}
	if _, err := os.Stat(src); err != nil {
		t.Errorf("the terminated move ran: %v", err)
	}
}

// modifier is an approver that rewrites write_file's content.
type modifier struct{ content string }

func (m modifier) Approve(_ context.Context, req *approval.Request) (approval.Approval, error) {
	var args map[string]any
	if err := json.Unmarshal(req.Call.Arguments, &args); err != nil {
		return approval.Approval{}, err
	}
	args["content"] = m.content
	mod := req.Call
	b, _ := json.Marshal(args)
	mod.Arguments = b
	return approval.Approval{Decision: approval.Modify, Modified: &mod, Explanation: "redacted"}, nil
}

// badModifier modifies a call into arguments the tool's schema refuses.
type badModifier struct{}

func (badModifier) Approve(_ context.Context, req *approval.Request) (approval.Approval, error) {
	mod := req.Call
	mod.Arguments = json.RawMessage(`{"path": 42}`)
	return approval.Approval{Decision: approval.Modify, Modified: &mod}, nil
}

func TestX2_ModifiedCallIsWhatRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, "", "")
	cfg.Approval = approval.New(approval.Rule{Name: "redact", Handler: modifier{content: "[redacted]"}, Match: matchAll(t)})
	g := &Gateway{Config: cfg, Server: "filesystem", Mode: mcp.Approve}
	p := connectFS(t, g, dir)
	f := filepath.Join(dir, "out.txt")
	if text, isErr := p.call(t, "write_file", map[string]any{"path": f, "content": "AKIA-secret"}); isErr {
		t.Fatalf("modified write: %s", text)
	}
	if b, err := os.ReadFile(f); err != nil || string(b) != "[redacted]" {
		t.Fatalf("on disk %q (%v), want the modified content", b, err)
	}

	cfg.Approval = approval.New(approval.Rule{Name: "bad", Handler: badModifier{}, Match: matchAll(t)})
	g2 := &Gateway{Config: cfg, Server: "filesystem", Mode: mcp.Approve}
	p2 := connectFS(t, g2, dir)
	g2f := filepath.Join(dir, "bad.txt")
	// A modification that does not fit the schema is refused, not run.
	gatewaytest.WriteRefused(t, p2.ClientSession, g2f, "x", "input schema")
}

func matchAll(t *testing.T) policy.Matcher {
	m, err := policy.CompileList([]string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readReviewed connects a client through a gateway in approve mode with
// the review policy rev to the filesystem server serving a new directory
// that holds the file name with content, and reads the file through it. It
// returns the client, the directory and the answer: its text and isError.
func readReviewed(t *testing.T, rev, name, content string) (p *peer, dir, text string, isErr bool) {
	t.Helper()
	dir = t.TempDir()
	path := filetest.Write(t, dir, name, content)
	p = connectFS(t, &Gateway{Config: testConfig(t, "", rev), Server: "filesystem", Mode: mcp.Approve}, dir)
	text, isErr = p.call(t, "read_text_file", map[string]any{"path": path})
	return p, dir, text, isErr
}

// A review that terminates withholds the result: the client never reads
// the secret, and the session refuses later calls.
func TestX2_ReviewTerminateWithholdsTheResult(t *testing.T) {
	p, dir, text, isErr := readReviewed(t, "reviewers:\n  - name: auto\n    decision: terminate\n    explanation: a private key left the server\n    tool: read_text_file\n    args:\n      path: \"*id_rsa\"\n",
		"id_rsa", "-----BEGIN OPENSSH PRIVATE KEY----- hunter2")
	if !isErr || strings.Contains(text, "hunter2") || !strings.Contains(text, "private key left") {
		t.Fatalf("reviewed result answered %q (isError %v)", text, isErr)
	}
	text, isErr = p.call(t, "list_directory", map[string]any{"path": dir})
	if !isErr || strings.Contains(text, "id_rsa") {
		t.Errorf("a call after the review's terminate answered %q", text)
	}
	p.Close()
	<-p.done
	p.done <- nil
	evs := runEvents(t, p.g.Config)
	got := kinds(evs)
	for _, want := range []string{"run_start", "tool", "review", "run_end"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript %q lacks %s", got, want)
		}
	}
}

// G2: with no approval policy the tool's mode on its declared annotations
// decides which calls are boundary requests; with nobody to decide them
// (no reviewer, no person), they are denied and say a person is needed.
func TestG2_MCPModeOnDeclaredAnnotations(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		mode                mcp.Mode
		writeRuns, mkdirRun bool
		readRuns            bool
	}{
		{mcp.Auto, false, true, true},    // write_file is declared destructive; create_directory is not
		{mcp.Writes, false, false, true}, // neither is declared read-only
		{mcp.Prompt, false, false, false},
		{mcp.Approve, true, true, true},
	}
	filetest.Write(t, dir, "r.txt", "readable")
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			cfg := testConfig(t, "", "")
			g := &Gateway{Config: cfg, Server: "filesystem", Mode: tt.mode}
			p := connectFS(t, g, dir)
			w := filepath.Join(dir, "w-"+string(tt.mode))
			text, isErr := p.call(t, "write_file", map[string]any{"path": w, "content": "x"})
			_, err := os.Stat(w)
			if (err == nil) != tt.writeRuns {
				t.Errorf("write_file ran %v (%q), want %v", err == nil, text, tt.writeRuns)
			}
			if !tt.writeRuns && (!isErr || !strings.Contains(text, "nobody is configured")) {
				t.Errorf("denied write answered %q", text)
			}
			d := filepath.Join(dir, "d-"+string(tt.mode))
			p.call(t, "create_directory", map[string]any{"path": d})
			if _, err := os.Stat(d); (err == nil) != tt.mkdirRun {
				t.Errorf("create_directory ran %v, want %v", err == nil, tt.mkdirRun)
			}
			text, isErr = p.call(t, "read_text_file", map[string]any{"path": filepath.Join(dir, "r.txt")})
			if (text == "readable" && !isErr) != tt.readRuns {
				t.Errorf("read_text_file answered %q (isError %v), want it to run %v", text, isErr, tt.readRuns)
			}
		})
	}
}

// G2: a call an approval policy's rule allows is not asked again by the
// mode; a read-only hint alone never approves a call the policy does not.
func TestG2_MCPAllowRuleAndReadOnlyHint(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, "r.txt", "readable")
	cfg := testConfig(t, "approvers:\n  - name: auto\n    decision: approve\n    tool: write_file\n", "")
	p := connectFS(t, &Gateway{Config: cfg, Server: "filesystem", Mode: mcp.Auto}, dir)
	w := filepath.Join(dir, "w.txt")
	if text, isErr := p.call(t, "write_file", map[string]any{"path": w, "content": "x"}); isErr {
		t.Errorf("a write an allow rule approves: %q", text)
	}
	if _, err := os.Stat(w); err != nil {
		t.Errorf("the allowed write is not on disk: %v", err)
	}
	text, isErr := p.call(t, "read_text_file", map[string]any{"path": filepath.Join(dir, "r.txt")})
	if !isErr || strings.Contains(text, "readable") {
		t.Errorf("a read-only tool no rule approves: %q (isError %v)", text, isErr)
	}
}

// R2, R3: a review that escalates to a person when none is reachable (no
// --server, no queue) withholds that one result, and only that: the
// session goes on, and the next call is answered.
func TestX2_ReviewNobodyTakesWithholdsOnlyThatResult(t *testing.T) {
	p, dir, text, isErr := readReviewed(t, "reviewers:\n  - name: human\n    tool: read_text_file\n", "notes.txt", "hunter2")
	if !isErr || strings.Contains(text, "hunter2") || !strings.Contains(text, "withheld") || !strings.Contains(text, "person") {
		t.Fatalf("a result nobody could review answered %q (isError %v), want it withheld for a person", text, isErr)
	}
	if strings.Contains(text, "stopped this session") {
		t.Errorf("the session was stopped: %q", text)
	}
	text, isErr = p.call(t, "list_directory", map[string]any{"path": dir})
	if isErr || !strings.Contains(text, "notes.txt") {
		t.Errorf("the next call answered %q (isError %v), want the listing", text, isErr)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	text, isErr = p.call(t, "list_directory", map[string]any{"path": dir})
	if isErr || !strings.Contains(text, "b.txt") {
		t.Errorf("a later call answered %q (isError %v)", text, isErr)
	}
}
