package transcript_test

import (
	"encoding/json"
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

// TestL8_OpenTranscriptAtChecksWhatFollows: a writer that kept a
// transcript's checkpoint opens it again reading only the lines appended
// since (by another writer), checked and chained after the checkpoint; a
// line changed after it is refused, and a file that is not as the
// checkpoint says (cut, or its last line replaced) is ErrCheckpoint.
func TestL8_OpenTranscriptAtChecksWhatFollows(t *testing.T) {
	dir := t.TempDir()
	key := lineKey(t, 7)
	heads := seal.Heads(filepath.Join(dir, "heads"))
	path := filepath.Join(dir, "t.jsonl")
	sealedRun(t, key, heads, path, "r1")
	tr := mustOpen(t, path, key, heads)
	cp := tr.Checkpoint()
	tr.Close()
	if cp.Lines != 7 || cp.Runs["r1"].Lines != 7 {
		t.Fatalf("checkpoint %+v", cp)
	}
	sealedRun(t, key, heads, path, "r2") // another writer appends
	var got []string
	tr, err := transcript.OpenAt(path, key, heads, cp, func(e event.Event) error { got = append(got, e.ID); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || got[0] != "r2-000001" {
		t.Fatalf("read %v, want r2's 7 events only", got)
	}
	cp2 := tr.Checkpoint()
	tr.Close()
	if cp2.Lines != 14 || cp2.Runs["r1"] != cp.Runs["r1"] || cp2.Runs["r2"].Lines != 7 {
		t.Fatalf("checkpoint after %+v", cp2)
	}
	data, _ := os.ReadFile(path)
	// A line after the checkpoint changed: refused.
	bad := strings.Replace(string(data), "r2-000003", "r2-000009", 1)
	os.WriteFile(path, []byte(bad), 0o644)
	var ce *seal.ChainError
	if _, err := transcript.OpenAt(path, key, heads, cp, func(event.Event) error { return nil }); !errors.As(err, &ce) {
		t.Fatalf("a changed line after the checkpoint: %v", err)
	}
	// Cut before the checkpoint's end, or its last line replaced by
	// another run's: ErrCheckpoint.
	os.WriteFile(path, data[:cp.Size-10], 0o644)
	if _, err := transcript.OpenAt(path, key, heads, cp, func(event.Event) error { return nil }); !errors.Is(err, transcript.ErrCheckpoint) {
		t.Fatalf("a cut file: %v", err)
	}
	other := filepath.Join(dir, "other.jsonl")
	lines := sealedRun(t, key, "", other, "r3")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	if _, err := transcript.OpenAt(path, key, heads, cp, func(event.Event) error { return nil }); !errors.Is(err, transcript.ErrCheckpoint) && !errors.As(err, &ce) {
		t.Fatalf("another transcript: %v", err)
	}
}

// TestL8_OpenAtFindsALongLastLine: the checkpoint's last line is found
// from the end of the file whatever its length (read in growing windows):
// a last line of 3, 10 and 40 KiB opens, and a checkpoint that names
// another MAC for that line is ErrCheckpoint.
func TestL8_OpenAtFindsALongLastLine(t *testing.T) {
	for _, size := range []int{3 << 10, 10 << 10, 40 << 10} {
		dir := t.TempDir()
		key := lineKey(t, 7)
		heads := seal.Heads(filepath.Join(dir, "heads"))
		path := filepath.Join(dir, "t.jsonl")
		sealedRun(t, key, heads, path, "r1")
		tr := mustOpen(t, path, key, heads)
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		big := event.Tool{CallID: "c2", Function: "bash", Arguments: json.RawMessage(`{}`), Result: strings.Repeat("x", size)}
		if err := tr.Write(event.Event{ID: "r1-000008", Time: at, RunID: "r1", Agent: "main", Data: big}); err != nil {
			t.Fatal(err)
		}
		cp := tr.Checkpoint()
		tr.Close()
		tr, err := transcript.OpenAt(path, key, heads, cp, func(event.Event) error { return nil })
		if err != nil {
			t.Fatalf("last line of %d bytes: %v", size, err)
		}
		tr.Close()
		cp2 := cp
		cp2.Runs = map[string]seal.ChainEnd{"r1": {Lines: cp.Runs["r1"].Lines, MAC: strings.Repeat("0", 64), Prev: cp.Runs["r1"].Prev}}
		if _, err := transcript.OpenAt(path, key, heads, cp2, func(event.Event) error { return nil }); !errors.Is(err, transcript.ErrCheckpoint) {
			t.Fatalf("last line of %d bytes, a checkpoint naming another MAC: %v", size, err)
		}
	}
}
