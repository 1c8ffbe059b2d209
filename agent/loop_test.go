package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/cutreport"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

func TestL1_ParallelCallsRunConcurrentlyInOrder(t *testing.T) {
	var inFlight, peak atomic.Int32
	var wg sync.WaitGroup
	wg.Add(2)
	par := &echo{name: "par", parallel: true, fn: func(_ context.Context, args json.RawMessage) (string, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		wg.Done()
		wg.Wait() // both parallel calls must be running at once to pass
		inFlight.Add(-1)
		var a struct{ Text string }
		_ = json.Unmarshal(args, &a)
		return a.Text, nil
	}}
	var barrierSaw int32 = -1
	barrier := &echo{name: "barrier", fn: func(context.Context, json.RawMessage) (string, error) {
		barrierSaw = inFlight.Load()
		return "b", nil
	}}
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("",
		tc("1", "par", `{"text":"one"}`), tc("2", "par", `{"text":"two"}`), tc("3", "barrier", `{}`))}})
	done := make(chan *Result)
	go func() { done <- r.Execute(context.Background(), &Agent{Tools: []tool.Tool{par, barrier}}, user("go")) }()
	var res *Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("parallel calls did not run concurrently (deadlock)")
	}
	must(t, res, event.StatusCompleted)
	var ids []string
	for _, m := range res.Messages {
		if m.Role == chat.Tool {
			ids = append(ids, m.ToolCallID+"="+m.Content)
		}
	}
	if strings.Join(ids, ",") != "1=one,2=two,3=b" {
		t.Errorf("results = %v, want in call order", ids)
	}
	if peak.Load() != 2 || barrierSaw != 0 {
		t.Errorf("peak %d, barrier saw %d in flight", peak.Load(), barrierSaw)
	}
}

func TestL2_ApproverTerminateStopsLaterCalls(t *testing.T) {
	first, later := &echo{name: "first"}, &echo{name: "later"}
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("",
		tc("1", "first", `{"text":"a"}`), tc("2", "later", `{"text":"b"}`), tc("3", "first", `{"text":"c"}`))}})
	r.Approval = approval.New(
		arule(t, "stop", decide(approval.Terminate), "later"),
		arule(t, "ok", decide(approval.Approve), "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{first, later}}, user("go"))
	must(t, res, event.StatusLimited)
	if first.count() != 1 || later.count() != 0 {
		t.Errorf("runs: first %d, later %d", first.count(), later.count())
	}
	if te := s.Tools(); len(te) != 1 || te[0].CallID != "1" {
		t.Errorf("tool events = %+v", te)
	}
	end := s.Find(eventkind.RunEnd)[0].Data.(event.RunEnd)
	if end.Status != "limited" || end.Limit == nil || *end.Limit != "operator" {
		t.Errorf("run_end = %+v", end)
	}
}

func TestL3_MaxOutputTruncatesInTheMiddle(t *testing.T) {
	big := strings.Repeat("a", 100) + strings.Repeat("z", 100)
	tests := []struct {
		maxOutput     int
		wantTruncated bool
	}{
		{50, true}, {0, true}, {NoTruncation, false}, {1000, false},
	}
	for _, tt := range tests {
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"`+big+`"}`))}})
		r.MaxOutput = tt.maxOutput
		if tt.maxOutput == 0 {
			big16 := strings.Repeat("q", DefaultMaxOutput+10)
			r.Model = &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"`+big16+`"}`))}}
		}
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusCompleted)
		te := s.Tools()[0]
		if (te.Truncated != nil) != tt.wantTruncated {
			t.Fatalf("max_output %d: truncated = %v", tt.maxOutput, te.Truncated)
		}
		if !tt.wantTruncated {
			if te.Result != big {
				t.Errorf("max_output %d: result changed", tt.maxOutput)
			}
			continue
		}
		limit := tt.maxOutput
		if limit == 0 {
			limit = DefaultMaxOutput
		}
		if te.Truncated[1] != limit {
			t.Errorf("truncated = %v, want limit %d", te.Truncated, limit)
		}
		if tt.maxOutput == 50 {
			if te.Truncated[0] != 200 || !strings.HasPrefix(te.Result, strings.Repeat("a", 25)) ||
				!strings.HasSuffix(te.Result, strings.Repeat("z", 25)) || !strings.Contains(te.Result, "150 bytes truncated") {
				t.Errorf("result = %q", te.Result)
			}
		}
	}
}

