package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
)

// envRecorderChild, in the environment of the test binary, makes
// TestS1_RecorderProcessesKeepTheLogShort the child that records one batch
// of events with OpenRecorder and exits without closing the store, as a
// `warden hook` process does. Its value is "DB RUN".
const envRecorderChild = "WARDEN_STORE_RECORDER_CHILD"

// Processes that each open the store with OpenRecorder, commit one batch of
// events and exit without closing it (a hook per tool call) leave SQLite's
// write-ahead log for the next to recover. Without a checkpoint at open,
// nothing ever starts the log over and every opener reads all of it. The
// log stays within walLimit and a batch however many processes wrote,
// every event is kept, the database checks, and a store opened with Open
// reads the events back.
func TestS1_RecorderProcessesKeepTheLogShort(t *testing.T) {
	if v := os.Getenv(envRecorderChild); v != "" {
		db, run, _ := strings.Cut(v, " ")
		recorderChild(db, run)
		return
	}
	db := filepath.Join(t.TempDir(), "warden.db")
	const procs, perProc = 24, 8
	_ = 0 // each event's line is about 16 KiB: 3 MiB of log in all
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestS1_RecorderProcessesKeepTheLogShort$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRecorderChild+"="+db+" run-"+strconv.Itoa(i))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("recorder process %d: %v\n%s", i, err, out)
		}
		fi, err := os.Stat(db + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		// The log may hold what the last checkpoint left and a batch.
		if limit := int64(walLimit + 384<<10); fi.Size() > limit {
			t.Fatalf("after %d recorder processes the write-ahead log is %d bytes, want at most %d", i+1, fi.Size(), limit)
		}
	}
	s := open(t, db)
	var n int
	var check string
	if err := s.db.QueryRow("SELECT COUNT(*) FROM events").Scan(&n); err != nil || n != procs*perProc {
		t.Fatalf("the store holds %d events (%v), want %d", n, err, procs*perProc)
	}
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	evs, err := s.Events(context.Background(), "run-7", "", 0)
	if err != nil || len(evs) != perProc {
		t.Fatalf("run-7 read back: %d events, %v", len(evs), err)
	}
}

// recorderChild records perProc events of run into the store db and
// returns without closing it.
func recorderChild(db, run string) {
	s, err := OpenRecorder(context.Background(), db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b := s.Buffer()
	for i := range 8 {
		if err := b.Write(ev(run, i, event.Info{Message: strings.Repeat("x", 16<<10)})); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0) // the store left open, as a hook leaves it
}
