package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/storetest"
	"github.com/wardenhq/warden/tool"
)

// transcript returns the JSONL transcript of events as event.NewWriter
// writes it.
func transcript(t testing.TB, es ...event.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	w := event.NewWriter(&b)
	for _, e := range es {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// Importing a transcript stores its events once, however often it is
// imported; a bad line is an error naming it (SPEC S1, L7).
func TestS1_ImportIdempotent(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		es := append(smallRun("r1", "imported", event.StatusCompleted, 0), smallRun("r2", "other", event.StatusError, 10)...)
		file := transcript(t, es...)
		n, err := s.Import(ctx, bytes.NewReader(file))
		if err != nil || n != len(es) {
			t.Fatalf("first import: %d, %v", n, err)
		}
		n, err = s.Import(ctx, bytes.NewReader(file))
		if err != nil || n != 0 {
			t.Fatalf("second import: %d new, %v", n, err)
		}
		got, _ := s.Events(ctx, "r1", "", 0)
		var back bytes.Buffer
		for _, e := range got {
			line, _ := json.Marshal(e)
			back.Write(append(line, '\n'))
		}
		if want := transcript(t, es[:5]...); !bytes.Equal(back.Bytes(), want) {
			t.Errorf("stored run\n%s\nwant\n%s", back.Bytes(), want)
		}
		if r, err := s.Run(ctx, "r2"); err != nil || r.Status != event.StatusError || r.Task != "other" {
			t.Errorf("run r2 = %+v, %v", r, err)
		}
		// A broken line: the events before it are kept, the error names it.
		broken := append(transcript(t, ev("r3", 1, event.RunStart{})), []byte("{not json\n")...)
		_, err = s.Import(ctx, bytes.NewReader(broken))
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("broken transcript: %v", err)
		}
		if _, err := s.Run(ctx, "r3"); err != nil {
			t.Errorf("the events before the broken line were lost: %v", err)
		}
		if _, err := s.Import(ctx, strings.NewReader(`{"event":"info","message":"no ids"}`)); err == nil {
			t.Error("an event without ids was imported")
		}
	})
}

// FuzzImport feeds Import arbitrary transcripts: it never panics, and what
// it imported once it does not import again.
func FuzzImport(f *testing.F) {
	f.Add(transcript(f, smallRun("r1", "t", event.StatusCompleted, 0)...))
	f.Add([]byte(`{"event":"mystery","id":"x-1","run_id":"x","time":"2026-01-01T00:00:00Z","call_id":"c"}` + "\n\n"))
	f.Add([]byte(`{"event":"auto_review","id":"x-2","run_id":"x","status":"denied","denial_id":"x-d1","action":{"a":1}}`))
	f.Add([]byte("\xff\n{}\n"))
	s := open(f, "sqlite:"+filepath.Join(f.TempDir(), "fuzz.db"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		_, err := s.Import(ctx, bytes.NewReader(data))
		if err != nil {
			return
		}
		if n, err := s.Import(ctx, bytes.NewReader(data)); err != nil || n != 0 {
			t.Errorf("second import: %d new, %v", n, err)
		}
	})
}

// writer is a tool that asks to write outside the sandbox.
type writer struct{}

