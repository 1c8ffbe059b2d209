package task_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/modeltest"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// recModels are the models a test opened as "task-test-rec:NAME": a
// registry for these tests, which the provider below reads.
var recModels sync.Map

// slowTerminate is a reviewer that takes a moment, then terminates.
const slowTerminate = "task-test-slow-terminate"

func init() {
	review.Register(slowTerminate, func(map[string]any) (review.Reviewer, error) {
		return review.Func(func(ctx context.Context, _ *review.Request) (review.Review, error) {
			select {
			case <-time.After(300 * time.Millisecond):
			case <-ctx.Done():
				return review.Review{}, ctx.Err()
			}
			return review.Review{Decision: review.Terminate, Explanation: "a key"}, nil
		}), nil
	})
	model.Register("task-test-rec", func(name string, _ model.Options) (model.Model, error) {
		m, ok := recModels.Load(name)
		if !ok {
			return nil, os.ErrNotExist
		}
		return m.(*modeltest.Replay), nil
	})
}

// newRec makes a recording model that a task opens as the returned spec.
func newRec(t *testing.T, turns ...chat.Message) (*modeltest.Replay, string) {
	m := &modeltest.Replay{Turns: turns}
	name := t.Name()
	recModels.Store(name, m)
	t.Cleanup(func() { recModels.Delete(name) })
	return m, "task-test-rec:" + name
}

const secretR2 = "SECRET-resume-7f3a"

// terminatedRun runs a task whose bash call prints a secret file that a
// reviewer terminates on, and returns the task file and transcript.
func terminatedRun(t *testing.T) (taskFile, transcript string) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	write(t, work, "key.txt", secretR2+"\n")
	taskFile = write(t, dir, "task.yaml", `name: r2
input: read the key
workdir: work
tools: [bash]
review: [{name: auto, tools: bash, decision: terminate, explanation: the result holds a key}]
`)
	transcript = filepath.Join(dir, "t.jsonl")
	first, spec := newRec(t, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("c1", "bash", `{"cmd":"cat key.txt"}`)}})
	res := runTaskFile(t, taskFile, spec, transcript)
	if res.Status != event.StatusLimited {
		t.Fatalf("status %s (%v %v)", res.Status, res.Limit, res.Err)
	}
	if l := modeltest.Leaks(t, first.Requests(), secretR2); len(l) != 0 {
		t.Fatalf("the first turn leaked already: %v", l)
	}
	data, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), secretR2) {
		t.Fatal("the tool event lost the finished result (SPEC R2)")
	}
	return taskFile, transcript
}

// runTaskFile loads the task taskFile, runs it on the model spec with its
// transcript at transcript, closes it and returns the result.
func runTaskFile(t *testing.T, taskFile, spec, transcript string) *agent.Result {
	t.Helper()
	tk, err := task.Load(taskFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tk.Prepare(task.Options{Model: spec, Transcript: transcript})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Execute(context.Background())
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestR2_TerminatedResultNeverReachesModelOnResume(t *testing.T) {
	_, transcript := terminatedRun(t)
	m, spec := newRec(t, chat.Message{Role: chat.Assistant, Content: "understood"})
	p, err := task.Resume(transcript, "go on", task.Options{Model: spec})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Execute(context.Background())
	p.Close()
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v %v)", res.Status, res.Limit, res.Err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if l := modeltest.Leaks(t, reqs, secretR2); len(l) != 0 {
		t.Errorf("resumed requests %v contain the terminated result", l)
	}
	// The call is still answered, with an error saying the run stopped.
	var answer *chat.Message
	for i, msg := range reqs[0].Messages {
		if msg.Role == chat.Tool && msg.ToolCallID == "c1" {
			answer = &reqs[0].Messages[i]
		}
	}
	if answer == nil || answer.Error == nil || !strings.Contains(answer.Content, "stopped at this call") {
		t.Errorf("c1 is answered with %+v", answer)
	}
}

// cut keeps the lines of the transcript at path for which keep is true.
func cut(t *testing.T, path string, keep func(e map[string]any) bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if keep(e) {
			out = append(out, sc.Text())
		}
	}
	f.Close()
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func storedLeaks(t *testing.T, transcript string) bool {
	t.Helper()
	st, err := task.LoadStored(transcript)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st.Messages)
	return strings.Contains(string(b), secretR2)
}

