package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/gateway/gatewaytest"
	"github.com/wardenhq/warden/internal/mcp"
)

// severalPolicy rejects writes of secret files through the filesystem
// server named fs, as the client calls it (fs__write_file), and approves
// the rest.
const severalPolicy = `approvers:
  - name: auto
    decision: reject
    explanation: no writes into secret files
    tool: fs__write_file
    args:
      path: "*secret*"
  - name: auto
    decision: approve
`

// TestX2_SeveralUpstreamsBehindOneListener: the reference filesystem and
// everything servers behind one streamable HTTP listener, through the
// go-sdk client: the tools of both are listed, each under its server's
// name; a rejected fs__write_file leaves the file unwritten while an
// approved one reaches the disk (the server saw its own tool's name); an
// everything prompt passes through under its prefixed name, a resource by
// its URI; the everything server's progress notifications reach the
// client; and the run
// records the calls as the client made them.
func TestX2_SeveralUpstreamsBehindOneListener(t *testing.T) {
	dir := t.TempDir()
	fsBin := filesystemServer(t, dir).Path
	evBin := npmServer(t, "mcp-server-everything", "WARDEN_TEST_MCP_EVERYTHING")
	cfg := testConfig(t, severalPolicy, "")
	g := &Gateway{Config: cfg, Server: "fs+ev", Mode: mcp.Approve}
	h := &Handler{Gateway: g, Token: testToken, Upstreams: func(ctx context.Context) ([]Upstream, error) {
		var ups []Upstream
		for _, u := range []struct{ name, bin, arg string }{{"fs", fsBin, dir}, {"ev", evBin, "stdio"}} {
			c, err := (&sdk.CommandTransport{Command: exec.Command(u.bin, u.arg)}).Connect(ctx)
			if err != nil {
				return nil, err
			}
			ups = append(ups, Upstream{Name: u.name, Conn: c})
		}
		return ups, nil
	}}
	srv := httptest.NewServer(h)
	defer func() {
		srv.Close()
		h.Close()
	}()
	var progress atomic.Int32
	ct := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}, MaxRetries: -1}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "several-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}

	names := map[string]bool{}
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names[tl.Name] = true
	}
	for _, want := range []string{"fs__write_file", "fs__read_text_file", "ev__echo"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	for n := range names {
		if !strings.HasPrefix(n, "fs__") && !strings.HasPrefix(n, "ev__") {
			t.Errorf("tool %s is not named after its server", n)
		}
	}

	secret := filepath.Join(dir, "secret.txt")
	if text, isErr := gatewaytest.Call(t, cs, "fs__write_file", map[string]any{"path": secret, "content": "pwned"}); !isErr || !strings.Contains(text, "no writes into secret files") {
		t.Errorf("fs__write_file of a secret file: %q (isError %v), want the policy's rejection", text, isErr)
	}
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Fatalf("the rejected write reached the disk (stat: %v)", err)
	}
	ok := filepath.Join(dir, "ok.txt")
	if text, isErr := gatewaytest.Call(t, cs, "fs__write_file", map[string]any{"path": ok, "content": "fine"}); isErr {
		t.Fatalf("approved fs__write_file: %s", text)
	}
	if b, err := os.ReadFile(ok); err != nil || string(b) != "fine" {
		t.Fatalf("the approved write on disk: %q %v", b, err)
	}
	if text, isErr := gatewaytest.Call(t, cs, "ev__echo", map[string]any{"message": "through two servers"}); isErr || !strings.Contains(text, "through two servers") {
		t.Errorf("ev__echo: %q (isError %v)", text, isErr)
	}
	// A notification of an upstream reaches the client (progress, with
	// the client's own token).
	longRunning(ctx, t, cs, "ev__trigger-long-running-operation", &progress)
	// The bare name and an unknown server name no tool of the session.
	for _, bad := range []string{"write_file", "zz__write_file"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: bad, Arguments: map[string]any{"path": filepath.Join(dir, "bare.txt"), "content": "x"}})
		if err == nil && !res.IsError {
			t.Errorf("%s was called", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bare.txt")); !os.IsNotExist(err) {
		t.Fatal("a call of a bare tool name reached the filesystem server")
	}

	var prompts []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		prompts = append(prompts, p.Name)
	}
	if !strings.Contains(strings.Join(prompts, " "), "ev__simple-prompt") {
		t.Fatalf("prompts/list: %v, want ev__simple-prompt", prompts)
	}
	if got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "ev__simple-prompt"}); err != nil || len(got.Messages) == 0 {
		t.Errorf("prompts/get ev__simple-prompt: %v, %v", got, err)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) < 2 {
		t.Fatalf("resources/list: %v, want the everything server's pages", uris)
	}
	if got, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uris[len(uris)-1]}); err != nil || len(got.Contents) == 0 {
		t.Errorf("resources/read %s: %v, %v", uris[len(uris)-1], got, err)
	}
	cs.Close()
	h.Close()

	// The run has the calls as the client made them, decided by the
	// policy that names them so. (The client's first request, of the
	// stateless revision, which several upstreams do not serve, was a
	// run of its own, with nothing in it.)
	var calls []string
	files, _ := filepath.Glob(filepath.Join(cfg.Paths.Runs, "mcp-*.jsonl"))
	for _, f := range files {
		for _, e := range eventtest.ReadFile(t, f) {
			if a, ok := e.Data.(event.Approval); ok {
				calls = append(calls, a.Call.Function+" "+a.Decision+" "+string(a.Call.Arguments))
			}
		}
	}
	if got := strings.Join(calls, "\n"); !strings.Contains(got, "fs__write_file reject") || !strings.Contains(got, "ev__echo approve") {
		t.Errorf("the run's approvals:\n%s", got)
	}
}