func (writer) Info() tool.Info {
	return tool.Info{Name: "write", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (writer) Run(context.Context, json.RawMessage) (string, error) { return "written", nil }

// The denials view is what the gate recorded: its auto_review denials with
// their ids, the last ledger.MaxDenials per run, newest first; an override
// sealed by ledger.NewOverride (here through Gate.Override) makes one
// approved, and its use (the retry) used (SPEC G12).
func TestG12_DenialsFromAutoReviewAndOverrideEvents(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		sealer, err := gate.FileSealer(filepath.Join(t.TempDir(), "key"))
		if err != nil {
			t.Fatal(err)
		}
		rec := event.NewRecorder("r1", s)
		rec.Emit(event.RunStart{Task: "denials"})
		allow := false
		g := &gate.Gate{RunID: "r1", Events: rec, Sealer: sealer, Breaker: gate.Breaker{Consecutive: 100, Denials: 100, Window: 100}}
		g.Next = agent.BoundaryFunc(func(_ context.Context, req *agent.BoundaryRequest) (agent.BoundaryOutcome, error) {
			act, err := action.JSON(req.Request.Tool, req.Request.Call, req.Request.Boundary)
			if err != nil {
				return agent.BoundaryOutcome{}, err
			}
			ar := &event.AutoReview{Action: act, Status: action.StatusDenied, RiskLevel: "high", Rationale: "writes /etc", Source: event.SourceModel}
			dec := approval.Reject
			if allow {
				ar.Status, dec = action.StatusApproved, approval.Approve
			}
			return agent.BoundaryOutcome{Outcome: approval.Outcome{Approval: approval.Approval{Decision: dec, AutoReview: ar}}}, nil
		})
		ask := func(i int) {
			t.Helper()
			call := tool.NewCall("c"+string(rune('a'+i)), "write", `{"path":"/etc/x`+string(rune('a'+i))+`"}`)
			_, err := g.ApproveBoundary(ctx, &agent.BoundaryRequest{Events: rec, Request: &approval.Request{Call: call, Tool: writer{},
				Boundary: &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/x" + string(rune('a'+i))}, Reason: "outside the writable roots"}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 12; i++ {
			ask(i)
		}
		ds, err := s.Denials(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		gds := g.Denials() // oldest first
		if len(ds) != ledger.MaxDenials || len(gds) != ledger.MaxDenials {
			t.Fatalf("%d denials stored, the gate keeps %d", len(ds), len(gds))
		}
		for i, d := range ds {
			gd := gds[len(gds)-1-i]
			if d.ID != gd.ID || d.RunID != "r1" || d.CallID != gd.CallID || !bytes.Equal(d.Action, gd.Action) ||
				d.RiskLevel != "high" || d.Rationale != "writes /etc" || d.Status != DenialDenied {
				t.Errorf("denial %d = %+v, the gate's %+v", i, d, gd)
			}
		}
		newest := ds[0]
		if err := g.Override(newest.ID, "dana", "fine once"); err != nil {
			t.Fatal(err)
		}
		if d, err := s.Denial(ctx, "r1", newest.ID); err != nil || d.Status != DenialApproved {
			t.Errorf("after the override: %+v, %v", d, err)
		}
		allow = true
		ask(11) // the retry of exactly that action takes the override
		if d, _ := s.Denial(ctx, "r1", newest.ID); d.Status != DenialUsed {
			t.Errorf("after the retry: %+v", d)
		}
		if ds, _ := s.Denials(ctx, "r1"); len(ds) != ledger.MaxDenials {
			t.Errorf("%d denials after an approved retry", len(ds))
		}
		// Another run's denials: "" lists both runs, each capped.
		rec2 := event.NewRecorder("r2", s)
		g2 := &gate.Gate{RunID: "r2", Events: rec2, Sealer: sealer, Next: g.Next}
		allow = false
		call := tool.NewCall("z", "write", `{"path":"/etc/z"}`)
		if _, err := g2.ApproveBoundary(ctx, &agent.BoundaryRequest{Events: rec2, Request: &approval.Request{Call: call, Tool: writer{},
			Boundary: &boundary.Request{Permission: boundary.Write, Paths: []string{"/etc/z"}}}}); err != nil {
			t.Fatal(err)
		}
		all, _ := s.Denials(ctx, "")
		if len(all) != ledger.MaxDenials+1 || all[0].RunID != "r2" {
			t.Errorf("all denials: %d, newest of %s", len(all), all[0].RunID)
		}
		_, err = s.Denial(ctx, "r1", "r1-d1") // forgotten, as the gate forgets it
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("the oldest denial: %v", err)
		}
		if err := rec.Err(); err != nil {
			t.Fatal(err)
		}
	})
}
