// Package hosttest runs the real coding agents warden's hooks govern —
// Codex, Claude Code, Gemini CLI — in tests, offline: it finds their
// pinned binaries and asks them what they would do with a configuration.
package hosttest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Find returns the path of a host's binary (codex, claude, gemini): the
// variable env when set (WARDEN_TEST_CODEX, …), else the binary on PATH,
// else "" (the test skips, unless WARDEN_REQUIRE_HOSTS is set: then it
// fails, as CI wants).
func Find(name, env string) string {
	if p := os.Getenv(env); p != "" {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// Need finds a program as Find does, skipping the test without it, and
// failing it where the real peers are required (CI sets
// WARDEN_REQUIRE_HOSTS).
func Need(t testing.TB, name, env string) string {
	t.Helper()
	bin := Find(name, env)
	if bin == "" {
		if os.Getenv("WARDEN_REQUIRE_HOSTS") != "" {
			t.Fatalf("%s not found (%s)", name, env)
		}
		t.Skipf("%s not found: set %s", name, env)
	}
	return bin
}

// CodexHook is one hook as `codex app-server` lists it (hooks/list).
type CodexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	EventName   string `json:"eventName"`
	Enabled     bool   `json:"enabled"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// CodexHooks asks the Codex binary at bin, with CODEX_HOME home, which
// hooks it finds for cwd and whether it trusts each: Codex's own answer,
// over its app-server's JSON-RPC on stdio. Warnings are Codex's about the
// configuration (a file it could not parse).
func CodexHooks(ctx context.Context, bin, home, cwd string) (hooks []CodexHook, warnings []string, err error) {
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+filepath.Dir(home))
	cmd.Dir = cwd
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	defer func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	send := func(m any) error {
		b, _ := json.Marshal(m)
		_, err := in.Write(append(b, '\n'))
		return err
	}
	r := bufio.NewReaderSize(out, 1<<20)
	await := func(id int) (json.RawMessage, error) {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("codex app-server: %w", err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			if len(m.Error) > 0 {
				return nil, fmt.Errorf("codex app-server: %s", m.Error)
			}
			return m.Result, nil
		}
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "warden-test", "version": "1"}}}); err != nil {
		return nil, nil, err
	}
	if _, err := await(1); err != nil {
		return nil, nil, err
	}
	_ = send(map[string]any{"jsonrpc": "2.0", "method": "initialized"})
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}}); err != nil {
		return nil, nil, err
	}
	res, err := await(2)
	if err != nil {
		return nil, nil, err
	}
	var list struct {
		Data []struct {
			Hooks    []CodexHook `json:"hooks"`
			Warnings []string    `json:"warnings"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, nil, err
	}
	if len(list.Data) == 0 {
		return nil, nil, errors.New("codex app-server: hooks/list answered no data")
	}
	return list.Data[0].Hooks, list.Data[0].Warnings, nil
}

// fake is what every fake model API here has: where it listens, the
// command its first answer asks the host to run, and the requests it
// received, kept safe for the server's goroutines and the test at once.
type fake struct {
	// URL is the API's base URL.
	URL string
	// Command is the shell command the model asks the host to run.
	Command string

	requests
}

// start serves h on loopback until the test ends, at the URL with path
// after it, for command.
func (f *fake) start(t testing.TB, command string, h http.HandlerFunc, path string) {
	f.Command = command
	f.URL = serve(t, h) + path
}

// requests keeps the requests a fake model received.
type requests struct {
	mu   sync.Mutex
	list []string
}

func (r *requests) add(s string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, s)
	return len(r.list)
}

// Requests returns the requests received so far, oldest first.
func (r *requests) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.list...)
}

// serve starts h on loopback until the test ends and returns its URL.
func serve(t testing.TB, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
