package govern_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
)

// approveEnv makes the test binary, run again as a second process, grant a
// person's override (`warden auto-review approve`: task.ApproveStored) of
// the denial it names in the transcript it names, and exit.
const approveEnv = "WARDEN_TEST_APPROVE_STORED"

// TestG12_EventIDsStayUniqueWhenAnotherProcessAppends: while a session is
// held open (warden mcp), another process — `warden auto-review approve`, a
// real second process here — appends a person's override to the run's
// transcript, numbered after the events it read; the held session then
// records more events before its next Refresh (a call already in flight),
// and after it. Every event id in the transcript (verified) is unique,
// the numbered ones ascend in the file's order, and the store, the sink
// after the transcript, holds every one of the session's events under the
// id and line the transcript has (a repeated id would make the store keep
// one row of two events).
func TestG12_EventIDsStayUniqueWhenAnotherProcessAppends(t *testing.T) {
	if spec := os.Getenv(approveEnv); spec != "" {
		path, id, _ := strings.Cut(spec, "\n")
		if err := task.ApproveStored(context.Background(), path, id, "dana", "once"); err != nil {
			t.Fatal(err)
		}
		return
	}
	home := t.TempDir()
	t.Setenv("WARDEN_HOME", home)
	p := govern.Paths{Runs: filepath.Join(home, "runs"), Key: filepath.Join(home, "keys", "override.key")}
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := govern.OpenSession(p, "mcp", "ids", st)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Events.Emit(event.RunStart{})
	s.Events.Emit(event.TurnStart{})
	// A denial as the gate records it, authenticated with the state key.
	act := json.RawMessage(`{"type":"mcp_tool","server":"fs","tool":"write_file"}`)
	d := ledger.Denial{ID: s.RunID + "-d1", CallID: "c1", Action: act, Time: time.Now().UTC()}
	s.Events.Emit(event.AutoReview{CallID: "c1", Action: act, Status: action.StatusDenied, Rationale: "no",
		DenialID: d.ID, MAC: ledger.DenialMAC(s.Sealer, s.RunID, d)})
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run", "^TestG12_EventIDsStayUniqueWhenAnotherProcessAppends$")
	cmd.Env = append(os.Environ(), approveEnv+"="+s.Path+"\n"+d.ID)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the second process: %v\n%s", err, out)
	}
	// Recorded before the session refreshes: a call in flight.
	s.Events.Emit(event.Info{Message: "in flight 1"})
	s.Events.Emit(event.Info{Message: "in flight 2"})
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	s.Events.Emit(event.Info{Message: "after the refresh"})
	if err := s.Events.Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := task.VerifyTranscript(s.Path); err != nil {
		t.Fatalf("the transcript does not verify: %v", err)
	}
	lines := eventtest.ReadFile(t, s.Path)
	seen := map[string]bool{}
	last, overrides := 0, 0
	var own []event.Event // the session's events, in the file's order
	for i, e := range lines {
		if seen[e.ID] {
			t.Errorf("line %d: event id %s twice", i+1, e.ID)
		}
		seen[e.ID] = true
		if _, ok := e.Data.(event.Override); ok {
			overrides++
		} else {
			own = append(own, e)
		}
		rest, ok := strings.CutPrefix(e.ID, s.RunID+"-")
		n, err := strconv.Atoi(rest)
		if !ok || err != nil {
			continue
		}
		if n <= last {
			t.Errorf("line %d: event id %s after %s-%06d: ids out of the file's order", i+1, e.ID, s.RunID, last)
		}
		last = n
	}
	if overrides != 1 || len(own) != 6 {
		t.Fatalf("the transcript holds %d overrides and %d of the session's events, want 1 and 6", overrides, len(own))
	}
	stored, err := st.Events(ctx, s.RunID, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(own) {
		t.Errorf("the store holds %d events, the transcript %d of the session's", len(stored), len(own))
	}
	for i := range min(len(stored), len(own)) {
		want, _ := own[i].MarshalJSON()
		got, _ := stored[i].MarshalJSON()
		if stored[i].ID != own[i].ID || string(got) != string(want) {
			t.Errorf("stored event %d is %s, the transcript's is %s:\n got %s\nwant %s", i+1, stored[i].ID, own[i].ID, got, want)
		}
	}
	// The store keeps each event under the id its line has: the events
	// after each are found by that id.
	for i, e := range own {
		next, err := st.Events(ctx, s.RunID, e.ID, 1)
		if err != nil {
			t.Errorf("the store has no event %s: %v", e.ID, err)
			continue
		}
		if i+1 < len(own) && (len(next) != 1 || next[0].ID != own[i+1].ID) {
			t.Errorf("after %s the store has %v, want %s", e.ID, next, own[i+1].ID)
		}
	}
}