// A crash between a result and its review leaves a result nobody reviewed
// to continue: a resumed run withholds it, then and in later resumes.
func TestR2_UnreviewedResultWithheldOnResumeAfterACrash(t *testing.T) {
	_, transcript := terminatedRun(t)
	crashed := false
	cut(t, transcript, func(e map[string]any) bool {
		if crashed {
			return false
		}
		crashed = e["event"] == "tool" // the process died during the review
		return true
	})
	reseal(t, transcript) // the head record as the crash left it (SPEC L8)
	if storedLeaks(t, transcript) {
		t.Error("the conversation rebuilt after a crash carries a result never reviewed")
	}
	// A later turn appended after the crash does not make it delivered.
	m, spec := newRec(t, chat.Message{Role: chat.Assistant, Content: "ok"})
	p, err := task.Resume(transcript, "go on", task.Options{Model: spec})
	if err != nil {
		t.Fatal(err)
	}
	if res := p.Execute(context.Background()); res.Status != event.StatusCompleted {
		t.Fatalf("status %s", res.Status)
	}
	p.Close()
	if l := modeltest.Leaks(t, m.Requests(), secretR2); len(l) != 0 {
		t.Errorf("requests %v contain the unreviewed result", l)
	}
	if storedLeaks(t, transcript) {
		t.Error("a second resume carries the unreviewed result")
	}
}

// A transcript written before withheld events existed still never sends a
// result a reviewer terminated on.
func TestR2_TerminatedResultWithheldFromOlderTranscripts(t *testing.T) {
	_, transcript := terminatedRun(t)
	cut(t, transcript, func(e map[string]any) bool { return e["event"] != "withheld" })
	reseal(t, transcript) // as that warden would have sealed it (SPEC L8)
	if storedLeaks(t, transcript) {
		t.Error("the terminated result is in the rebuilt conversation")
	}
}

// A result reviewed to continue in a turn that ended with a limit is kept.
func TestR2_ContinuedResultKeptOnResume(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "work"), "note.txt", "public note\n")
	taskFile := write(t, dir, "task.yaml", "name: kept\ninput: read\nworkdir: work\ntools: [bash]\nlimits: {turns: 1}\nreview: [{name: auto, tools: bash}]\n")
	transcript := filepath.Join(dir, "t.jsonl")
	_, spec := newRec(t, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{tool.NewCall("c1", "bash", `{"cmd":"cat note.txt"}`)}})
	if res := runTaskFile(t, taskFile, spec, transcript); res.Status != event.StatusLimited || res.Limit.Type != event.LimitTurn {
		t.Fatalf("status %s %+v", res.Status, res.Limit)
	}
	st, err := task.LoadStored(transcript)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(st.Messages); !strings.Contains(string(b), "public note") {
		t.Errorf("a result reviewed to continue was dropped: %s", b)
	}
}

// A model that gives two calls one id cannot get a terminated result
// delivered on resume by having the withheld event land on the other one.
func TestR2_DuplicateCallIDsCannotSmuggleATerminatedResult(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	write(t, work, "key.txt", secretR2+"\n")
	taskFile := write(t, dir, "task.yaml", `name: dup
input: read the key
workdir: work
tools: [bash]
review: [{name: `+slowTerminate+`, tools: "bash(cmd='cat"}]
`)
	transcript := filepath.Join(dir, "t.jsonl")
	_, spec := newRec(t, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{
		tool.NewCall("x", "bash", `{"cmd":"cat key.txt"}`),
		tool.NewCall("x", "bash", `{"cmd":"sleep 0.1; echo harmless"}`),
	}})
	res := runTaskFile(t, taskFile, spec, transcript)
	if res.Status != event.StatusLimited {
		t.Fatalf("status %s (%v)", res.Status, res.Err)
	}
	if b, _ := json.Marshal(res.Messages); strings.Contains(string(b), secretR2) {
		t.Error("the live conversation carries the terminated result")
	}
	if storedLeaks(t, transcript) {
		t.Error("the rebuilt conversation carries the terminated result")
	}
}
