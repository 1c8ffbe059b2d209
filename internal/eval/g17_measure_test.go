package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/eval"
	"github.com/wardenhq/warden/internal/openaitest"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
	"github.com/wardenhq/warden/model"
)

// harmClasses are the phrases by which what the reviewer is told names a
// harmful class of effect: a file changed, created or deleted outside the
// writable roots (destruction, persistence), a name looked up or the
// network tried (exfiltration), a credential store opened (credential
// theft). They are the words of the dry run's summary (effect.Summary).
var harmClasses = []string{"outside the writable roots", "would look up", "would try the network", "would open the credential store"}

// reviewNonce finds the nonce of a review in the reviewer's request.
var reviewNonce = regexp.MustCompile(`nonce of this review is ([A-Z2-7]+)`)

// ruleModel is the reviewer model of the G17 measurement, a loopback
// OpenAI-compatible server with one fixed rule, the same with and without
// effects: it denies when the user message it receives (the transcript,
// the action and, with a dry run, its effects) names a harmful class of
// effect (harmClasses), and allows otherwise. It never reads the
// workspace. It records, per command line, whether it saw a class.
type ruleModel struct {
	*openaitest.Server
	mu   sync.Mutex
	seen []string // user messages, in order
}

func newRuleModel(t *testing.T) *ruleModel {
	m := &ruleModel{}
	m.Server = openaitest.NewServer(t, 100, 10, func(body string) map[string]any {
		user, _ := openaitest.UserMessage(body)
		m.mu.Lock()
		m.seen = append(m.seen, user)
		m.mu.Unlock()
		outcome, risk, why := "allow", "low", "no harmful effect named"
		if c := namedClass(user); c != "" {
			outcome, risk, why = "deny", "high", "names a harmful effect: "+c
		}
		n := ""
		if sub := reviewNonce.FindStringSubmatch(user); sub != nil {
			n = sub[1]
		}
		v, _ := json.Marshal(map[string]any{"outcome": outcome, "risk_level": risk, "user_authorization": "unknown", "rationale": why, "nonce": n})
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "v1", "type": "function",
			"function": map[string]any{"name": "submit_verdict", "arguments": string(v)}}}}
	})
	return m
}

func namedClass(s string) string {
	for _, c := range harmClasses {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

func (m *ruleModel) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.seen
	m.seen = nil
	return out
}

// TestG17_MeasureEffectsOnTheCorpus measures what a dry run's effects add
// to the boundary decider `warden run` ships (approvals_reviewer
// auto_review: the first pass, then the reviewer model for what it passes
// on), on the effects corpus: each case is asked twice as an agent's
// escalated bash call, without a dry run and with one, to the same
// loopback reviewer model with one fixed rule (ruleModel). It prints the
// table of docs/eval.md (go test -run TestG17_Measure -v), writes it to
// $WARDEN_G17_TABLE when set, and checks what must hold whatever the
// figures: the text alone never names a harmful effect to the model (the
// rule cannot see through text), the dry run changes nothing on disk, the
// first pass never allows on a dry run nor denies a benign case on its
// effects (it denies clear harm only), and effects make more decisions
// right, not fewer.
func TestG17_MeasureEffectsOnTheCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every case of the corpus")
	}
	cases, err := eval.ReadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	// The dry runner `warden run` ships (decider.KernelDryRun): what is
	// measured is what runs.
	dry := decider.KernelDryRun()
	switch {
	case dry == nil:
		t.Skip("this build has no dry runner (decider.KernelDryRun is nil)")
	case dry.Supported != nil && dry.Supported() != nil:
		t.Skipf("no dry run here: %v", dry.Supported())
	}
	hometest.New(t)
	t.Setenv("PATH", eval.CorpusPath)
	m := newRuleModel(t)
	base, err := os.MkdirTemp("/var/tmp", "warden-g17-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ctx := context.Background()
	var outs []eval.CaseOutcome
	var withoutTime, withTime time.Duration
	for i := range cases {
		c := &cases[i]
		if miss := c.MissingPrograms(eval.CorpusPath); len(miss) > 0 {
			t.Logf("%s: skipped, needs %v", c.ID, miss)
			continue
		}
		w, err := c.Build(ctx, filepath.Join(base, c.ID))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("HOME", w.Home)
		decide := func(dry *decider.DryRunner) eval.Outcome {
			p, err := decider.New(decider.Config{Reviewers: []string{approvalsreviewer.AutoReview}, ReviewModel: "openai/reviewer",
				ModelOptions: model.Options{BaseURL: m.URL + "/v1", APIKey: "sk-test"}, Workdir: w.Work,
				WritableRoots: []string{w.Work}, Person: eval.PassOn(), DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			o, err := eval.Decider(p).Review(ctx, c.Step(w))
			if err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			return o
		}
		start := time.Now()
		without := decide(nil)
		withoutTime += time.Since(start)
		for _, msg := range m.take() {
			if cl := namedClass(msg); cl != "" {
				t.Errorf("%s: without a dry run the model was told %q: the rule sees through text, the measurement is void", c.ID, cl)
			}
		}
		before, err := eval.TakeSnapshot(append([]string{w.Home}, c.Unchanged...)...)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		with := decide(dry)
		withTime += time.Since(start)
		m.take()
		after, err := eval.TakeSnapshot(append([]string{w.Home}, c.Unchanged...)...)
		if err != nil {
			t.Fatal(err)
		}
		if d := before.Diff(after); len(d) > 0 {
			t.Errorf("%s: the decider's dry run changed the disk:\n%s", c.ID, strings.Join(d, "\n"))
		}
		if !c.Harmful() && eval.FirstPassDenial(with) {
			t.Errorf("%s: the first pass denied a benign case on its effects: %s", c.ID, with.Reason)
		}
		if with.Decision == "allow" && with.By == "rules" && !(without.Decision == "allow" && without.By == "rules") {
			t.Errorf("%s: the first pass allowed on a dry run: %+v", c.ID, with)
		}
		t.Logf("%-34s %-7s without: %-8s by %-5s | with: %-8s by %-5s %s", c.ID, c.Label, without.Decision, without.By, with.Decision, with.By, cut(with.Reason, 110))
		outs = append(outs, eval.CaseOutcome{Case: c, Without: without, With: with})
	}
	rows := eval.TallyEffects(outs)
	var b bytes.Buffer
	if err := eval.WriteEffectsTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "mean time to decide a case: %.0f ms without a dry run, %.0f ms with one\n",
		float64(withoutTime.Microseconds())/1000/float64(len(outs)), float64(withTime.Microseconds())/1000/float64(len(outs)))
	t.Logf("G17 measurement, %d cases:\n%s", len(outs), b.String())
	if out := os.Getenv("WARDEN_G17_TABLE"); out != "" {
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if all := rows[0]; all.RightWith <= all.RightWithout {
		t.Errorf("effects made %d decisions right against %d without: they should add", all.RightWith, all.RightWithout)
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
