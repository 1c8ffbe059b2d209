package main

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest/stores"
)

// Twenty runs survive their server's restart: `warden serve` is killed
// with ten runs waiting and ten more submitting while it is down, and
// comes back on the same port after 3 s. Every run's call is decided
// once, by the person, with one request row per call, and none is released
// before the decision (SPEC S3; issue 21: 14 of 20 runs failed).
func TestS3_RunsSurviveServeRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a real server")
	}
	const token = "s3-restart-token-0123456789abcdefgh"
	home := t.TempDir()
	db := "sqlite:" + filepath.Join(home, "restart.db")
	env := []string{"WARDEN_HOME=" + home, "WARDEN_TOKEN=" + token, "WARDEN_DB="}
	p := startServe(t, env, "--addr", "127.0.0.1:0", "--db", db)
	u, err := url.Parse(p.url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const n = 20
	type result struct {
		run string
		req store.Request
		err error
	}
	results := make(chan result, n)
	submitted := make(chan struct{}, n)
	var decided sync.Map // request id → true, once the person decided it
	start := func(i int) {
		go func() {
			c := &serveclient.Client{URL: p.url, Token: token}
			run := fmt.Sprintf("run%02d", i)
			deadline := time.Now().Add(90 * time.Second)
			r := store.Request{Kind: store.KindApproval, RunID: run, Agent: "main", Deadline: &deadline,
				Call: store.Call{ID: "c1", Function: "bash", Arguments: []byte(`{"cmd":"rm -f important.txt"}`)}}
			if err := c.Submit(ctx, &r); err != nil {
				results <- result{run: run, err: err}
				return
			}
			submitted <- struct{}{}
			got, err := c.Wait(ctx, r.ID)
			if err == nil {
				if _, ok := decided.Load(r.ID); !ok {
					err = fmt.Errorf("released with %s/%s before the person decided", got.Status, got.Decision)
				}
			}
			results <- result{run, got, err}
		}()
	}
	for i := range n / 2 {
		start(i)
	}
	for range n / 2 {
		select {
		case <-submitted:
		case r := <-results:
			t.Fatalf("before the restart: %+v", r)
		}
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	for i := n / 2; i < n; i++ {
		start(i)
	}
	time.Sleep(3 * time.Second)
	p2 := startServe(t, env, "--addr", u.Host, "--db", db)
	if p2.url != p.url {
		t.Fatalf("restarted on %s, not %s", p2.url, p.url)
	}

	// The person approves each request once, as it appears.
	op := &serveclient.Client{URL: p2.url, Token: token}
	runs := map[string]store.Request{}
	for len(runs) < n {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatalf("%s failed across the restart: %v", r.run, r.err)
			}
			runs[r.run] = r.req
			continue
		case <-ctx.Done():
			t.Fatalf("%d of %d runs decided", len(runs), n)
		default:
		}
		pending, err := op.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range pending {
			decided.Store(r.ID, true)
			if _, err := op.Decide(ctx, r.ID, store.Answer{Decision: "approve"}); err != nil {
				t.Fatalf("deciding %s: %v", r.ID, err)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for run, r := range runs {
		if r.Status != store.StatusDecided || r.Decision != "approve" || r.RunID != run {
			t.Fatalf("%s: %+v", run, r)
		}
	}
	all := stores.Open(t, db)
	rows, err := all.Requests(ctx, "all")
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range rows {
		per[r.RunID]++
	}
	if len(rows) != n || len(per) != n {
		t.Fatalf("%d request rows for %d runs, want one per run: %v", len(rows), len(per), per)
	}
}