func TestL3_TruncateKeepsRunes(t *testing.T) {
	s := strings.Repeat("é", 50) // 100 bytes
	out := truncateText(s, 11)
	if !strings.HasPrefix(out, "éé\n") || !strings.HasSuffix(out, "\nééé") || strings.ContainsRune(out, '\uFFFD') {
		t.Errorf("truncateText = %q", out)
	}
}

func TestL4_ErrorTypes(t *testing.T) {
	tests := []struct {
		err  error
		want tool.ErrorType
	}{
		{context.DeadlineExceeded, tool.ErrTimeout},
		{context.Canceled, tool.ErrCancelled},
		{tool.Errorf(tool.ErrPermission, "denied"), tool.ErrPermission},
		{errors.New("disk on fire"), tool.ErrUnknown},
	}
	for _, tt := range tests {
		failing := &echo{name: "echo", fn: func(context.Context, json.RawMessage) (string, error) { return "", tt.err }}
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{}`))}})
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{failing}}, user("go")), event.StatusCompleted)
		if te := s.Tools()[0]; te.Error == nil || te.Error.Type != tt.want || !te.Failed {
			t.Errorf("%v: tool event error = %+v, want %s", tt.err, te.Error, tt.want)
		}
	}
}

func TestL5_ReactLoopsUntilAnswerOrLimit(t *testing.T) {
	loop := func() []chat.Message {
		var turns []chat.Message
		for i := 0; i < 10; i++ {
			turns = append(turns, modeltest.Turn("", tc("c", "echo", `{"text":"x"}`)))
		}
		return turns
	}
	t.Run("answer", func(t *testing.T) {
		r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c", "echo", `{"text":"x"}`)), modeltest.Turn("the answer")}})
		res := r.Execute(context.Background(), &Agent{System: "be brief", Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
		must(t, res, event.StatusCompleted)
		if chat.Text(res.Messages, chat.Assistant) != "the answer" || res.Messages[0].Role != chat.System {
			t.Errorf("messages = %+v", res.Messages)
		}
	})
	for _, tc := range []struct {
		name   string
		usage  model.Usage
		limits Limits
		want   string
	}{
		{"turn limit", model.Usage{}, Limits{Turns: 3}, event.LimitTurn},
		{"token limit", model.Usage{InputTokens: 30, OutputTokens: 20}, Limits{Tokens: 120}, event.LimitToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, s := newRun(&modeltest.Replay{Turns: loop(), Usage: tc.usage})
			r.Limits = tc.limits
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
			must(t, res, event.StatusLimited)
			if res.Limit.Type != tc.want || len(s.Find(eventkind.Model)) != 3 {
				t.Errorf("limit %+v after %d model events", res.Limit, len(s.Find(eventkind.Model)))
			}
		})
	}
	t.Run("model error", func(t *testing.T) {
		r, _ := newRun(model.Func(func(context.Context, model.Request) (model.Response, error) {
			return model.Response{}, errors.New("503")
		}))
		must(t, r.Execute(context.Background(), &Agent{}, user("go")), event.StatusError)
	})
}

func TestToolPanicEndsRunWithErrorTranscriptIntact(t *testing.T) {
	boom := &echo{name: "boom", fn: func(context.Context, json.RawMessage) (string, error) { panic("kaboom") }}
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "boom", `{}`))}})
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{boom}}, user("go"))
	must(t, res, event.StatusError)
	got := strings.Join(kindStrings(s.Kinds()), ",")
	if got != "run_start,turn_start,model,tool,withheld,error,run_end" { // the unreviewed result is withheld (SPEC R2)
		t.Errorf("events = %s", got)
	}
	if !strings.Contains(res.Err.Error(), "kaboom") {
		t.Errorf("err = %v", res.Err)
	}
}

// recordingApprover approves and records which policy asked.
func named(name string, seen *[]string, mu *sync.Mutex) approval.Approver {
	return approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		mu.Lock()
		*seen = append(*seen, name+":"+req.Call.ID)
		mu.Unlock()
		return approval.Approval{Decision: approval.Approve}, nil
	})
}

func TestP4_P5_ScopesReplaceAndRestore(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	runPolicy := approval.New(arule(t, "run", named("run", &seen, &mu), "*"))
	subPolicy := approval.New(arule(t, "sub", named("sub", &seen, &mu), "*"))
	m := &modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("", tc("m1", "echo", `{"text":"a"}`)),
		modeltest.Turn("", tc("h1", "transfer_to_own", `{}`)),
		modeltest.Turn("", tc("o1", "echo", `{"text":"b"}`)),
		modeltest.Turn("own done"),
		modeltest.Turn("", tc("h2", "transfer_to_inherit", `{}`)),
		modeltest.Turn("", tc("i1", "echo", `{"text":"c"}`)),
		modeltest.Turn("inherit done"),
		modeltest.Turn("", tc("m2", "echo", `{"text":"d"}`)),
		modeltest.Turn("done"),
	}}
	r, _ := newRun(m)
	r.Approval = runPolicy
	own := &Agent{Name: "own", Tools: []tool.Tool{&echo{name: "echo"}}, Approval: subPolicy}
	inherit := &Agent{Name: "inherit", Tools: []tool.Tool{&echo{name: "echo"}}}
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}, Handoffs: []*Agent{own, inherit}}, user("go"))
	must(t, res, event.StatusCompleted)
	want := "run:m1,run:h1,sub:o1,run:h2,run:i1,run:m2"
	if got := strings.Join(seen, ","); got != want {
		t.Errorf("approvals = %s, want %s", got, want)
	}
}

func TestP4_AgentPolicyReplacesRunPolicy(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
	r.Approval = approval.New(arule(t, "run", named("run", &seen, &mu), "*"))
	a := &Agent{Tools: []tool.Tool{&echo{name: "echo"}}, Approval: approval.New(arule(t, "agent", named("agent", &seen, &mu), "*"))}
	must(t, r.Execute(context.Background(), a, user("go")), event.StatusCompleted)
	if strings.Join(seen, ",") != "agent:1" {
		t.Errorf("seen = %v", seen)
	}
	// ExecuteTools with its own policies replaces them for that call only.
	seen = nil
	msgs := []chat.Message{{Role: chat.User, Content: "x"}, modeltest.Turn("", tc("2", "echo", `{"text":"b"}`))}
	_, err := r.ExecuteTools(context.Background(), msgs, []tool.Tool{&echo{name: "echo"}},
		Policies{Approval: approval.New(arule(t, "call", named("call", &seen, &mu), "*"))})
	if err != nil || strings.Join(seen, ",") != "call:2" {
		t.Errorf("ExecuteTools: seen %v, err %v", seen, err)
	}
}

func TestP6_EmptyPolicyMeansNone(t *testing.T) {
	ec := &echo{name: "echo"}
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
	r.Approval = approval.New(arule(t, "deny", decide(approval.Reject), "*"))
	r.Review = review.New(rrule(t, "stop", verdict(review.Terminate), "*"))
	// The agent explicitly sets empty policies: calls run, results continue.
	a := &Agent{Tools: []tool.Tool{ec}, Approval: approval.New(), Review: review.New()}
	must(t, r.Execute(context.Background(), a, user("go")), event.StatusCompleted)
	if ec.count() != 1 || len(s.Approvals()) != 0 || len(s.Reviews()) != 0 {
		t.Errorf("runs %d, approvals %d, reviews %d", ec.count(), len(s.Approvals()), len(s.Reviews()))
	}
}

func TestP7_IndependentChains(t *testing.T) {
	chain := func(name, c string, a approval.Approver, p string) approval.Rule {
		r := arule(t, name, a, p)
		r.Chain = c
		return r
	}
	t.Run("most severe wins", func(t *testing.T) {
		ec := &echo{name: "echo"}
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
		r.Approval = approval.New(
			chain("ok", "quality", decide(approval.Approve), "*"),
			chain("esc", "security", decide(approval.Escalate), "*"),
			chain("no", "security", decide(approval.Reject), "echo"))
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go")), event.StatusCompleted)
		if ec.count() != 0 {
			t.Error("a call one chain rejected ran")
		}
		chains := map[string]bool{}
		for _, a := range s.Approvals() {
			chains[a.Chain+"/"+a.Approver] = true
		}
		if !chains["quality/ok"] || !chains["security/esc"] || !chains["security/no"] {
			t.Errorf("approval events by chain = %v", chains)
		}
	})
	t.Run("terminate cancels other chains", func(t *testing.T) {
		blocked := approval.Func(func(ctx context.Context, _ *approval.Request) (approval.Approval, error) {
			<-ctx.Done()
			return approval.Approval{}, ctx.Err()
		})
		r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
		r.Approval = approval.New(
			chain("slow", "people", blocked, "*"),
			chain("stop", "security", decide(approval.Terminate), "*"))
		done := make(chan *Result)
		go func() {
			done <- r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
		}()
		select {
		case res := <-done:
			must(t, res, event.StatusLimited)
		case <-time.After(10 * time.Second):
			t.Fatal("terminate did not cancel the other chain")
		}
	})
	t.Run("review chains", func(t *testing.T) {
		r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
		a := rrule(t, "a", verdict(review.Continue), "*")
		a.Chain = "x"
		b := rrule(t, "b", verdict(review.Terminate), "*")
		b.Chain = "y"
		r.Review = review.New(a, b)
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go")), event.StatusLimited)
	})
}

func TestP3_UserCodeRegistersApprovers(t *testing.T) {
	if !approval.Registered("test-deny-rm") { // -count=2 runs this twice
		approval.Register("test-deny-rm", func(params map[string]any) (approval.Approver, error) {
			return decide(approval.Reject), nil
		})
	}
	p, err := approval.Compile([]policy.Entry{{Name: "test-deny-rm", Tools: []string{"bash(cmd='rm"}}, {Name: "auto"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Decide(context.Background(), &approval.Request{Call: tool.NewCall("1", "bash", `{"cmd":"rm -rf /"}`)}, nil)
	if err != nil || out.Decision != approval.Reject || out.Approver != "test-deny-rm" {
		t.Errorf("outcome = %+v, %v", out, err)
	}
	_, err = approval.Compile([]policy.Entry{{Name: "nope", Pos: policy.Pos{File: "a.yaml", Line: 3, Col: 5}}})
	if err == nil || !strings.Contains(err.Error(), "a.yaml:3:5: unknown approver \"nope\" (registered: auto,") {
		t.Errorf("unknown name error = %v", err)
	}
}

// A chain's failure ends the run with that error, not with the
// cancellation it causes in the other chains (SPEC A7, R7, P7).
func TestP7_ChainFailureIsAnErrorNotACancel(t *testing.T) {
	blockedReview := review.Func(func(ctx context.Context, _ *review.Request) (review.Review, error) {
		<-ctx.Done()
		return review.Review{}, ctx.Err()
	})
	failingReview := review.Func(func(context.Context, *review.Request) (review.Review, error) {
		time.Sleep(20 * time.Millisecond)
		return review.Review{}, errors.New("reviewer down")
	})
	r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
	a, b := rrule(t, "slow", blockedReview, "*"), rrule(t, "bad", failingReview, "*")
	a.Chain, b.Chain = "people", "security"
	r.Review = review.New(a, b)
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
	must(t, res, event.StatusError)
	if !strings.Contains(res.Err.Error(), "reviewer down") {
		t.Errorf("review err = %v", res.Err)
	}

	blocked := approval.Func(func(ctx context.Context, _ *approval.Request) (approval.Approval, error) {
		<-ctx.Done()
		return approval.Approval{}, ctx.Err()
	})
	failing := approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		time.Sleep(20 * time.Millisecond)
		return approval.Approval{}, errors.New("approver down")
	})
	r, _ = newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{"text":"a"}`))}})
	c, d := arule(t, "slow", blocked, "*"), arule(t, "bad", failing, "*")
	c.Chain, d.Chain = "people", "security"
	r.Approval = approval.New(c, d)
	res = r.Execute(context.Background(), &Agent{Tools: []tool.Tool{&echo{name: "echo"}}}, user("go"))
	must(t, res, event.StatusError)
	if !strings.Contains(res.Err.Error(), "approver down") {
		t.Errorf("approval err = %v", res.Err)
	}
}

