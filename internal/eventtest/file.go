package eventtest

import (
	"os"
	"testing"

	"github.com/wardenhq/warden/event"
)

// ReadFile returns the events of the transcript file at path, in order. It
// fails the test when the file cannot be opened or a line is not an event.
func ReadFile(t testing.TB, path string) []event.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []event.Event
	if err := event.Read(f, func(e event.Event) error { out = append(out, e); return nil }); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
