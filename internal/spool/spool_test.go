package spool_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/spool"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/transcript"
)

// home makes a $WARDEN_HOME for the test, the default store's.
func home(t *testing.T) string {
	t.Helper()
	h := t.TempDir()
	t.Setenv("WARDEN_HOME", h)
	t.Setenv("WARDEN_DB", "")
	return h
}

// record appends n events to run's transcript in h as a hook does (sealed
// under the state key, numbered after from) and marks the run.
func record(t testing.TB, h, run string, from, n int) {
	t.Helper()
	p := spool.DefaultPaths(h)
	key, err := seal.LoadOrCreate(p.Key)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.Open(filepath.Join(p.Runs, run+".jsonl"), key.Derive(seal.LineKeyLabel), seal.Heads(p.Runs))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for i := from + 1; i <= from+n; i++ {
		var d event.Data = event.TurnStart{Input: fmt.Sprintf("call %d", i)}
		if i == 1 {
			d = event.RunStart{Task: "codex session", Model: "codex"}
		}
		e := event.Event{ID: fmt.Sprintf("%s-%06d", run, i), Time: at.Add(time.Duration(i) * time.Second), RunID: run, Agent: "main", Data: d}
		if err := tr.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := spool.Mark(h, run); err != nil {
		t.Fatal(err)
	}
}

// open opens the default store, which drains the spool first.
func open(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// stored returns the ids of run's events in st.
func stored(t *testing.T, st *store.Store, run string) []string {
	t.Helper()
	es, err := st.Events(context.Background(), run, "", 0)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

// ids returns the ids of run's events first to last.
func ids(run string, first, last int) []string {
	var out []string
	for i := first; i <= last; i++ {
		out = append(out, fmt.Sprintf("%s-%06d", run, i))
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%s: the store holds %v, want %v", what, got, want)
	}
}

// TestX1_SpoolForgedLinesNeverEnterTheStore: the agent may write files as
// the person's user, the runs' transcripts and the spool included. A line
// it forged, edited, replayed from another run, or a cursor it forged to
// skip lines, never puts an event into the store: the lines before the
// first bad one are stored, the bad one and everything after it are not.
func TestX1_SpoolForgedLinesNeverEnterTheStore(t *testing.T) {
	cases := []struct {
		name   string
		attack func(t *testing.T, h, path string)
		want   []string
	}{
		{"a forged line appended", func(t *testing.T, h, path string) {
			appendLine(t, path, `{"event":"turn_start","id":"codex-s-000004","time":"2026-12-02T00:00:04Z","run_id":"codex-s","agent":"main","input":"forged","line_mac":"`+strings.Repeat("ab", 32)+`"}`)
		}, ids("codex-s", 1, 3)},
		{"an unsealed line appended", func(t *testing.T, h, path string) {
			appendLine(t, path, `{"event":"turn_start","id":"codex-s-000004","time":"2026-12-02T00:00:04Z","run_id":"codex-s","agent":"main","input":"forged"}`)
		}, ids("codex-s", 1, 3)},
		{"a genuine line edited", func(t *testing.T, h, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.Replace(b, []byte(`"call 2"`), []byte(`"call X"`), 1)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ids("codex-s", 1, 1)},
		{"another run's sealed line replayed", func(t *testing.T, h, path string) {
			record(t, h, "codex-other", 0, 4)
			b, err := os.ReadFile(filepath.Join(h, "runs", "codex-other.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			appendLine(t, path, strings.ReplaceAll(lines[3], "codex-other", "codex-s"))
		}, ids("codex-s", 1, 3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := home(t)
			record(t, h, "codex-s", 0, 3)
			path := filepath.Join(h, "runs", "codex-s.jsonl")
			c.attack(t, h, path)
			if err := spool.Mark(h, "codex-s"); err != nil {
				t.Fatal(err)
			}
			st := open(t)
			sameIDs(t, c.name, stored(t, st, "codex-s"), c.want)
			es, _ := st.Events(context.Background(), "codex-s", "", 0)
			for _, e := range es {
				if ts, ok := e.Data.(event.TurnStart); ok && (ts.Input == "forged" || ts.Input == "call X") {
					t.Fatalf("%s: the forged event %s is in the store", c.name, e.ID)
				}
			}
			// A drain later, with more marks, stores nothing forged either.
			res, err := st.ImportSpool(context.Background())
			if err != nil || res.Stored != 0 {
				t.Fatalf("a second drain: %+v, %v", res, err)
			}
		})
	}

	// A cursor forged to skip the lines not yet stored: it does not
	// verify, so the transcript is read from the start.
	t.Run("a forged cursor", func(t *testing.T) {
		h := home(t)
		record(t, h, "codex-c", 0, 2)
		sameIDs(t, "first drain", stored(t, open(t), "codex-c"), ids("codex-c", 1, 2))
		record(t, h, "codex-c", 2, 3)
		path := filepath.Join(h, "runs", "codex-c.jsonl")
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		cur := filepath.Join(spool.Dir(h), "cursors", "codex-c")
		forged := fmt.Sprintf(`{"checkpoint":{"size":%d,"lines":5,"runs":{}},"mac":"%s"}`, fi.Size(), strings.Repeat("00", 32))
		if err := os.WriteFile(cur, []byte(forged), 0o600); err != nil {
			t.Fatal(err)
		}
		sameIDs(t, "after a forged cursor", stored(t, open(t), "codex-c"), ids("codex-c", 1, 5))
	})
}

// appendLine appends line and a newline to the file at path.
func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// TestX1_SpoolImportsFromItsCursor: opening the default store stores what
// hooks marked, once; a later drain reads only what the transcript gained
// since (a line before the cursor is not read again: changed there, it
// would not verify), and takes every mark.
func TestX1_SpoolImportsFromItsCursor(t *testing.T) {
	h := home(t)
	record(t, h, "codex-a", 0, 3)
	record(t, h, "claude-code-b", 0, 2)
	st := open(t)
	sameIDs(t, "codex-a", stored(t, st, "codex-a"), ids("codex-a", 1, 3))
	sameIDs(t, "claude-code-b", stored(t, st, "claude-code-b"), ids("claude-code-b", 1, 2))
	if fi, err := os.Stat(filepath.Join(spool.Dir(h), "marks")); err != nil || fi.Size() != 0 {
		t.Fatalf("the marks after a drain: %v %v, want an empty file", fi, err)
	}

	for i := 3; i < 6; i++ {
		record(t, h, "codex-a", i, 1)
	}
	// Line 1, before the cursor, changed in place to the same length: a
	// drain from the cursor never reads it.
	path := filepath.Join(h, "runs", "codex-a.jsonl")
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(b, []byte(`"codex session"`), []byte(`"CODEX SESSION"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := st.ImportSpool(context.Background())
	if err != nil || res.Stored != 3 || len(res.Refused) != 0 {
		t.Fatalf("drain: %+v, %v; want 3 events stored, none refused", res, err)
	}
	sameIDs(t, "codex-a", stored(t, st, "codex-a"), ids("codex-a", 1, 6))
	// Nothing marked: nothing to do.
	if res, err := st.ImportSpool(context.Background()); err != nil || res.Stored != 0 {
		t.Fatalf("an empty drain: %+v, %v", res, err)
	}
}

// TestX1_SpoolDrainCutShortLosesNothing: a drain that fails after reading
// the marks (the store cannot be written: the process crashed there)
// leaves them, and a drain that stored the events but failed before saving
// its cursor and its place in the marks has the next one read them again:
// the store holds every event once.
func TestX1_SpoolDrainCutShortLosesNothing(t *testing.T) {
	h := home(t)
	st := open(t)
	record(t, h, "codex-k", 0, 4)
	p := spool.DefaultPaths(h)
	ctx := context.Background()
	crash := errors.New("the process died here")
	if _, err := spool.Drain(ctx, p, func(context.Context, []event.Event) (int, error) { return 0, crash }); !errors.Is(err, crash) {
		t.Fatalf("a drain whose store fails: %v", err)
	}
	sameIDs(t, "after a failed drain", stored(t, st, "codex-k"), nil)
	// Stored, then cut before the cursor: the writer stores and fails.
	if _, err := spool.Drain(ctx, p, func(ctx context.Context, es []event.Event) (int, error) {
		var b bytes.Buffer
		w := event.NewWriter(&b)
		for _, e := range es {
			_ = w.Write(e)
		}
		st.Import(ctx, &b)
		return 0, crash
	}); !errors.Is(err, crash) {
		t.Fatalf("a drain cut after its commit: %v", err)
	}
	sameIDs(t, "after the commit", stored(t, st, "codex-k"), ids("codex-k", 1, 4))
	res, err := st.ImportSpool(ctx)
	if err != nil || res.Stored != 0 {
		t.Fatalf("the next drain: %+v, %v; want the same events read again, none new", res, err)
	}
	sameIDs(t, "after the next drain", stored(t, st, "codex-k"), ids("codex-k", 1, 4))
}

// TestX1_SpoolMarksWhileDraining: hooks that mark while drains run (and
// empty the marks) lose no mark: every run's every event reaches the store.
func TestX1_SpoolMarksWhileDraining(t *testing.T) {
	h := home(t)
	st := open(t)
	const runs, calls = 6, 15
	var wg sync.WaitGroup
	for r := 0; r < runs; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				record(t, h, fmt.Sprintf("codex-m%d", r), i, 1)
			}
		}(r)
	}
	stop := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := st.ImportSpool(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-drained
	if _, err := st.ImportSpool(context.Background()); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < runs; r++ {
		run := fmt.Sprintf("codex-m%d", r)
		sameIDs(t, run, stored(t, st, run), ids(run, 1, calls))
	}
}

// TestX1_SpoolMarkRefusesWhatIsNoRunID: a mark is a run id, never a path.
func TestX1_SpoolMarkRefusesWhatIsNoRunID(t *testing.T) {
	h := t.TempDir()
	for _, bad := range []string{"", "../x", "a/b", ".hidden", "a\nb", strings.Repeat("x", 201)} {
		if err := spool.Mark(h, bad); err == nil {
			t.Errorf("Mark(%q) = nil, want an error", bad)
		}
	}
	// A spool that cannot be written is an error (the hook's deny).
	if err := os.WriteFile(spool.Dir(h), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := spool.Mark(h, "codex-x"); err == nil {
		t.Error("Mark into a spool that is a file = nil, want an error")
	}
}

// BenchmarkX1_SpoolDrain measures what the spool moves off a hook: one
// drain by an open default store (warden serve's, every Interval) of what
// one hook wrote (3 events) in a session that holds 1,000, read from its
// cursor, verified and committed. The hook's own share is
// BenchmarkX1_SpoolMark.
//
//	go test ./internal/spool -run '^$' -bench X1_Spool
func BenchmarkX1_SpoolDrain(b *testing.B) {
	h := b.TempDir()
	b.Setenv("WARDEN_HOME", h)
	b.Setenv("WARDEN_DB", "")
	record(b, h, "codex-long", 0, 1000)
	st, err := store.Open(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		record(b, h, "codex-long", 1000+3*i, 3)
		b.StartTimer()
		res, err := st.ImportSpool(context.Background())
		if err != nil || res.Stored != 3 {
			b.Fatalf("drain: %+v, %v", res, err)
		}
	}
}

// BenchmarkX1_SpoolMark measures a hook's mark.
func BenchmarkX1_SpoolMark(b *testing.B) {
	h := b.TempDir()
	for i := 0; i < b.N; i++ {
		if err := spool.Mark(h, "codex-mark"); err != nil {
			b.Fatal(err)
		}
	}
}