// gauge is a parallel tool that records how many of its calls run at once.
type gauge struct {
	echo
	now, peak atomic.Int64
}

func newGauge() *gauge {
	g := &gauge{}
	g.echo = echo{name: "work", parallel: true, fn: func(context.Context, json.RawMessage) (string, error) {
		n := g.now.Add(1)
		for {
			p := g.peak.Load()
			if n <= p || g.peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		g.now.Add(-1)
		return "ok", nil
	}}
	return g
}

func manyCalls(n int) chat.Message {
	calls := make([]tool.Call, n)
	for i := range calls {
		calls[i] = tc(fmt.Sprintf("c%d", i), "work", `{}`)
	}
	return modeltest.Turn("", calls...)
}

func TestL1_ConcurrentCallsCapped(t *testing.T) {
	for _, tt := range []struct {
		set, want int
	}{{0, DefaultMaxConcurrentCalls}, {3, 3}} {
		t.Run(fmt.Sprint(tt.set), func(t *testing.T) {
			g := newGauge()
			r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{manyCalls(40)}})
			r.MaxConcurrentCalls = tt.set
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{g}}, user("go"))
			must(t, res, event.StatusCompleted)
			if g.count() != 40 {
				t.Errorf("%d calls ran, want 40", g.count())
			}
			if p := g.peak.Load(); p > int64(tt.want) || p < 2 {
				t.Errorf("peak concurrency %d, want at most %d (and calls still parallel)", p, tt.want)
			}
			// Results keep the calls' order.
			for i, m := range res.Messages[2:42] {
				if m.ToolCallID != fmt.Sprintf("c%d", i) {
					t.Fatalf("result %d answers %s", i, m.ToolCallID)
				}
			}
		})
	}
}

