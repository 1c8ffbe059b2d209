package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/gateway/gatewaytest"
	"github.com/wardenhq/warden/internal/store"
)

// mcpClient starts `warden mcp ARGS -- mcp-server-filesystem DIR` as an
// MCP client's configuration would, and connects the go-sdk client to it.
func mcpClient(t *testing.T, home, dir string, args ...string) (*sdk.ClientSession, *exec.Cmd) {
	t.Helper()
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	cmd := exec.Command(binary(t), append(append([]string{"mcp"}, args...), "--", fs, dir)...)
	cmd.Env = append(os.Environ(), "WARDEN_HOME="+home, "WARDEN_DB=", "WARDEN_SERVER=")
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "warden-cli-test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cmd
}

// callText calls tool and returns its text and isError.
func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	return gatewaytest.Call(t, cs, tool, args)
}

// TestX2_CLIGovernsTheFilesystemServer: `warden mcp` as a client's
// configuration runs it, in front of the reference filesystem server. With
// no flags, a write (declared destructive) is a boundary request nobody can
// decide: denied, saying a person is needed, and nothing is written; a
// read runs. With an approval policy, approved writes land and rejected
// ones do not. The session is a run `warden transcript show` reads.
func TestX2_CLIGovernsTheFilesystemServer(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("read me"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, cmd := mcpClient(t, home, dir)
	target := filepath.Join(dir, "x.txt")
	gatewaytest.WriteRefused(t, cs, target, "x", "a person must decide", "warden mcp --server")
	if text, isErr := callText(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "README")}); isErr || text != "read me" {
		t.Errorf("read: %q (isError %v)", text, isErr)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("warden mcp exited %d after the client closed, want 0", code)
	}

	pol := filepath.Join(home, "approval.yaml")
	if err := os.WriteFile(pol, []byte("approvers:\n  - name: auto\n    decision: reject\n    explanation: not the config\n    tool: write_file\n    args:\n      path: \"*.conf\"\n  - name: auto\n    decision: approve\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, _ = mcpClient(t, home, dir, "--approval", pol, "--mode", "approve")
	if text, isErr := callText(t, cs, "write_file", map[string]any{"path": target, "content": "approved"}); isErr {
		t.Errorf("approved write: %q", text)
	}
	conf := filepath.Join(dir, "app.conf")
	if text, isErr := callText(t, cs, "write_file", map[string]any{"path": conf, "content": "evil"}); !isErr || !strings.Contains(text, "not the config") {
		t.Errorf("rejected write: %q (isError %v)", text, isErr)
	}
	cs.Close()
	if b, err := os.ReadFile(target); err != nil || string(b) != "approved" {
		t.Errorf("approved write on disk: %q %v", b, err)
	}
	if _, err := os.Stat(conf); !os.IsNotExist(err) {
		t.Error("the rejected write reached the disk")
	}
	runs, _ := filepath.Glob(filepath.Join(home, "runs", "mcp-*.jsonl"))
	if len(runs) != 2 {
		t.Fatalf("runs %v, want one per session", runs)
	}
	// The default store of that home imports the sessions' marked runs
	// when it is opened (internal/spool), as `warden serve` does every
	// 200 ms.
	t.Setenv("WARDEN_HOME", home)
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(home, "warden.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range runs {
		id := strings.TrimSuffix(filepath.Base(r), ".jsonl")
		if run, err := st.Run(context.Background(), id); err != nil || run.Status != event.StatusCompleted {
			t.Errorf("the store's run %s: %+v, %v; want it completed", id, run, err)
		}
		p := wardenProc{env: []string{"WARDEN_HOME=" + home}}
		code, out, errb := p.run(t, "transcript", "show", r)
		if code != exitOK || !strings.Contains(out, "write_file") {
			t.Errorf("transcript show %s: exit %d\n%s\n%s", r, code, out, errb)
		}
	}
}

// TestX2_CLIListensOnStreamableHTTP: `warden mcp --listen` serves
// streamable HTTP on loopback, needs $WARDEN_TOKEN on every request, and
// governs each session as over stdio (without --stateless, the client's
// server/discover probe is refused and it falls back to a session; the
// stateless revision is TestX2_CLIServesTheStatelessRevision's); an address
// beyond this machine without TLS is refused.
func TestX2_CLIListensOnStreamableHTTP(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	const token = "mcp-listen-test-token-0123456789abcdef"
	env := []string{"WARDEN_HOME=" + home, "WARDEN_DB=", "WARDEN_SERVER=", "WARDEN_TOKEN=" + token}
	p := wardenProc{env: env}
	if code, _, errb := p.run(t, "mcp", "--listen", "0.0.0.0:0", "--upstream", "fs="+fs+" "+dir); code != exitUsage || !strings.Contains(errb, "loopback") {
		t.Errorf("a non-loopback address without TLS: exit %d, %s", code, errb)
	}
	if code, _, errb := p.run(t, "mcp", "--stateless", "--", fs, dir); code != exitUsage || !strings.Contains(errb, "--stateless goes with --listen") {
		t.Errorf("--stateless over stdio: exit %d, %s", code, errb)
	}
	connect, stop := listenWarden(t, env, "--listen", "127.0.0.1:0", "--upstream", "fs="+fs+" "+dir)
	if cs, err := connect("not-the-token"); err == nil {
		cs.Close()
		t.Fatal("connected without the token")
	}
	cs, err := connect(token)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "w.txt")
	gatewaytest.WriteRefused(t, cs, target, "x", "a person must decide")
	cs.Close()
	stop()
	// The session's run (the client asks for a session: requests of the
	// stateless revision are TestX2_CLIServesTheStatelessRevision's).
	var governed int
	runs, _ := filepath.Glob(filepath.Join(home, "runs", "mcp-*.jsonl"))
	for _, r := range runs {
		if b, _ := os.ReadFile(r); strings.Contains(string(b), "write_file") {
			governed++
		}
	}
	if governed != 1 {
		t.Errorf("runs %v: %d record the write, want one", runs, governed)
	}

	// Two upstreams behind the listener: each tool named after its
	// server, each write refused in its own directory.
	dir2 := t.TempDir()
	connect, stop = listenWarden(t, env, "--listen", "127.0.0.1:0", "--upstream", "one="+fs+" "+dir, "--upstream", "two="+fs+" "+dir2)
	if cs, err = connect(token); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]string{"one": dir, "two": dir2} {
		target := filepath.Join(d, name+".txt")
		text, isErr := callText(t, cs, name+"__write_file", map[string]any{"path": target, "content": "x"})
		if !isErr || !strings.Contains(text, "a person must decide") {
			t.Errorf("%s__write_file: %q (isError %v)", name, text, isErr)
		}
		if _, err := os.Stat(target); !os.IsNotExist(err) {
			t.Errorf("the refused write of %s reached the disk (stat: %v)", target, err)
		}
	}
	cs.Close()
	stop()
}

