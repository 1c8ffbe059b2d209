package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/store"
)

// TestX2_CLIServesTheStatelessRevision: `warden mcp --listen`, with one
// upstream command or several, serves the go-sdk client the stateless
// revision (SEP-2575): server/discover succeeds, initialize is never
// sent, no answer carries an Mcp-Session-Id. Every request is governed as
// in a session — the write the policy rejects is not on disk, the one it
// approves is — and is a run of its own, in the store; the upstream
// command is started once for all the requests (each upstream once), not
// per request, and once again after it died; the bearer token is required
// of these requests too.
func TestX2_CLIServesTheStatelessRevision(t *testing.T) {
	fs := hostBinary(t, "mcp-server-filesystem", "WARDEN_TEST_MCP_FILESYSTEM")
	const token = "mcp-stateless-test-token-0123456789abcdef"
	for _, tc := range []struct {
		name   string
		prefix []string // the upstreams' names ("" for one, unnamed)
	}{
		{"one upstream", []string{""}},
		{"two upstreams", []string{"one", "two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, etc := t.TempDir(), t.TempDir()
			starts := filepath.Join(etc, "starts")
			// The upstream command notes each start of its own.
			wrapper := filepath.Join(etc, "fs.sh")
			if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho started $$ >> '"+starts+"'\nexec '"+fs+"' \"$@\"\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			var args, pol []string
			dirs := map[string]string{}
			for _, n := range tc.prefix {
				dir := t.TempDir()
				dirs[n] = dir
				tool := "write_file"
				spec := wrapper + " " + dir
				if n != "" {
					tool, spec = n+"__write_file", n+"="+spec
				}
				args = append(args, "--upstream", spec)
				pol = append(pol, "  - name: auto\n    decision: reject\n    explanation: not the config\n    tool: "+tool+"\n    args:\n      path: \"*.conf\"\n")
			}
			polFile := filepath.Join(etc, "approval.yaml")
			if err := os.WriteFile(polFile, []byte("approvers:\n"+strings.Join(pol, "")+"  - name: auto\n    decision: approve\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"WARDEN_HOME=" + home, "WARDEN_DB=", "WARDEN_SERVER=", "WARDEN_TOKEN=" + token}
			addr, stop := listenWardenAt(t, env, append([]string{"--listen", "127.0.0.1:0", "--stateless", "--approval", polFile, "--mode", "approve"}, args...)...)

			var mu sync.Mutex
			var methods []string
			sessionIDs := 0
			client := func(tok string) (*sdk.ClientSession, error) {
				ct := &sdk.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1,
					HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
						r = r.Clone(r.Context())
						r.Header.Set("Authorization", "Bearer "+tok)
						if r.Body != nil {
							b, err := io.ReadAll(r.Body)
							if err != nil {
								return nil, err
							}
							r.Body = io.NopCloser(bytes.NewReader(b))
							var m struct {
								Method string `json:"method"`
							}
							if json.Unmarshal(b, &m) == nil && m.Method != "" {
								mu.Lock()
								methods = append(methods, m.Method)
								mu.Unlock()
							}
						}
						resp, err := http.DefaultTransport.RoundTrip(r)
						if err == nil && resp.Header.Get("Mcp-Session-Id") != "" {
							mu.Lock()
							sessionIDs++
							mu.Unlock()
						}
						return resp, err
					})}}
				return sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			}
			if cs, err := client("not-the-token"); err == nil {
				cs.Close()
				t.Fatal("connected without the token")
			}
			if b, _ := os.ReadFile(starts); len(b) != 0 {
				t.Fatalf("a request without the token started the upstream: %q", b)
			}
			mu.Lock()
			methods = nil
			mu.Unlock()
			cs, err := client(token)
			if err != nil {
				t.Fatal(err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" || cs.ID() != "" {
				t.Fatalf("negotiated protocol %s, session %q: want the stateless revision, no session", v, cs.ID())
			}
			ctx := context.Background()
			for round := 0; round < 3; round++ {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			for n, dir := range dirs {
				pre := ""
				if n != "" {
					pre = n + "__"
				}
				ok, conf := filepath.Join(dir, "ok.txt"), filepath.Join(dir, "app.conf")
				if text, isErr := callText(t, cs, pre+"write_file", map[string]any{"path": ok, "content": "approved"}); isErr {
					t.Errorf("%swrite_file %s, approved: %q", pre, ok, text)
				}
				if text, isErr := callText(t, cs, pre+"write_file", map[string]any{"path": conf, "content": "evil"}); !isErr || !strings.Contains(text, "not the config") {
					t.Errorf("%swrite_file %s, rejected: %q (isError %v)", pre, conf, text, isErr)
				}
				for i := 0; i < 5; i++ {
					if text, isErr := callText(t, cs, pre+"read_text_file", map[string]any{"path": ok}); isErr || text != "approved" {
						t.Errorf("%sread_text_file %s: %q (isError %v)", pre, ok, text, isErr)
					}
				}
				if b, err := os.ReadFile(ok); err != nil || string(b) != "approved" {
					t.Errorf("the approved write on disk: %q, %v", b, err)
				}
				if _, err := os.Stat(conf); !os.IsNotExist(err) {
					t.Errorf("the rejected write of %s reached the disk (stat: %v)", conf, err)
				}
			}
			// The upstream dies: a later request starts it again, once.
			b, _ := os.ReadFile(starts)
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				pid, err := strconv.Atoi(strings.TrimPrefix(line, "started "))
				if err != nil {
					t.Fatalf("the starts file holds %q", b)
				}
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			after := 0
			for n, dir := range dirs {
				name := "read_text_file"
				if n != "" {
					name = n + "__" + name
				}
				params := &sdk.CallToolParams{Name: name, Arguments: map[string]any{"path": filepath.Join(dir, "ok.txt")}}
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					// A request made while the dead upstream's connection
					// is still held fails; the next connects again.
					res, err := cs.CallTool(ctx, params)
					after++
					if err == nil && !res.IsError {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s after the upstream died: %+v, %v", name, res, err)
					}
				}
			}
			cs.Close()
			stop()

			mu.Lock()
			if len(methods) == 0 || methods[0] != "server/discover" || sessionIDs != 0 {
				t.Errorf("the client sent %v and received %d session ids: want server/discover first, no session", methods, sessionIDs)
			}
			for _, m := range methods {
				if m == "initialize" {
					t.Errorf("the client fell back to initialize: %v", methods)
					break
				}
			}
			mu.Unlock()
			b, _ = os.ReadFile(starts)
			if n := strings.Count(string(b), "started"); n != 2*len(tc.prefix) {
				t.Errorf("the upstream command was started %d times for the requests, want %d (once per upstream, and once again after it died)", n, 2*len(tc.prefix))
			}

			// Each request a run, in the store; the rejection among them.
			runs, _ := filepath.Glob(filepath.Join(home, "runs", "mcp-*.jsonl"))
			// The default store of that home imports the marked runs when
			// it is opened (internal/spool).
			t.Setenv("WARDEN_HOME", home)
			st, err := store.Open(ctx, "sqlite:"+filepath.Join(home, "warden.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			calls, rejected := 0, 0
			for _, r := range runs {
				id := strings.TrimSuffix(filepath.Base(r), ".jsonl")
				run, err := st.Run(ctx, id)
				if err != nil || run.Status != event.StatusCompleted {
					t.Errorf("the store's run %s: %+v, %v; want it completed", id, run, err)
					continue
				}
				evs, err := st.Events(ctx, id, "", 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range evs {
					if a, ok := e.Data.(event.Approval); ok {
						calls++
						if a.Decision == "reject" {
							rejected++
						}
					}
				}
			}
			if want := 7*len(tc.prefix) + after; calls != want || rejected != len(tc.prefix) {
				t.Errorf("the store holds %d decided calls, %d rejected, in %d runs: want %d, %d", calls, rejected, len(runs), want, len(tc.prefix))
			}
		})
	}
}