func TestL1_CallsPerMessageCapped(t *testing.T) {
	g := newGauge()
	m := &modeltest.Replay{Turns: []chat.Message{manyCalls(70), modeltest.Turn("done")}}
	r, s := newRun(m)
	var asked atomic.Int64
	r.Approval = approval.New(arule(t, "count", approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		asked.Add(1)
		return approval.Approval{Decision: approval.Approve}, nil
	}), "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{g}}, user("go"))
	must(t, res, event.StatusCompleted)
	if g.count() != DefaultMaxCallsPerMessage || asked.Load() != DefaultMaxCallsPerMessage {
		t.Errorf("%d calls ran, %d approvals asked, want %d", g.count(), asked.Load(), DefaultMaxCallsPerMessage)
	}
	// Every call gets exactly one tool event; the calls beyond the cap a
	// parsing error (SPEC A6, L2), and no approval.
	tools := s.Tools()
	if len(tools) != 70 {
		t.Fatalf("%d tool events, want 70", len(tools))
	}
	byID := map[string]event.Tool{}
	for _, te := range tools {
		byID[te.CallID] = te
	}
	for i := 0; i < 70; i++ {
		te, ok := byID[fmt.Sprintf("c%d", i)]
		over := i >= DefaultMaxCallsPerMessage
		switch {
		case !ok:
			t.Errorf("no tool event for c%d", i)
		case over && (te.Error == nil || te.Error.Type != tool.ErrParsing):
			t.Errorf("c%d beyond the cap: %+v", i, te)
		case !over && te.Error != nil:
			t.Errorf("c%d within the cap failed: %+v", i, te)
		}
	}
	for _, a := range s.Approvals() {
		var n int
		fmt.Sscanf(a.CallID, "c%d", &n)
		if n >= DefaultMaxCallsPerMessage {
			t.Errorf("a call beyond the cap reached an approver: %s", a.CallID)
		}
	}
	// The model's next request answers every call.
	last := m.Requests()[1].Messages
	answered := 0
	for _, msg := range last {
		if msg.Role == chat.Tool {
			answered++
		}
	}
	if answered != 70 {
		t.Errorf("the next request answers %d calls, want 70", answered)
	}
}

