package transcript_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
)

// TestL8_NumberedIDsFollowTheFileOrder: two writers of one transcript (a
// held session's and another process's, as `warden auto-review approve`
// opens it) each number their events from the count they knew; the id is
// given under the file's lock, after the other's lines, so that ids stay
// unique and ascend in the file's order. The sink after the transcript
// gets the id the line has, the recorder counts on from it, an id of
// another form (a server's override) is kept as it is, and a checkpoint
// carries the numbering to OpenAt (one without it is refused).
func TestL8_NumberedIDsFollowTheFileOrder(t *testing.T) {
	dir := t.TempDir()
	key := lineKey(t, 3)
	heads := seal.Heads(filepath.Join(dir, "heads"))
	path := filepath.Join(dir, "r.jsonl")
	a := mustOpen(t, path, key, heads)
	var sunk []string
	recA := event.NewRecorder("r", event.Tee(a, event.SinkFunc(func(e event.Event) error {
		sunk = append(sunk, e.ID)
		return nil
	})))
	for range 2 {
		recA.Emit(event.Info{Message: "a"})
	}
	b := mustOpen(t, path, key, heads) // read while A's count was 2
	recA.Emit(event.Info{Message: "a"})
	recB := event.NewRecorder("r", b)
	recB.Continue(2) // the count B read before it took the lock
	recB.Emit(event.Override{DenialID: "r-d1"})
	if err := b.Write(event.Event{ID: "r-override-n1", Time: time.Now().UTC(), RunID: "r", Agent: "main", Data: event.Info{Message: "server"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		recA.Emit(event.Info{Message: "a"})
	}
	if err := errors.Join(recA.Err(), recB.Err()); err != nil {
		t.Fatal(err)
	}
	cp := a.Checkpoint()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if cp.Seq["r"] != 6 {
		t.Errorf("the checkpoint's numbering %v, want r at 6", cp.Seq)
	}
	c, err := transcript.OpenAt(path, key, heads, cp, func(event.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(event.Event{ID: "r-000002", Time: time.Now().UTC(), RunID: "r", Agent: "main", Data: event.Info{}}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	old := cp
	old.Seq = nil
	if _, err := transcript.OpenAt(path, key, heads, old, func(event.Event) error { return nil }); !errors.Is(err, transcript.ErrCheckpoint) {
		t.Errorf("a checkpoint without the numbering: %v, want ErrCheckpoint", err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	if _, err := transcript.ReadSealed(f, key, heads, func(e event.Event) error { ids = append(ids, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	want := "r-000001 r-000002 r-000003 r-000004 r-override-n1 r-000005 r-000006 r-000007"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("the file's ids\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(sunk, " "), "r-000001 r-000002 r-000003 r-000005 r-000006"; got != want {
		t.Errorf("the sink after the transcript got\n %s\nwant %s", got, want)
	}
}
