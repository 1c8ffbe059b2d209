package editor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
		return boundary.WithDecider(context.Background(), boundary.DeciderFunc(func(_ context.Context, r *boundary.Request) (boundary.Answer, error) {
			asked = append(asked, r)
			return boundary.Answer{Approved: approve, Explanation: "test"}, nil
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
			if len(asked) > 0 && (asked[0].Permission != boundary.Write || asked[0].Paths[0] != tt.path) {
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

// stateSecret is the token written into warden's state by the G16 tests.
const stateSecret = "wst-7c1d2e3f4a5b6c7d8e9f-token-bytes"

// stateFixture makes warden's home at home with a token, a key and a
// subdirectory, sets $WARDEN_HOME to it and $WARDEN_TOKEN to the token,
// and returns a snapshot function of every file in it.
func stateFixture(t *testing.T, home string) func() map[string]string {
	t.Helper()
	for _, d := range []string{home, filepath.Join(home, "keys"), filepath.Join(home, "runs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"token": stateSecret + "\n", "keys/override.key": stateSecret + "-key\n", "runs/r1.jsonl": `{"secret":"` + stateSecret + `"}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("WARDEN_HOME", home)
	t.Setenv("WARDEN_TOKEN", stateSecret)
	t.Setenv("WARDEN_MANAGED_CONFIG", filepath.Join(t.TempDir(), "managed.toml"))
	return func() map[string]string {
		out := map[string]string{}
		filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				data, _ := os.ReadFile(p)
				out[p] = fmt.Sprintf("%s %v", data, fi.Mode())
			}
			return nil
		})
		return out
	}
}

// approveAll is a context whose boundary requests are all approved: only
// the tool's own rule can keep warden's state out of reach.
func approveAll() context.Context {
	return boundary.WithDecider(context.Background(), boundary.DeciderFunc(func(context.Context, *boundary.Request) (boundary.Answer, error) {
		return boundary.Answer{Approved: true, Explanation: "the test approves everything"}, nil
	}))
}

// TestG16_EditorNeverReachesWardensState plays the agent against the
// in-process text_editor: in every sandbox mode (and none), with every
// boundary request approved, no view, create, str_replace, insert or
// undo_edit lists, reads or writes warden's state — given directly, through
// a symbolic link to the token or to the home, through ".." after a link
// (resolved as the kernel resolves it), through /proc/self/root, through
// warden's own /proc files, or through a hard link. The effects are
// checked: the token's bytes never appear in what the model receives, and
// every file of the state is unchanged.
func TestG16_EditorNeverReachesWardensState(t *testing.T) {
	for _, layout := range []string{"home outside the workspace", "home inside the workspace"} {
		t.Run(layout, func(t *testing.T) {
			work := t.TempDir()
			home := filepath.Join(t.TempDir(), "wardenhome")
			if layout == "home inside the workspace" {
				home = filepath.Join(work, "wardenhome")
			}
			snap := stateFixture(t, home)
			links := map[string]string{
				"tok":      filepath.Join(home, "token"),
				"homelink": home,
				"deep":     filepath.Join(home, "runs"),
				"dangle":   filepath.Join(home, "planted.toml"),
			}
			for name, target := range links {
				if err := os.Symlink(target, filepath.Join(work, name)); err != nil {
					t.Fatal(err)
				}
			}
			hard := filepath.Join(work, "hard")
			if err := os.Link(filepath.Join(home, "token"), hard); err != nil {
				t.Fatal(err)
			}
			before := snap()
			paths := []string{
				home, filepath.Join(home, "token"), filepath.Join(home, "keys"), filepath.Join(home, "keys", "override.key"),
				filepath.Join(home, "runs", "r1.jsonl"), filepath.Join(home, ".", "keys", "..", "token"),
				"tok", "homelink", "homelink/token", "homelink/keys/override.key", "deep/../token", "deep/r1.jsonl",
				"/proc/self/root" + filepath.Join(home, "token"), "/proc/self/root" + home, "/proc/self/root" + filepath.Join(work, "tok"),
				"/proc/self/environ", "/proc/self/cmdline", fmt.Sprintf("/proc/%d/environ", os.Getpid()), "/proc/self/fd/0",
				"hard", "dangle", filepath.Join(home, "planted.toml"), filepath.Join(home, "keys", "new.key"),
			}
			modes := []*sandbox.Policy{
				nil,
				{Mode: sandbox.ReadOnly, Workdir: work},
				{Mode: sandbox.WorkspaceWrite, Workdir: work},
				{Mode: sandbox.WorkspaceWrite, Workdir: work, WritableRoots: []string{filepath.Dir(home)}},
				{Mode: sandbox.FullAccess, Workdir: work},
			}
			for _, pol := range modes {
				name := "no sandbox"
				if pol != nil {
					name = string(pol.Mode) + fmt.Sprint(len(pol.WritableRoots))
				}
				t.Run(name, func(t *testing.T) {
					tl, err := newEditor(Options{Dir: work, Sandbox: pol})
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range paths {
						for _, args := range []map[string]any{
							{"command": "view", "path": p},
							{"command": "view", "path": p, "view_range": []int{1, -1}},
							{"command": "create", "path": p, "file_text": "planted = true\n"},
							{"command": "str_replace", "path": p, "old_str": stateSecret, "new_str": "x"},
							{"command": "insert", "path": p, "insert_line": 0, "new_str": "planted\n"},
							{"command": "undo_edit", "path": p},
						} {
							raw, _ := json.Marshal(args)
							out, err := tl.Run(approveAll(), raw)
							got := out
							if err != nil {
								got += "\n" + err.Error()
							}
							if strings.Contains(got, stateSecret) || leaksName(got, p, "override.key") || leaksName(got, p, "r1.jsonl") {
								t.Errorf("%s %s: the model receives warden's state:\n%s", args["command"], p, got)
							}
							if err == nil && args["command"] != "view" {
								t.Errorf("%s %s: succeeded: %s", args["command"], p, out)
							}
						}
						// What people and reviewers see of a call is the
						// tool's view: it reads nothing of the state either.
						raw, _ := json.Marshal(map[string]any{"command": "undo_edit", "path": p})
						if v := tl.View(callOf(raw)); strings.Contains(v.Content, stateSecret) {
							t.Errorf("view of undo_edit %s shows the state:\n%s", p, v.Content)
						}
					}
					// The workspace itself lists without the state in it.
					raw, _ := json.Marshal(map[string]any{"command": "view", "path": work})
					out, err := tl.Run(approveAll(), raw)
					if err != nil {
						t.Fatalf("view of the workspace: %v", err)
					}
					if strings.Contains(out, "token") || strings.Contains(out, "override.key") || strings.Contains(out, "r1.jsonl") {
						t.Errorf("the workspace's listing shows the state:\n%s", out)
					}
					if after := snap(); fmt.Sprint(after) != fmt.Sprint(before) {
						t.Errorf("warden's state changed:\nbefore %v\nafter  %v", before, after)
					}
				})
			}
		})
	}
}

// callOf is a text_editor call with the arguments raw.
func callOf(raw []byte) tool.Call { return tool.NewCall("c1", Name, string(raw)) }

// leaksName reports whether out names a file of the state that the path p
// the model gave does not name already: a listing of the state.
func leaksName(out, p, name string) bool {
	return strings.Contains(out, name) && !strings.Contains(p, name)
}