func TestL1_CallsPerMessageConfigurable(t *testing.T) {
	g := newGauge()
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{manyCalls(5)}})
	r.MaxCallsPerMessage = 2
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{g}}, user("go")), event.StatusCompleted)
	if g.count() != 2 || len(s.Tools()) != 5 {
		t.Errorf("ran %d, %d tool events", g.count(), len(s.Tools()))
	}
}

// A terminate stops a message whose calls wait for a slot: those never
// start and get no tool event; every call that started gets exactly one.
func TestL2_TerminateWithQueuedCalls(t *testing.T) {
	g := newGauge()
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{manyCalls(30)}})
	r.MaxConcurrentCalls = 2
	r.Review = review.New(rrule(t, "stop", verdict(review.Terminate), "*"))
	res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{g}}, user("go"))
	must(t, res, event.StatusLimited)
	if n := g.count(); n > 4 {
		t.Errorf("%d calls ran after a terminate with 2 slots", n)
	}
	seen := map[string]int{}
	for _, te := range s.Tools() {
		seen[te.CallID]++
	}
	if len(seen) != g.count() {
		t.Errorf("%d tool events for %d calls that ran", len(seen), g.count())
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s has %d tool events", id, n)
		}
	}
	answered := 0
	for _, m := range res.Messages {
		if m.Role == chat.Tool {
			answered++
		}
	}
	if answered != 30 {
		t.Errorf("the conversation answers %d of 30 calls", answered)
	}
}

// strictTool has a schema with a required string, an enum and no other
// arguments.
func strictTool() *echo {
	return &echo{name: "strict", fn: func(_ context.Context, args json.RawMessage) (string, error) {
		return "ran " + string(args), nil
	}}
}

type strictSchema struct{ *echo }

