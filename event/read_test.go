package event_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
)

const (
	line1 = `{"event":"info","id":"1","time":"2026-01-01T00:00:00Z","run_id":"r","agent":"main","message":"one"}`
	line2 = `{"event":"info","id":"2","time":"2026-01-01T00:00:00Z","run_id":"r","agent":"main","message":"two"}`
)

// Issue 10 item 8: a last line without a newline that does not decode is a
// write cut short by a crash: Read hands on every event before it and
// returns a *CutLineError; anywhere else a bad line is an ordinary error.
func TestNewcomer8_CutLastLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		events int
		cut    int // the cut line's number, 0 for none
		offset int64
		err    string
	}{
		{"complete", line1 + "\n" + line2 + "\n", 2, 0, 0, ""},
		{"last line without newline that decodes", line1 + "\n" + line2, 2, 0, 0, ""},
		{"cut last line", line1 + "\n" + line2[:30], 1, 2, int64(len(line1) + 1), ""},
		{"cut last line after a blank line", line1 + "\n\n" + line2[:30], 1, 3, int64(len(line1) + 2), ""},
		{"bad middle line", line1 + "\n" + line2[:30] + "\n" + line2 + "\n", 1, 0, 0, "line 2: "},
		{"bad complete last line", line1 + "\n" + line2[:30] + "\n", 1, 0, 0, "line 2: "},
		{"crlf", line1 + "\r\n" + line2 + "\r\n", 2, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := event.Read(strings.NewReader(tc.in), func(event.Event) error { n++; return nil })
			if n != tc.events {
				t.Errorf("%d events, want %d", n, tc.events)
			}
			var cut *event.CutLineError
			switch {
			case tc.cut > 0:
				if !errors.As(err, &cut) || cut.Line != tc.cut || cut.Offset != tc.offset || cut.Size != 30 {
					t.Errorf("err = %#v, want a cut line %d at offset %d", err, tc.cut, tc.offset)
				}
			case tc.err != "":
				if err == nil || errors.As(err, &cut) || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("err = %v, want an error starting %q", err, tc.err)
				}
			case err != nil:
				t.Errorf("err = %v", err)
			}
		})
	}
}

// Issue 10 item 8: the next event appended to a file whose last line was
// cut starts a line of its own.
func TestNewcomer8_CreateStartsAFreshLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(line1+"\n"+line2[:30]), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := event.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line2 + "\n")
	f.Close()
	data, _ := os.ReadFile(path)
	if want := line1 + "\n" + line2[:30] + "\n" + line2 + "\n"; string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
}

// Issue 10 item 8: a line of the wrong shape is reported in JSON's words,
// never with the Go types it was decoded into.
func TestNewcomer8_NoGoTypeNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[1]`, "line 1: got an array, want an object"},
		{`{"event":"run_start","task":["x"]}`, `line 1: run_start event: field "task": got an array, want a string`},
		{`{"event":"model","input_tokens":"many"}`, `line 1: model event: field "input_tokens": got a string, want a whole number`},
		{`{"event":7}`, `line 1: field "event": got a number, want a string`},
	} {
		err := event.Read(strings.NewReader(tc.in+"\n"), func(event.Event) error { return nil })
		if err == nil || err.Error() != tc.want || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzRead: Read never panics; a cut line is the input's unterminated tail,
// and reading the input up to it gives the same events with no error.
func FuzzRead(f *testing.F) {
	f.Add(line1 + "\n" + line2 + "\n")
	f.Add(line1 + "\n" + line2[:30])
	f.Add("[1]\n" + line1)
	f.Add("\n\n" + line1 + "\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		n := 0
		err := event.Read(strings.NewReader(in), func(event.Event) error { n++; return nil })
		var cut *event.CutLineError
		if !errors.As(err, &cut) {
			return
		}
		if cut.Offset+int64(cut.Size) != int64(len(in)) || strings.HasSuffix(in, "\n") {
			t.Fatalf("cut line %+v of a %d-byte input", cut, len(in))
		}
		m := 0
		if err := event.Read(strings.NewReader(in[:cut.Offset]), func(event.Event) error { m++; return nil }); err != nil || m != n {
			t.Fatalf("the complete part: %d events (%v), want %d", m, err, n)
		}
	})
}
