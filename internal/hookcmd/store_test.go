package hookcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/spool"
)

// TestX2_LiveSessionMarksItsRunsBesideTheCalls: a long-lived session's
// runs (`warden mcp`) are marked in the default store's spool while the
// session is open, not only when it ends, so that `warden serve` shows
// them within about a drain; Close marks what is left; a spool that cannot
// be written fails the session's next event and its Close, never silently.
func TestX2_LiveSessionMarksItsRunsBesideTheCalls(t *testing.T) {
	home := t.TempDir()
	marks := filepath.Join(spool.Dir(home), "marks")
	m := newLiveMarks(home)
	if err := m.Write(event.Event{RunID: "mcp-one"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(marks)
		if strings.Contains(string(b), "mcp-one\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an open session's run is not marked after 5 s: %q", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := m.Write(event.Event{RunID: "mcp-two"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(marks); !strings.Contains(string(b), "mcp-two\n") {
		t.Fatalf("Close left a run unmarked: %q", b)
	}

	// The spool is a file where its directory should be: unwritable.
	bad := t.TempDir()
	if err := os.WriteFile(spool.Dir(bad), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	m = newLiveMarks(bad)
	if err := m.Write(event.Event{RunID: "mcp-three"}); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for m.Write(event.Event{RunID: "mcp-three"}) == nil {
		if time.Now().After(deadline) {
			t.Fatal("events are still taken 5 s after the spool could not be written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := m.Close(); err == nil || !strings.Contains(err.Error(), "spool") {
		t.Fatalf("Close of an unwritable spool: %v", err)
	}
}