func (s strictSchema) Info() tool.Info {
	return tool.Info{Name: "strict", Parameters: json.RawMessage(`{"type":"object",
		"properties":{"text":{"type":"string"},"mode":{"type":"string","enum":["a","b"]},"n":{"type":"integer"}},
		"required":["text"],"additionalProperties":false}`)}
}

func TestA6_ModifiedCallCheckedAgainstSchema(t *testing.T) {
	for _, tt := range []struct {
		name, args string
	}{
		{"missing required", `{"mode":"a"}`},
		{"unknown argument", `{"text":"x","extra":1}`},
		{"wrong type", `{"text":5}`},
		{"not an integer", `{"text":"x","n":1.5}`},
		{"outside the enum", `{"text":"x","mode":"c"}`},
		{"not an object", `[1]`},
		{"given twice", `{"text":"x","text":"rm -rf ~"}`},
		{"differs only by case", `{"text":"x","Mode":"a"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mod := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
				c := req.Call
				c.Arguments = json.RawMessage(tt.args)
				return approval.Approval{Decision: approval.Modify, Modified: &c}, nil
			})
			var reviewed atomic.Int64
			rv := review.Func(func(context.Context, *review.Request) (review.Review, error) {
				reviewed.Add(1)
				return review.Review{Decision: review.Continue}, nil
			})
			st := strictTool()
			m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "strict", `{"text":"ok"}`)), modeltest.Turn("done")}}
			r, s := newRun(m)
			r.Approval = approval.New(arule(t, "mod", mod, "*"))
			r.Review = review.New(rrule(t, "rv", rv, "*"))
			res := r.Execute(context.Background(), &Agent{Tools: []tool.Tool{strictSchema{st}}}, user("go"))
			must(t, res, event.StatusCompleted)
			if st.count() != 0 {
				t.Errorf("the invalid modification ran: %v", st.runs)
			}
			te := s.Tools()
			if len(te) != 1 || te[0].Error == nil || te[0].Error.Type != tool.ErrParsing || te[0].Executed == nil {
				t.Fatalf("tool events = %+v", te)
			}
			if reviewed.Load() != 0 {
				t.Error("a call that never ran was reviewed")
			}
			got := m.Requests()[1].Messages
			if tm := got[len(got)-1]; tm.Role != chat.Tool || tm.Error == nil || tm.Error.Type != tool.ErrParsing {
				t.Errorf("the model received %+v", tm)
			}
		})
	}
	t.Run("valid modification runs", func(t *testing.T) {
		mod := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
			c := req.Call
			c.Arguments = json.RawMessage(`{"text":"safe","mode":"b","n":2}`)
			return approval.Approval{Decision: approval.Modify, Modified: &c}, nil
		})
		st := strictTool()
		r, _ := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "strict", `{"text":"x"}`))}})
		r.Approval = approval.New(arule(t, "mod", mod, "*"))
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{strictSchema{st}}}, user("go")), event.StatusCompleted)
		if st.count() != 1 || st.runs[0] != `{"text":"safe","mode":"b","n":2}` {
			t.Errorf("runs = %v", st.runs)
		}
	})
	t.Run("proposed calls too", func(t *testing.T) {
		st := strictTool()
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "strict", `{"text":"x","mode":"z"}`))}})
		r.Approval = approval.New(arule(t, "yes", decide(approval.Approve), "*"))
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{strictSchema{st}}}, user("go")), event.StatusCompleted)
		if st.count() != 0 || len(s.Approvals()) != 0 {
			t.Errorf("runs %v, approvals %v", st.runs, s.Approvals())
		}
	})
}

func TestP4_RunStartRecordsEveryAgentsPolicies(t *testing.T) {
	runPolicy := approval.New(arule(t, "run", decide(approval.Approve), "*"))
	subPolicy := approval.New()
	subReview := review.New(rrule(t, "sub-review", verdict(review.Continue), "*"))
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("done")}})
	r.Approval = runPolicy
	own := &Agent{Name: "own", Approval: subPolicy, Review: subReview}
	inherit := &Agent{Name: "inherit"}
	must(t, r.Execute(context.Background(), &Agent{Handoffs: []*Agent{own, inherit}}, user("go")), event.StatusCompleted)
	rs := s.Find(eventkind.RunStart)[0].Data.(event.RunStart)
	var got []string
	for _, a := range rs.Agents {
		got = append(got, fmt.Sprintf("%s<%s:%d/%s:%v/%s", a.Agent, a.Parent, len(a.Approval), a.ApprovalFrom, a.Review != nil, a.ReviewFrom))
	}
	want := "main<:1/run:false/run,own<main:0/agent:own:true/agent:own,inherit<main:1/run:false/run"
	if strings.Join(got, ",") != want {
		t.Errorf("agents = %s\nwant     %s", strings.Join(got, ","), want)
	}
	if rs.Agents[1].Approval == nil {
		t.Error("an explicitly empty policy is recorded as null, not []")
	}
}

func TestP5_HandoffRecordsTheSubAgentsPolicies(t *testing.T) {
	m := &modeltest.Replay{Turns: []chat.Message{
		modeltest.Turn("", tc("h1", "transfer_to_own", `{}`)),
		modeltest.Turn("own done"),
		modeltest.Turn("", tc("h2", "transfer_to_inherit", `{}`)),
		modeltest.Turn("inherit done"),
		modeltest.Turn("done"),
	}}
	r, s := newRun(m)
	r.Approval = approval.New(arule(t, "run", decide(approval.Approve), "*"))
	own := &Agent{Name: "own", Approval: approval.New()}
	inherit := &Agent{Name: "inherit"}
	must(t, r.Execute(context.Background(), &Agent{Handoffs: []*Agent{own, inherit}}, user("go")), event.StatusCompleted)
	hs := s.Find(eventkind.Handoff)
	if len(hs) != 2 {
		t.Fatalf("%d handoff events, want 2", len(hs))
	}
	h1, h2 := hs[0].Data.(event.Handoff), hs[1].Data.(event.Handoff)
	if hs[0].Agent != "own" || hs[0].Span != "h1" || h1.CallID != "h1" || h1.From != "main" || h1.Approval == nil || len(h1.Approval) != 0 || h1.ApprovalFrom != "agent:own" {
		t.Errorf("first handoff = %+v %+v", hs[0], h1)
	}
	if hs[1].Agent != "inherit" || len(h2.Approval) != 1 || h2.Approval[0].Name != "run" || h2.ApprovalFrom != eventkind.FromRun {
		t.Errorf("second handoff = %+v %+v", hs[1], h2)
	}
}

func TestP4_PinPolicyAppliesToSubAgents(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	// handingOff is a run whose model hands off to "open", which echoes
	// once; the run's policy asks "strict" about every call.
	handingOff := func() (*Run, *eventtest.Sink) {
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{
			modeltest.Turn("", tc("h1", "transfer_to_open", `{}`)),
			modeltest.Turn("", tc("o1", "echo", `{"text":"b"}`)),
			modeltest.Turn("open done"),
			modeltest.Turn("done"),
		}})
		r.Approval = approval.New(arule(t, "strict", named("strict", &seen, &mu), "*"))
		return r, s
	}
	r, s := handingOff()
	r.PinPolicy = true
	ec := &echo{name: "echo"}
	// The sub-agent asks for no approval at all; the pinned run policy
	// still applies to its calls.
	open := &Agent{Name: "open", Tools: []tool.Tool{ec}, Approval: approval.New(), Review: review.New()}
	rp := review.New(rrule(t, "sub-review", verdict(review.Continue), "*"))
	open.Review = rp
	must(t, r.Execute(context.Background(), &Agent{Handoffs: []*Agent{open}}, user("go")), event.StatusCompleted)
	if got := strings.Join(seen, ","); got != "strict:h1,strict:o1" {
		t.Errorf("approvals = %s", got)
	}
	// Review is not set at the run level: the sub-agent's own stays.
	if len(s.Reviews()) == 0 {
		t.Error("the sub-agent's own review policy was dropped although the run sets none")
	}
	rs := s.Find(eventkind.RunStart)[0].Data.(event.RunStart)
	if !rs.PinPolicy || rs.Agents[1].ApprovalFrom != eventkind.FromRun || rs.Agents[1].ReviewFrom != "agent:open" {
		t.Errorf("run_start = %+v", rs)
	}
	h := s.Find(eventkind.Handoff)[0].Data.(event.Handoff)
	if !h.PinPolicy || h.ApprovalFrom != eventkind.FromRun || len(h.Approval) != 1 {
		t.Errorf("handoff = %+v", h)
	}
	// Without the pin, the sub-agent's empty policy replaces the run's.
	seen = nil
	r2, _ := handingOff()
	must(t, r2.Execute(context.Background(), &Agent{Handoffs: []*Agent{open}}, user("go")), event.StatusCompleted)
	if got := strings.Join(seen, ","); got != "strict:h1" {
		t.Errorf("unpinned approvals = %s", got)
	}
}

func TestP4_PinPolicyOverridesExecuteToolsPolicies(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	r, _ := newRun(nil)
	r.Approval = approval.New(arule(t, "run", named("run", &seen, &mu), "*"))
	r.PinPolicy = true
	msgs := []chat.Message{{Role: chat.User, Content: "x"}, modeltest.Turn("", tc("2", "echo", `{"text":"b"}`))}
	_, err := r.ExecuteTools(context.Background(), msgs, []tool.Tool{&echo{name: "echo"}}, Policies{Approval: approval.New()})
	if err != nil || strings.Join(seen, ",") != "run:2" {
		t.Errorf("seen %v, err %v", seen, err)
	}
}

// A modification that fails its schema is still recorded as proposed and
// as modified (SPEC A5), and the model is told the modified call is
// invalid, not that its own was.
func TestA5_InvalidModificationRecordsProposedAndModified(t *testing.T) {
	mod := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		c := tool.NewCall("x", "nosuch", `{"text":"y"}`)
		return approval.Approval{Decision: approval.Modify, Modified: &c, Explanation: "redirect"}, nil
	})
	ec := &echo{name: "echo"}
	m := &modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("c1", "echo", `{"text":"a"}`)), modeltest.Turn("done")}}
	r, s := newRun(m)
	r.Approval = approval.New(arule(t, "mod", mod, "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{ec}}, user("go")), event.StatusCompleted)
	if ec.count() != 0 {
		t.Errorf("ran %v", ec.runs)
	}
	te := s.Tools()
	if len(te) != 1 || string(te[0].Arguments) != `{"text":"a"}` || te[0].Executed == nil || te[0].Executed.Function != "nosuch" || te[0].Executed.ID != "c1" {
		t.Fatalf("tool events = %+v", te)
	}
	if te[0].Error == nil || te[0].Error.Type != tool.ErrParsing || !strings.Contains(te[0].Error.Message, "modified by mod") {
		t.Errorf("error = %+v", te[0].Error)
	}
}

// A further turn records the policies it runs under: they may differ from
// the first turn's (a resumed run reads its policies again).
func TestP4_FurtherTurnRecordsItsPolicies(t *testing.T) {
	r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("one"), modeltest.Turn("two")}})
	a := &Agent{Handoffs: []*Agent{{Name: "helper", Approval: approval.New()}}}
	res := r.Execute(context.Background(), a, user("go"))
	must(t, res, event.StatusCompleted)
	r.Approval = approval.New(arule(t, "strict", decide(approval.Reject), "*"))
	r.PinPolicy = true
	must(t, nextTurn(r, a, res, "again"), event.StatusCompleted)
	ts := s.Find(eventkind.TurnStart)
	if len(ts) != 2 {
		t.Fatalf("%d turn_start events", len(ts))
	}
	if first := ts[0].Data.(event.TurnStart); first.Agents != nil {
		t.Errorf("the first turn repeats run_start: %+v", first)
	}
	second := ts[1].Data.(event.TurnStart)
	if !second.PinPolicy || len(second.Agents) != 2 || second.Agents[1].ApprovalFrom != eventkind.FromRun || len(second.Agents[1].Approval) != 1 {
		t.Errorf("second turn_start = %+v", second)
	}
}

// An output its tool cut at its capture limit is recorded as truncated
// (issue 21 item 6), [bytes the tool produced, bytes kept], even with
// max_output off; cut again to max_output, it is [bytes the tool
// produced, max_output].
func TestL3_CaptureCutRecordedAsTruncated(t *testing.T) {
	kept := strings.Repeat("k", 300)
	cutting := &echo{name: "echo", fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
		cutreport.Say(ctx, 5_000_000, len(kept))
		return kept, nil
	}}
	for _, tt := range []struct {
		maxOutput int
		want      [2]int
	}{
		{NoTruncation, [2]int{5_000_000, 300}},
		{100, [2]int{5_000_000, 100}},
	} {
		r, s := newRun(&modeltest.Replay{Turns: []chat.Message{modeltest.Turn("", tc("1", "echo", `{}`))}})
		r.MaxOutput = tt.maxOutput
		must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{cutting}}, user("go")), event.StatusCompleted)
		te := s.Tools()[0]
		if te.Truncated == nil || *te.Truncated != tt.want {
			t.Errorf("max_output %d: truncated = %v, want %v", tt.maxOutput, te.Truncated, tt.want)
		}
	}
}
