package transcript_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
