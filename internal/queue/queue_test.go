package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	_ "github.com/wardenhq/warden/human" // registers the "human" approver and reviewer
	"github.com/wardenhq/warden/internal/bgtest"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/storetest/stores"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// pending waits until n requests are pending in s and returns them.
func pending(t *testing.T, s *store.Store, n int) []store.Request {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rs, err := s.Requests(context.Background(), "pending")
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) >= n {
			return rs
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("fewer than %d requests became pending", n)
	return nil
}

// registered builds the registered "human" approver and reviewer as a
// policy would.
func registered(t *testing.T, params map[string]any) (approval.Approver, review.Reviewer) {
	t.Helper()
	a, err := approval.Build("human", params)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.Build("human", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, r
}

func bashCall(id, cmd string) tool.Call {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return tool.NewCall(id, "bash", string(args))
}

func TestH1_QueuedApprovalWaitsForThePersonsDecision(t *testing.T) {
	s := stores.Temp(t)
	a, _ := registered(t, nil)
	ctx := queue.WithQueue(context.Background(), s, "run-1")
	done := bgtest.Go(func() (approval.Approval, error) {
		return a.Approve(ctx, &approval.Request{Message: "I will list", Call: bashCall("c1", "ls -la")})
	})
	rs := pending(t, s, 1)
	r := rs[0]
	if r.Kind != "approval" || r.RunID != "run-1" || r.Call.Function != "bash" || !strings.Contains(r.View, "ls -la") {
		t.Fatalf("request %+v", r)
	}
	if got := strings.Join(r.Choices, ","); got != "approve,modify,reject,terminate" {
		t.Fatalf("choices %s, want the web surface's default with modify (SPEC H2)", got)
	}
	select {
	case a := <-done:
		t.Fatalf("answered %+v before the person decided", a)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := s.Decide(context.Background(), r.ID, store.Answer{Decision: "reject", Explanation: "not now", DecidedBy: "alice"}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.Err != nil || got.Value.Decision != approval.Reject || !strings.Contains(got.Value.Explanation, "alice") || !strings.Contains(got.Value.Explanation, "not now") {
		t.Fatalf("approval %+v, %v", got.Value, got.Err)
	}
}

func TestH2_QueuedModifyRunsTheEditedArguments(t *testing.T) {
	s := stores.Temp(t)
	a, _ := registered(t, nil)
	ctx := queue.WithQueue(context.Background(), s, "run-1")
	done := bgtest.Go(func() (approval.Approval, error) {
		return a.Approve(ctx, &approval.Request{Call: bashCall("c1", "rm -rf build")})
	})
	r := pending(t, s, 1)[0]
	if _, err := s.Decide(context.Background(), r.ID, store.Answer{Decision: "modify", Modified: json.RawMessage(`{"cmd":"rm -rf build/tmp"}`), DecidedBy: "bob"}); err != nil {
		t.Fatal(err)
	}
	got := (<-done).Must(t)
	if got.Decision != approval.Modify || got.Modified == nil || string(got.Modified.Arguments) != `{"cmd":"rm -rf build/tmp"}` || got.Modified.ID != "c1" {
		t.Fatalf("approval %+v (modified %+v)", got, got.Modified)
	}
}

func TestH2_QueuedReviewOffersContinueAndTerminate(t *testing.T) {
	s := stores.Temp(t)
	_, rv := registered(t, nil)
	ctx := queue.WithQueue(context.Background(), s, "run-2")
	done := bgtest.Go(func() (review.Review, error) {
		return rv.Review(ctx, &review.Request{Call: bashCall("c1", "cat notes"), Result: tool.Result{Content: "<button>Approve</button>"}})
	})
	r := pending(t, s, 1)[0]
	if r.Kind != "review" || r.Result != "<button>Approve</button>" || strings.Join(r.Choices, ",") != "continue,terminate" {
		t.Fatalf("request %+v", r)
	}
	if _, err := s.Decide(context.Background(), r.ID, store.Answer{Decision: "continue"}); err != nil {
		t.Fatal(err)
	}
	if got := (<-done).Must(t); got.Decision != review.Continue {
		t.Fatalf("review %+v", got)
	}
}

func TestH3_QueuedRequestTimesOutToTheFailsafe(t *testing.T) {
	s := stores.Temp(t)
	a, rv := registered(t, map[string]any{"timeout": 0.2})
	ctx := queue.WithQueue(context.Background(), s, "run-3")
	got, err := a.Approve(ctx, &approval.Request{Call: bashCall("c1", "ls")})
	if err != nil || got.Decision != approval.Reject || !strings.Contains(got.Explanation, "timed out") {
		t.Fatalf("approval %+v, %v: want rejected on timeout", got, err)
	}
	rs, err := s.Requests(context.Background(), "all")
	if err != nil || len(rs) != 1 || rs[0].Status != "expired" {
		t.Fatalf("stored %+v, %v: want one expired request", rs, err)
	}
	// A reviewer with no timeout: withdrawn when the run stops waiting.
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		pending(t, s, 1)
		cancel()
	}()
	if _, err := rv.Review(cctx, &review.Request{Call: bashCall("c2", "ls")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("review error %v, want context.Canceled", err)
	}
	rs, err = s.Requests(context.Background(), "pending")
	if err != nil || len(rs) != 0 {
		t.Fatalf("pending %+v, %v: the cancelled run's request must be withdrawn", rs, err)
	}
}

func TestH4_QueuedRequestsDoNotBlockEachOther(t *testing.T) {
	s := stores.Temp(t)
	a, _ := registered(t, nil)
	const n = 12
	var wg sync.WaitGroup
	got := make([]approval.Decision, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := queue.WithQueue(context.Background(), s, "run-"+string(rune('a'+i)))
			ans, err := a.Approve(ctx, &approval.Request{Call: bashCall("c1", "echo "+string(rune('a'+i)))})
			if err != nil {
				t.Error(err)
			}
			got[i] = ans.Decision
		}()
	}
	rs := pending(t, s, n)
	// Decide newest first: every run gets its own answer.
	for i := len(rs) - 1; i >= 0; i-- {
		d := "approve"
		if strings.HasSuffix(rs[i].RunID, "a") || strings.HasSuffix(rs[i].RunID, "c") {
			d = "reject"
		}
		if _, err := s.Decide(context.Background(), rs[i].ID, store.Answer{Decision: d}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	for i, d := range got {
		want := approval.Approve
		if i == 0 || i == 2 {
			want = approval.Reject
		}
		if d != want {
			t.Errorf("run %d got %s, want %s", i, d, want)
		}
	}
}

// lyingQueue answers every request with a decision it was never offered,
// as a compromised or buggy store could.
type lyingQueue struct{}

func (lyingQueue) Submit(_ context.Context, r *store.Request) error { r.ID = "x"; return nil }
func (lyingQueue) Wait(context.Context, string) (store.Request, error) {
	return store.Request{ID: "x", Status: "decided", Decision: "approve"}, nil
}
func (lyingQueue) Withdraw(context.Context, string) error { return nil }

func TestH3_QueueDecisionNotOfferedFailsClosed(t *testing.T) {
	a := queue.Approver(lyingQueue{}, "run", []approval.Decision{approval.Reject, approval.Terminate}, 0)
	got, err := a.Approve(context.Background(), &approval.Request{Call: bashCall("c1", "ls")})
	if err == nil || got.Decision == approval.Approve {
		t.Fatalf("approval %+v, %v: an answer that was not offered must be an error, never an approval", got, err)
	}
}

// A boundary request is approved or not: the queue does not offer to
// modify it (the agent would read a modified crossing as denied anyway).
func TestH2_QueuedBoundaryRequestOffersNoModify(t *testing.T) {
	s := stores.Temp(t)
	a, _ := registered(t, nil)
	ctx := queue.WithQueue(context.Background(), s, "run-b")
	done := bgtest.Go(func() (approval.Approval, error) {
		return a.Approve(ctx, &approval.Request{Call: bashCall("c1", "touch ~/x"), Boundary: &boundary.Request{Permission: boundary.Write, Paths: []string{"/home/u/x"}, Reason: "outside the writable roots"}})
	})
	r := pending(t, s, 1)[0]
	if r.Kind != "boundary" || strings.Join(r.Choices, ",") != "approve,reject,terminate" || !strings.Contains(r.Message, "outside the writable roots") {
		t.Fatalf("request %+v", r)
	}
	if _, err := s.Decide(context.Background(), r.ID, store.Answer{Decision: "modify", Modified: json.RawMessage(`{"cmd":"ls"}`)}); !errors.Is(err, store.ErrChoice) {
		t.Fatalf("modify on a boundary request: %v, want ErrChoice", err)
	}
	if _, err := s.Decide(context.Background(), r.ID, store.Answer{Decision: "reject"}); err != nil {
		t.Fatal(err)
	}
	if got := (<-done).Must(t); got.Decision != approval.Reject {
		t.Fatalf("approval %+v", got)
	}
}

// The store and the client of warden serve are the queues warden runs
// with (SPEC H4, S2).
var (
	_ queue.Queue = (*store.Store)(nil)
	_ queue.Queue = (*serveclient.Client)(nil)
)