// TestX2_UpstreamNamesAreCheckedAtStart: several upstreams each need a
// name of their own, which cannot hold the separator or characters a
// tool's name could not carry; a policy that names a tool without its
// server's name would match no call of them, and is refused.
func TestX2_UpstreamNamesAreCheckedAtStart(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"fs", "fs"}, "given twice"},
		{[]string{"fs", ""}, "needs a NAME"},
		{[]string{"a__b", "c"}, `may not hold "__"`},
		{[]string{"fs_", "c"}, "end in '_'"},
		{[]string{"f s", "c"}, "only letters"},
		{[]string{"fs/x", "c"}, "only letters"},
		{[]string{strings.Repeat("x", 33), "c"}, "longer than 32"},
	} {
		var ups []Upstream
		for _, n := range tc.names {
			ups = append(ups, Upstream{Name: n})
		}
		if err := checkUpstreams(ups); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.names, err, tc.want)
		}
	}
	if err := checkUpstreams([]Upstream{{Name: "fs"}, {Name: "my-ev_2"}}); err != nil {
		t.Errorf("valid names: %v", err)
	}
	names := []string{"fs", "ev"}
	for policy, want := range map[string]string{
		"approvers:\n  - name: auto\n    decision: reject\n    tool: write_file\n":                                                                                  `names tool "write_file"`,
		"approvers:\n  - name: auto\n    decision: reject\n    tools: \"fs__ls, write_file(path='*')\"\n":                                                           `names tool "write_file"`,
		"approvers:\n  - name: auto\n    decision: reject\n    tools: zz__write_file\n":                                                                             `no MCP server "zz"`,
		"approvers:\n  - name: auto\n    decision: reject\n    tools: fs__write_file, \"*__read_file(path='*x*')\", ev__*\n  - name: auto\n    decision: approve\n": "",
	} {
		err := CheckPolicyNames(names, entries(t, policy, "approval.yaml"))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", policy, err, want)
		}
	}
}

// namedServer is an in-process go-sdk server, name, whose tool echo and
// the tool a__echo answer with its name, with a prompt hello, a resource
// of its own, one both servers list, and a template.
func namedServer(t *testing.T, name string) sdk.Transport {
	s := sdk.NewServer(&sdk.Implementation{Name: name, Version: "1"}, nil)
	answer := func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " ran " + req.Params.Name}}}, nil
	}
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, answer)
	if name == "b" {
		// b lists a tool named as a's is called: it stays b's (b__a__echo).
		s.AddTool(&sdk.Tool{Name: "a__echo", InputSchema: map[string]any{"type": "object"}}, answer)
	}
	s.AddPrompt(&sdk.Prompt{Name: "hello"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hello from " + name}}}}, nil
	})
	read := func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: name + " has " + req.Params.URI}}}, nil
	}
	for _, uri := range []string{"mem://" + name + "/own", "mem://shared"} {
		s.AddResource(&sdk.Resource{URI: uri, Name: uri}, read)
	}
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "mem://" + name + "/t/{x}", Name: "t"}, read)
	ct, st := sdk.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	return ct
}

// TestX2_SeveralUpstreamsRouteByName: with two in-process servers a and b,
// each call, prompt and resource reaches the server that listed it: a
// server cannot take another's tool by naming its own a__echo, and a
// resource URI both list (either could be answering for the other) is
// routed to neither; a policy on a__echo leaves b__echo alone.
func TestX2_SeveralUpstreamsRouteByName(t *testing.T) {
	cfg := testConfig(t, "approvers:\n  - name: auto\n    decision: reject\n    explanation: not a's echo\n    tools: a__echo\n  - name: auto\n    decision: approve\n", "")
	ctx := context.Background()
	var ups []Upstream
	for _, n := range []string{"a", "b"} {
		c, err := namedServer(t, n).Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ups = append(ups, Upstream{Name: n, Conn: c})
	}
	ct, st := sdk.NewInMemoryTransports()
	sc, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- (&Gateway{Config: cfg, Server: "a+b", Mode: mcp.Approve}).ServeMany(ctx, sc, ups) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "route-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("the session: %v", err)
		}
	}()
	for tool, want := range map[string]string{"b__echo": "b ran echo", "b__a__echo": "b ran a__echo"} {
		if text, isErr := gatewaytest.Call(t, cs, tool, map[string]any{}); isErr || text != want {
			t.Errorf("%s: %q (isError %v), want %q", tool, text, isErr, want)
		}
	}
	if text, isErr := gatewaytest.Call(t, cs, "a__echo", map[string]any{}); !isErr || !strings.Contains(text, "not a's echo") {
		t.Errorf("a__echo: %q (isError %v), want the policy's rejection", text, isErr)
	}
	if got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "b__hello"}); err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*sdk.TextContent).Text != "hello from b" {
		t.Errorf("prompts/get b__hello: %+v, %v", got, err)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) != 4 {
		t.Errorf("resources/list: %v, want both servers' two", uris)
	}
	// The templates listed, warden knows whose they are.
	if tpls, err := cs.ListResourceTemplates(ctx, nil); err != nil || len(tpls.ResourceTemplates) != 2 {
		t.Errorf("resources/templates/list: %+v, %v", tpls, err)
	}
	for uri, want := range map[string]string{"mem://a/own": "a has mem://a/own", "mem://b/own": "b has mem://b/own", "mem://b/t/x1": "b has mem://b/t/x1"} {
		got, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || len(got.Contents) != 1 || got.Contents[0].Text != want {
			t.Errorf("resources/read %s: %+v, %v, want %q", uri, got, err, want)
		}
	}
	if got, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "mem://shared"}); err == nil {
		t.Errorf("resources/read of a URI both servers list: %+v, want an error", got.Contents[0])
	}
}
