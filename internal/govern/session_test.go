package govern_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
)

// TestG12_RefreshSeesWhatAnotherWriterAppended: a session held open (warden
// mcp) sees at its next Refresh a line another warden process appended to
// its run's transcript — the breaker's interrupt here, as a person's
// override would be — whether that process appended to the file, or wrote
// the transcript again under its name (a new file renamed over it), and
// when the session wrote a line of its own after it and before the
// Refresh (its write checks and chains after the appended line).
func TestG12_RefreshSeesWhatAnotherWriterAppended(t *testing.T) {
	for _, tc := range []struct {
		name                string
		replace, write, new bool
	}{
		{"appended", false, false, false},
		{"replaced", true, false, false},
		{"appended-then-written", false, true, false},
		// A new session (warden mcp's: its state in memory, no lock file).
		{"new-appended", false, false, true},
		{"new-replaced", true, false, true},
		{"new-appended-then-written", false, true, true},
	} {
		name, replace := tc.name, tc.replace
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := govern.Paths{Runs: filepath.Join(dir, "runs"), Key: filepath.Join(dir, "keys", "override.key")}
			s, err := govern.Open(p, "mcp", "refresh-"+name, nil, govern.Options{New: tc.new})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.Events.Emit(event.TurnStart{})
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			if s.Tripped {
				t.Fatal("tripped before anything was appended")
			}
			key, err := seal.LoadOrCreate(p.Key)
			if err != nil {
				t.Fatal(err)
			}
			path := s.Path
			if replace {
				data, err := os.ReadFile(s.Path)
				if err != nil {
					t.Fatal(err)
				}
				path = s.Path + ".new"
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			other, err := transcript.Open(path, key.Derive(seal.LineKeyLabel), seal.Heads(p.Runs))
			if err != nil {
				t.Fatal(err)
			}
			rec := event.NewRecorder(s.RunID, other)
			rec.Continue(2)
			rec.Emit(event.Limit{Type: event.LimitInterrupt, Message: "interrupted by another writer"})
			if err := rec.Err(); err != nil {
				t.Fatal(err)
			}
			if err := other.Close(); err != nil {
				t.Fatal(err)
			}
			if replace {
				if err := os.Rename(path, s.Path); err != nil {
					t.Fatal(err)
				}
			}
			if tc.write {
				s.Events.Emit(event.Info{Message: "written after the other writer appended"})
			}
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			if !s.Tripped {
				t.Fatal("Refresh did not read the line another writer appended")
			}
			s.Events.Emit(event.Info{})
			if err := s.Events.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestX2_NewSessionIsRefusedAnExistingRun: a session opened as new (warden
// mcp's, whose id warden made for it) refuses a run whose transcript
// exists already, rather than chain after lines it did not record; closed
// and opened again as an ordinary session, a new session's run reads back
// what it recorded.
func TestX2_NewSessionIsRefusedAnExistingRun(t *testing.T) {
	dir := t.TempDir()
	p := govern.Paths{Runs: filepath.Join(dir, "runs"), Key: filepath.Join(dir, "keys", "override.key")}
	s, err := govern.Open(p, "mcp", "once", nil, govern.Options{New: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Events.Emit(event.TurnStart{})
	s.Events.Emit(event.Limit{Type: event.LimitInterrupt, Message: "tripped"})
	if err := s.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := s.Lock(); err != nil {
		t.Fatal(err)
	}
	if !s.Tripped {
		t.Error("the state kept in memory lost the interrupt")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Runs, s.RunID+".state")); !os.IsNotExist(err) {
		t.Errorf("a new session wrote a state file: %v", err)
	}
	if again, err := govern.Open(p, "mcp", "once", nil, govern.Options{New: true}); err == nil {
		again.Close()
		t.Fatal("a new session opened a run that has a transcript")
	}
	old, err := govern.OpenSession(p, "mcp", "once", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if old.New || !old.Tripped {
		t.Errorf("reopened: New %v, Tripped %v; want the run's two events read back", old.New, old.Tripped)
	}
}
