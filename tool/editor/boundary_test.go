package editor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/sandboxtest"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

func TestG2_EditorWritesOutsideTheBoundaryNeedApproval(t *testing.T) {
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := sandboxtest.OutsideDir(t, work)
	if err := os.WriteFile(filepath.Join(outside, "read.txt"), []byte("readable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := newEditor(Options{Dir: work, Sandbox: &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}})
	if err != nil {
		t.Fatal(err)
	}
	var asked []*boundary.Request
	decider := func(approve bool) context.Context {
		return boundary.WithDecider(context.Background(), boundary.DeciderFunc(func(_ context.Context, r *boundary.Request) (boundary.Decision, error) {
			asked = append(asked, r)
			return boundary.Decision{Approved: approve, Explanation: "test"}, nil
		}))
	}
	call := func(ctx context.Context, args map[string]any) (string, error) {
		raw, _ := json.Marshal(args)
		return tl.Run(ctx, raw)
	}
	tests := []struct {
		name    string
		path    string
		approve bool
		wantAsk bool
		wantErr bool
	}{
		{"inside the workdir", filepath.Join(work, "a.txt"), false, false, false},
		{"protected .git", filepath.Join(work, ".git", "config"), false, true, true},
		{"protected .git approved", filepath.Join(work, ".git", "config"), true, true, false},
		{"outside the roots", filepath.Join(outside, "b.txt"), false, true, true},
		{"outside the roots approved", filepath.Join(outside, "b.txt"), true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			os.Remove(tt.path)
			_, err := call(decider(tt.approve), map[string]any{"command": "create", "path": tt.path, "file_text": "x\n"})
			if (len(asked) > 0) != tt.wantAsk {
				t.Errorf("asked %d times", len(asked))
			}
			var te *tool.Error
			if tt.wantErr {
				if !errors.As(err, &te) || te.Type != tool.ErrApproval {
					t.Errorf("err = %v, want an approval error", err)
				}
				if _, serr := os.Stat(tt.path); serr == nil {
					t.Error("written without approval")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(tt.path); string(data) != "x\n" {
				t.Errorf("content %q", data)
			}
			if len(asked) > 0 && (asked[0].Kind != boundary.Write || asked[0].Paths[0] != tt.path) {
				t.Errorf("request = %+v", asked[0])
			}
		})
	}
	// Reads are not bounded by the working directory in a sandbox, and ask nobody.
	asked = nil
	out, err := call(context.Background(), map[string]any{"command": "view", "path": filepath.Join(outside, "read.txt")})
	if err != nil || !strings.Contains(out, "readable") || len(asked) != 0 {
		t.Errorf("read outside: %q, %v", out, err)
	}
	// Without a decider, a write outside fails closed.
	if _, err := call(context.Background(), map[string]any{"command": "create", "path": filepath.Join(outside, "c.txt"), "file_text": "x"}); err == nil {
		t.Error("write outside without a decider succeeded")
	}
}
