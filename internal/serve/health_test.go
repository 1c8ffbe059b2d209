package serve

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/store"
)

// /healthz says when the server cannot write its store and recovers when
// it can again: the SQLite file and its log are made immutable (chattr +i,
// which stops root too, unlike chmod), then writable again.
func TestS2_HealthzStoreNotWritable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "warden.db")
	ts := startServer(t, "sqlite:"+db)
	files := []string{db, db + "-wal"}
	if out, err := exec.Command("chattr", "+i", files[0]).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	exec.Command("chattr", "-i", files[0]).Run()
	health := func() (int, string) {
		code, body, _ := call(t, "GET", ts.URL+"/healthz", "", http.Header{})
		return code, string(body)
	}
	// until reports /healthz after the probe cache has expired.
	until := func(want int) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, body := health()
			if code == want || time.Now().After(deadline) {
				if code != want {
					t.Fatalf("healthz: %d %q, want %d", code, body, want)
				}
				return body
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if body := until(200); body != "ok" {
		t.Fatalf("healthz: %q", body)
	}
	args := append([]string{"+i"}, files...)
	if out, err := exec.Command("chattr", args...).CombinedOutput(); err != nil {
		t.Fatalf("chattr: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", append([]string{"-i"}, files...)...).Run() })
	if body := until(503); !strings.Contains(body, "store not writable") {
		t.Fatalf("healthz: %q", body)
	}
	// The API cannot write either: the health says what is true.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	ro := store.Request{Kind: store.KindApproval, RunID: "run-ro", Choices: []string{"approve", "reject"}}
	if err := ts.Client.Submit(ctx, &ro); err == nil {
		t.Fatal("a request was created on an immutable store")
	}
	args[0] = "-i"
	if out, err := exec.Command("chattr", args...).CombinedOutput(); err != nil {
		t.Fatalf("chattr: %v %s", err, out)
	}
	if body := until(200); body != "ok" {
		t.Fatalf("healthz after recovery: %q", body)
	}
	r := submit(t, ts.Client, "run-rw")
	if r.ID == "" {
		t.Fatal("no request after recovery")
	}
}
