package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/storetest"
)

// Operators are stored by name with their credential's hash; a name or a
// hash is taken once (SPEC S4).
func TestS4_Operators(t *testing.T) {
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		if err := s.AddOperator(ctx, "alice", "h-alice"); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ name, hash string }{{"alice", "h-other"}, {"bob", "h-alice"}} {
			if err := s.AddOperator(ctx, tc.name, tc.hash); !errors.Is(err, ErrExists) {
				t.Errorf("AddOperator(%s, %s) = %v, want ErrExists", tc.name, tc.hash, err)
			}
		}
		if err := s.AddOperator(ctx, "bob", "h-bob"); err != nil {
			t.Fatal(err)
		}
		o, err := s.OperatorByHash(ctx, "h-bob")
		if err != nil || o.Name != "bob" {
			t.Fatalf("OperatorByHash(h-bob) = %+v, %v", o, err)
		}
		if _, err := s.OperatorByHash(ctx, "h-nobody"); !errors.Is(err, ErrNotFound) {
			t.Errorf("OperatorByHash(unknown) = %v, want ErrNotFound", err)
		}
		ops, err := s.Operators(ctx)
		if err != nil || len(ops) != 2 || ops[0].Name != "alice" || ops[1].Name != "bob" {
			t.Errorf("Operators = %+v, %v", ops, err)
		}
	})
}

// The first client to claim a run owns it; another never does (SPEC S4).
func TestS4_RunOwners(t *testing.T) {
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		for _, tc := range []struct {
			run, owner string
			want       bool
		}{{"r1", "a", true}, {"r1", "a", true}, {"r1", "b", false}, {"r2", "b", true}, {"r2", "a", false}, {"r3", "", false}} {
			if got, err := s.ClaimRun(ctx, tc.run, tc.owner); err != nil || got != tc.want {
				t.Errorf("ClaimRun(%s, %s) = %v, %v, want %v", tc.run, tc.owner, got, err, tc.want)
			}
		}
		if _, err := s.RunOwner(ctx, "r3"); !errors.Is(err, ErrNotFound) {
			t.Errorf("RunOwner(unclaimed) = %v, want ErrNotFound", err)
		}
	})
}

// A request read after its deadline reads expired, with its fail-safe
// decision, even when nobody waits for it (issue 21).
func TestH3_ExpiredReadsExpired(t *testing.T) {
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		dl := time.Now().Add(50 * time.Millisecond)
		r := Request{Kind: KindApproval, RunID: "r1", Call: Call{ID: "c1", Function: "bash"}, Deadline: &dl}
		if err := s.Submit(ctx, &r); err != nil {
			t.Fatal(err)
		}
		time.Sleep(80 * time.Millisecond)
		got, err := s.Request(ctx, r.ID)
		if err != nil || got.Status != StatusExpired || got.Decision != "reject" || got.DecidedBy != byDeadline || got.DecidedVia != byDeadline {
			t.Fatalf("Request after the deadline = %s %s by %s via %s, %v; want expired reject by deadline", got.Status, got.Decision, got.DecidedBy, got.DecidedVia, err)
		}
	})
}

// The SQLite database and its -wal and -shm files are created readable by
// their owner alone, and an existing one others may read is made private.
func TestS1_DatabaseFilesPrivate(t *testing.T) {
	dir := t.TempDir()
	for _, pre := range []bool{false, true} {
		p := filepath.Join(dir, map[bool]string{false: "new.db", true: "old.db"}[pre])
		if pre {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := open(t, "sqlite:"+p)
		r := Request{Kind: KindApproval, RunID: "r1"}
		if err := s.Submit(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
		ms, _ := filepath.Glob(p + "*")
		if len(ms) < 3 {
			t.Fatalf("files %v: want the database, -wal and -shm", ms)
		}
		for _, m := range ms {
			fi, err := os.Stat(m)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 && !strings.HasSuffix(m, "-journal") {
				t.Errorf("%s: mode %v, want 0600", m, fi.Mode().Perm())
			}
		}
	}
}

// A rule an operator allowed for a run is kept with who allowed it, and
// belongs to that run alone (issue 21 item 4).
func TestS4_RunRules(t *testing.T) {
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		r := RunRule{RunID: "r1", Function: "bash", Arg: "cmd", Prefix: []string{"git", "status"}, Rest: json.RawMessage(`{"timeout":5}`), CreatedBy: "alice", RequestID: "q1"}
		if err := s.AddRunRule(ctx, &r); err != nil || r.ID == 0 || r.Created.IsZero() {
			t.Fatalf("AddRunRule = %v, %+v", err, r)
		}
		if err := s.AddRunRule(ctx, &RunRule{RunID: "r2", Function: "bash", Arg: "cmd", Prefix: []string{"ls"}, CreatedBy: "bob"}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddRunRule(ctx, &RunRule{RunID: "r1", Function: "bash", Arg: "cmd", CreatedBy: "bob"}); err == nil {
			t.Error("a rule without a prefix was stored")
		}
		got, err := s.RunRules(ctx, "r1")
		if err != nil || len(got) != 1 || got[0].CreatedBy != "alice" || strings.Join(got[0].Prefix, " ") != "git status" || string(got[0].Rest) != `{"timeout":5}` || got[0].RequestID != "q1" {
			t.Fatalf("RunRules(r1) = %+v, %v", got, err)
		}
		if got, err := s.RunRules(ctx, "r3"); err != nil || len(got) != 0 {
			t.Errorf("RunRules(r3) = %+v, %v", got, err)
		}
	})
}