// listenWarden starts `warden mcp ARGS` with env, which serves streamable
// HTTP, and returns how to connect the go-sdk client to it with a token,
// asking for the SDK's latest revision (the stateless one) and failing
// unless warden, without --stateless, made it a session, and how to stop
// it (SIGTERM; it must exit 0).
func listenWarden(t *testing.T, env []string, args ...string) (connect func(token string) (*sdk.ClientSession, error), stop func()) {
	t.Helper()
	addr, stop := listenWardenAt(t, env, args...)
	connect = func(tok string) (*sdk.ClientSession, error) {
		ct := &sdk.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+tok)
				return http.DefaultTransport.RoundTrip(r)
			})}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err == nil && cs.ID() == "" {
			cs.Close()
			err = errors.New("no session: warden served the stateless revision without --stateless")
		}
		return cs, err
	}
	return connect, stop
}

// listenWardenAt starts `warden mcp ARGS` with env, which serves
// streamable HTTP, and returns the address it listens on and how to stop
// it (SIGTERM; it must exit 0).
func listenWardenAt(t *testing.T, env []string, args ...string) (addr string, stop func()) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr = strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
	var rest strings.Builder
	copied := make(chan struct{})
	go func() {
		io.Copy(&rest, stderr)
		close(copied)
	}()
	stop = func() {
		t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		<-copied
		if err := cmd.Wait(); err != nil {
			t.Errorf("warden mcp %s after SIGTERM: %v\n%s", strings.Join(args, " "), err, rest.String())
		}
	}
	return addr, stop
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// nodeClient is a short MCP client on the official TypeScript SDK
// (@modelcontextprotocol/sdk): it starts the command given as JSON in
// argv[2], calls the tools of argv[3] (a JSON list of [name, arguments]),
// and prints each result as a JSON line.
const nodeClient = `
const sdk = process.env.MCP_SDK;
const { Client } = await import(sdk + "/dist/esm/client/index.js");
const { StdioClientTransport } = await import(sdk + "/dist/esm/client/stdio.js");
const [command, ...args] = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "node-test", version: "1" });
await client.connect(transport);
await client.listTools();
for (const [name, a] of JSON.parse(process.argv[3])) {
  const r = await client.callTool({ name, arguments: a });
  console.log(JSON.stringify({ name, isError: !!r.isError, text: r.content.map(c => c.text || "").join("") }));
}
await client.close();
`

