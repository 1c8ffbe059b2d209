package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/transcript"
)

// TestX2_StatelessRequestIsARunWithNothingElse: a request of the stateless
// revision (no session, no initialize), to a stateless upstream, is a
// client session of its own and so a warden run — governed by the policy,
// sealed in its transcript, in the store — and costs nothing more: no
// session lock file, no session state file beside the transcript (a new
// run, which no other process opens, keeps its state in memory), and
// warden's key is not read again for each (it is not recreated once
// removed).
func TestX2_StatelessRequestIsARunWithNothingElse(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, policy50(), "")
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg.Sink = st
	up := httptest.NewServer(echoHTTPServer(&sdk.StreamableHTTPOptions{JSONResponse: true, Stateless: true}))
	defer up.Close()
	h := &Handler{Gateway: &Gateway{Config: cfg, Server: "echo", Mode: mcp.Auto}, Token: testToken,
		Upstream: func(ctx context.Context) (sdk.Connection, error) {
			return (&sdk.StreamableClientTransport{Endpoint: up.URL, MaxRetries: -1}).Connect(ctx)
		}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	hc := &http.Client{Transport: bearer{testToken, http.DefaultTransport}}

	if err := postStateless(hc, srv.URL); err != nil {
		t.Fatal(err)
	}
	key, err := seal.LoadOrCreate(cfg.Paths.Key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cfg.Paths.Key); err != nil {
		t.Fatal(err)
	}
	if err := postStateless(hc, srv.URL); err != nil {
		t.Fatal(err)
	}
	secret := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a-secret-3-x"}}}`
	if text, isErr, err := postStatelessBody(hc, srv.URL, secret); err != nil || !isErr || strings.Contains(text, "a-secret-3-x") {
		t.Fatalf("a call the policy rejects answered %q (isError %v, %v)", text, isErr, err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.Paths.Key); !os.IsNotExist(err) {
		t.Errorf("warden's key was read again for a later request (recreated: %v)", err)
	}

	des, err := os.ReadDir(cfg.Paths.Runs)
	if err != nil {
		t.Fatal(err)
	}
	var names, runs []string
	for _, de := range des {
		names = append(names, de.Name())
		if r, ok := strings.CutSuffix(de.Name(), ".jsonl"); ok {
			runs = append(runs, r)
		}
	}
	sort.Strings(names)
	if len(runs) != 3 || len(names) != 6 {
		t.Fatalf("the runs directory holds %v: want 3 runs, each its transcript and head record alone", names)
	}
	lineKey := key.Derive(seal.LineKeyLabel)
	rejected := 0
	for _, r := range runs {
		if _, err := os.Stat(filepath.Join(cfg.Paths.Runs, r+".head")); err != nil {
			t.Errorf("run %s: %v", r, err)
		}
		f, err := os.Open(filepath.Join(cfg.Paths.Runs, r+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var evs []event.Event
		_, err = transcript.ReadSealed(f, lineKey, seal.Heads(cfg.Paths.Runs), func(e event.Event) error { evs = append(evs, e); return nil })
		f.Close()
		if err != nil {
			t.Fatalf("run %s does not verify: %v", r, err)
		}
		approvals := 0
		for _, e := range evs {
			if a, ok := e.Data.(event.Approval); ok {
				approvals++
				if a.Decision == "reject" {
					rejected++
				}
			}
		}
		if approvals != 1 {
			t.Errorf("run %s records %d approvals of calls, want 1: %s", r, approvals, kinds(evs))
		}
		stored, err := st.Events(ctx, r, "", 0)
		if err != nil || len(stored) != len(evs) {
			t.Errorf("run %s: the store holds %d events (%v), the transcript %d", r, len(stored), err, len(evs))
		}
	}
	if rejected != 1 {
		t.Errorf("%d calls recorded as rejected, want 1", rejected)
	}
}