// TestX2_NodeSDKClientThroughWarden: a client on the TypeScript SDK, the
// reference filesystem server behind warden: the write nobody approved is
// an error result and is not on disk; the read runs.
func TestX2_NodeSDKClientThroughWarden(t *testing.T) {
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	sdkDir := filepath.Join(filepath.Dir(filepath.Dir(fs)), "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(filepath.Join(sdkDir, "package.json")); err != nil {
		if os.Getenv("WARDEN_REQUIRE_HOSTS") != "" {
			t.Fatalf("@modelcontextprotocol/sdk not found beside %s", fs)
		}
		t.Skipf("@modelcontextprotocol/sdk not found beside %s", fs)
	}
	home, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("node reads this"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(home, "client.mjs")
	if err := os.WriteFile(script, []byte(nodeClient), 0o600); err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{binary(t), "mcp", "--", fs, dir})
	target := filepath.Join(dir, "x.txt")
	calls, _ := json.Marshal([]any{
		[]any{"write_file", map[string]string{"path": target, "content": "x"}},
		[]any{"read_text_file", map[string]string{"path": filepath.Join(dir, "README")}},
	})
	cmd := exec.Command("node", script, string(argv), string(calls))
	cmd.Env = append(os.Environ(), "WARDEN_HOME="+home, "WARDEN_DB=", "WARDEN_SERVER=", "MCP_SDK=file://"+sdkDir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"isError":true`) || !strings.Contains(lines[0], "a person must decide") ||
		!strings.Contains(lines[1], `"isError":false`) || !strings.Contains(lines[1], "node reads this") {
		t.Errorf("node client saw:\n%s", out)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Error("the write nobody approved reached the disk")
	}
}

// TestX2_InspectorCLIThroughWarden: the MCP Inspector in its CLI mode
// (@modelcontextprotocol/inspector) as the client: what it is answered and
// what lands on disk.
func TestX2_InspectorCLIThroughWarden(t *testing.T) {
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	inspector := hostBinary(t, "mcp-inspector", "WARDEN_TEST_MCP_INSPECTOR")
	home, dir := t.TempDir(), t.TempDir()
	pol := filepath.Join(home, "approval.yaml")
	if err := os.WriteFile(pol, []byte("approvers:\n  - name: auto\n    decision: approve\n    tool: write_file\n    args:\n      path: \"*/approved.txt\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(path string) (string, error) {
		cmd := exec.Command(inspector, "--cli", "-e", "WARDEN_HOME="+home,
			"--method", "tools/call", "--tool-name", "write_file", "--tool-arg", "path="+path, "content=hello",
			"--", binary(t), "mcp", "--approval", pol, "--", fs, dir)
		cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(home, "catalog.json"), "HOME="+home)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	denied := filepath.Join(dir, "denied.txt")
	if out, err := run(denied); err == nil || !strings.Contains(out, "no approver approved this call") {
		t.Errorf("a write the policy does not approve: %v\n%s", err, out)
	}
	if _, err := os.Stat(denied); !os.IsNotExist(err) {
		t.Error("the write the policy did not approve reached the disk")
	}
	approved := filepath.Join(dir, "approved.txt")
	if out, err := run(approved); err != nil {
		t.Errorf("an approved write: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(approved); err != nil || string(b) != "hello" {
		t.Errorf("the approved write on disk: %q %v", b, err)
	}
}

// TestX2_CLISeveralUpstreams: `warden mcp --upstream fs=CMD --upstream
// ev=CMD` serves the reference filesystem and everything servers in one
// stdio session: tools named after their server, a rejected fs__write_file
// not written. Names that collide or carry the separator, and a policy
// or a --tool-mode naming a tool without its server, are refused at start
// (exit 2).
func TestX2_CLISeveralUpstreams(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	ev := hostBinary(t, "mcp-server-everything", "WARDEN_TEST_MCP_EVERYTHING")
	pol := filepath.Join(home, "approval.yaml")
	if err := os.WriteFile(pol, []byte("approvers:\n  - name: auto\n    decision: reject\n    explanation: not the config\n    tool: fs__write_file\n    args:\n      path: \"*.conf\"\n  - name: auto\n    decision: approve\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(home, "bare.yaml")
	if err := os.WriteFile(bare, []byte("approvers:\n  - name: auto\n    decision: reject\n    tool: write_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "WARDEN_HOME="+home, "WARDEN_DB=", "WARDEN_SERVER=")
	for _, bad := range [][]string{
		{"--upstream", "fs=" + fs + " " + dir, "--upstream", "fs=" + ev + " stdio"},
		{"--upstream", "a__b=" + fs + " " + dir, "--upstream", "ev=" + ev + " stdio"},
		{"--upstream", fs + " " + dir, "--upstream", "ev=" + ev + " stdio"},
		{"--approval", bare, "--upstream", "fs=" + fs + " " + dir, "--upstream", "ev=" + ev + " stdio"},
		{"--tool-mode", "write_file=prompt", "--upstream", "fs=" + fs + " " + dir, "--upstream", "ev=" + ev + " stdio"},
	} {
		cmd := exec.Command(binary(t), append([]string{"mcp"}, bad...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if exitCode(err) != exitUsage {
			t.Errorf("%q: exit %d, want %d:\n%s", bad, exitCode(err), exitUsage, out)
		}
	}
	cmd := exec.Command(binary(t), "mcp", "--approval", pol, "--mode", "approve", "--upstream", "fs="+fs+" "+dir, "--upstream", "ev="+ev+" stdio")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "warden-cli-test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "fs__write_file") || !strings.Contains(got, "ev__echo") {
		t.Errorf("tools: %s", got)
	}
	conf := filepath.Join(dir, "app.conf")
	if text, isErr := callText(t, cs, "fs__write_file", map[string]any{"path": conf, "content": "evil"}); !isErr || !strings.Contains(text, "not the config") {
		t.Errorf("rejected write: %q (isError %v)", text, isErr)
	}
	if _, err := os.Stat(conf); !os.IsNotExist(err) {
		t.Fatalf("the rejected write reached the disk (stat: %v)", err)
	}
	if text, isErr := callText(t, cs, "ev__echo", map[string]any{"message": "hi"}); isErr || !strings.Contains(text, "hi") {
		t.Errorf("ev__echo: %q (isError %v)", text, isErr)
	}
}
