// Package spool carries a hook's events to the default store without the
// hook opening it. A `warden hook` process records its session's events in
// the run's sealed transcript ($WARDEN_HOME/runs/RUN_ID.jsonl) as before;
// instead of also committing them to SQLite, it leaves a mark, its run id
// on one line, appended to $WARDEN_HOME/spool/marks (Mark). Whoever opens
// the default store to read it (store.Open, and `warden serve` continually)
// first drains the spool (Drain): it reads the lines each marked run's
// transcript gained since the last drain, verified, and hands them to the
// store.
//
// Why a mark and not the events themselves: the transcript already holds
// each event, sealed under warden's state key, which the agent (it may
// write files as the person's user) does not hold. The mark carries
// nothing to trust — at worst a forged mark makes a drain read a
// transcript, or a removed one delays it — and it is one open, one shared
// lock and one write of a few bytes: no database's start-up, no commit.
// A hook that cannot write its mark fails, and its host denies the call,
// as an unwritable store did.
//
// Crash safety. A mark is one write(2) with O_APPEND of a short line, made
// after the run's lines are in its transcript. A drain holds the spool's
// import lock (one drain at a time), reads the marks from where the last
// drain stopped (spool/done), reads each run's transcript from its cursor
// (spool/cursors/RUN_ID: a transcript.Checkpoint under a MAC of the state
// key; one that does not verify is read from the start), commits the
// events, and only then saves the cursors and then the new end of the
// marks: a drain cut short anywhere leaves marks and cursors that make the
// next one read again what it may not have committed, and the store keeps
// one copy of each event (by event id). When every mark is taken, the
// drain empties the file under its exclusive lock, which a hook's shared
// lock holds off while it writes.
//
// What a drain trades: a hook's events reach the store when it is next
// opened, or on `warden serve`'s next drain (Interval), not as the hook
// exits; the transcript, which every decision reads back, is unchanged.
//
// The package sits below the store (which calls Drain with its own
// writer) and above the transcript: the append side imports nothing of
// warden's but its state's layout.
package spool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/transcript"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// Interval is how often `warden serve` drains the spool, so that its
// panel shows a hook session's events about this long after the hook.
const Interval = 200 * time.Millisecond

// cursorLabel names the purpose of a cursor's MAC.
const cursorLabel = "warden/spool-cursor/v1"

// maxRunID bounds a marked run id; longer lines are not marks.
const maxRunID = 200

// Dir returns the spool's directory in home ($WARDEN_HOME).
func Dir(home string) string { return filepath.Join(home, "spool") }

// marksPath returns the file of marks in home.
func marksPath(home string) string { return filepath.Join(Dir(home), "marks") }

// Mark records in home's spool that run runID's transcript has lines the
// default store has not imported: one line appended with one write, under
// a shared lock of the file (a drain empties it under an exclusive one).
func Mark(home, runID string) error {
	if !validRunID(runID) {
		return fmt.Errorf("spool: %q is not a run id", runID)
	}
	dir := Dir(home)
	f, err := os.OpenFile(marksPath(home), os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = os.OpenFile(marksPath(home), os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		}
	}
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer f.Close()
	if err := flock(f, syscall.LOCK_SH); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if _, err := f.Write(append([]byte(runID), '\n')); err != nil {
		return fmt.Errorf("spool: marking run %s: %w", runID, err)
	}
	return nil
}

// validRunID reports whether id may name a run's files: 1 to maxRunID
// letters, digits, '-', '_' and '.', not starting with '.'.
func validRunID(id string) bool {
	if len(id) == 0 || len(id) > maxRunID || id[0] == '.' {
		return false
	}
	for _, c := range []byte(id) {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// flock takes lock how on f, again when interrupted.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Writer stores events and returns how many were new; a second call with
// the same events stores nothing again (the store's import).
type Writer func(ctx context.Context, es []event.Event) (int, error)

// Paths are where a drain finds what it reads.
type Paths struct {
	// Home is $WARDEN_HOME: the spool is its spool directory.
	Home string
	// Runs is the directory of the runs' transcripts ($WARDEN_HOME/runs).
	Runs string
	// Key is warden's state key ($WARDEN_HOME/keys/override.key).
	Key string
}

// DefaultPaths returns the paths of home as warden lays it out.
func DefaultPaths(home string) Paths {
	return Paths{Home: home, Runs: filepath.Join(home, "runs"), Key: filepath.Join(home, "keys", "override.key")}
}

// Result is what a drain did.
type Result struct {
	// Stored counts the events stored that the store did not hold.
	Stored int
	// Refused are the marked transcripts that did not verify (a line
	// changed, forged or removed): the events before the first line that
	// did not are stored, the rest never are.
	Refused []error
}

// Drain imports into write what the spool of p.Home marks: for each marked
// run, the lines its transcript gained since the last drain, verified
// under the state key. An error says the marks read are left for the next
// drain (nothing it committed is lost; the store keeps one copy of each
// event); a transcript that does not verify is no error but a Result's
// Refused, and its mark is taken.
func Drain(ctx context.Context, p Paths, write Writer) (Result, error) {
	var res Result
	dir := Dir(p.Home)
	marks, err := os.OpenFile(marksPath(p.Home), os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil // no hook ever marked
	}
	if err != nil {
		return res, fmt.Errorf("spool: %w", err)
	}
	defer marks.Close()
	lock, err := os.OpenFile(filepath.Join(dir, "import.lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return res, fmt.Errorf("spool: %w", err)
	}
	defer lock.Close()
	if err := flock(lock, syscall.LOCK_EX); err != nil {
		return res, fmt.Errorf("spool: %w", err)
	}
	defer flock(lock, syscall.LOCK_UN)

	donePath := filepath.Join(dir, "done")
	done := readDone(donePath)
	fi, err := marks.Stat()
	if err != nil {
		return res, fmt.Errorf("spool: %w", err)
	}
	if done > fi.Size() {
		done = 0 // the file was emptied after done was saved
	}
	runs, end, err := readMarks(marks, done, fi.Size())
	if err != nil {
		return res, err
	}
	if len(runs) > 0 {
		key, err := seal.LoadOrCreate(p.Key)
		if err != nil {
			return res, fmt.Errorf("spool: warden state: %w", err)
		}
		d := &drain{p: p, key: key, lineKey: key.Derive(seal.LineKeyLabel), write: write}
		for _, run := range runs {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			n, refused, err := d.run(ctx, run)
			res.Stored += n
			if err != nil {
				return res, err
			}
			if refused != nil {
				res.Refused = append(res.Refused, refused)
			}
		}
	}
	if end != done {
		if err := writeDone(donePath, end); err != nil {
			return res, err
		}
	}
	return res, empty(marks, donePath, end)
}

// readDone returns the end of the marks the last drain took (0 if none
// is recorded).
func readDone(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// writeDone records that the marks before offset end are taken.
func writeDone(path string, end int64) error {
	if err := wardenhome.Rewrite(path, append(strconv.AppendInt(nil, end, 10), '\n')); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// readMarks returns the run ids marked between offsets from and to, each
// once, in the order first marked, and the offset after the last whole
// line (a line still being written is left for the next drain). A line
// that is no run id is skipped.
func readMarks(f *os.File, from, to int64) ([]string, int64, error) {
	if from >= to {
		return nil, from, nil
	}
	br := bufio.NewReader(io.NewSectionReader(f, from, to-from))
	seen := map[string]bool{}
	var runs []string
	end := from
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Not a mark: skip to the line's end.
			end += int64(len(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				end += int64(len(line))
			}
			if err != nil {
				end -= int64(len(line))
				break
			}
			continue
		}
		if err == io.EOF {
			break // a line not whole yet, or nothing
		}
		if err != nil {
			return nil, from, fmt.Errorf("spool: reading the marks: %w", err)
		}
		end += int64(len(line))
		id := string(bytes.TrimRight(line, "\r\n"))
		if validRunID(id) && !seen[id] {
			seen[id] = true
			runs = append(runs, id)
		}
	}
	return runs, end, nil
}

// empty empties the marks once every mark in them is taken (end is their
// size), under the file's exclusive lock, which waits for a hook writing
// its mark; a mark written since leaves them as they are.
func empty(marks *os.File, donePath string, end int64) error {
	if end == 0 {
		return nil
	}
	if err := flock(marks, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	defer flock(marks, syscall.LOCK_UN)
	fi, err := marks.Stat()
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if fi.Size() != end {
		return nil
	}
	if err := marks.Truncate(0); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return writeDone(donePath, 0)
}

// drain is one drain's state.
type drain struct {
	p       Paths
	key     *seal.Key
	lineKey *seal.Key
	write   Writer
}

// cursor is a run's cursor file: its checkpoint and the MAC over it.
type cursor struct {
	Checkpoint json.RawMessage `json:"checkpoint"`
	MAC        string          `json:"mac"`
}

// cursorPath returns run's cursor file.
func (d *drain) cursorPath(run string) string {
	return filepath.Join(Dir(d.p.Home), "cursors", run)
}

// loadCursor returns where the last drain stopped in run's transcript;
// the zero checkpoint when none is kept or it does not verify.
func (d *drain) loadCursor(run string) transcript.Checkpoint {
	var cp transcript.Checkpoint
	b, err := os.ReadFile(d.cursorPath(run))
	if err != nil {
		return cp
	}
	var c cursor
	if json.Unmarshal(b, &c) != nil || !d.key.Verify(c.MAC, []byte(cursorLabel), []byte(run), c.Checkpoint) {
		return transcript.Checkpoint{}
	}
	if json.Unmarshal(c.Checkpoint, &cp) != nil {
		return transcript.Checkpoint{}
	}
	return cp
}

// saveCursor keeps cp as run's cursor.
func (d *drain) saveCursor(run string, cp transcript.Checkpoint) error {
	raw, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	b, err := json.Marshal(cursor{Checkpoint: raw, MAC: d.key.Sum([]byte(cursorLabel), []byte(run), raw)})
	if err != nil {
		return err
	}
	path := d.cursorPath(run)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := wardenhome.Rewrite(path, b); err != nil {
		return fmt.Errorf("spool: cursor of %s: %w", run, err)
	}
	return nil
}

// run imports what run's transcript gained since its cursor and returns
// how many events were new, and the transcript's refusal when it does not
// verify (the events before its first bad line are stored).
func (d *drain) run(ctx context.Context, run string) (n int, refused, err error) {
	path := filepath.Join(d.p.Runs, run+".jsonl")
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return 0, nil, nil // a mark of no run: nothing to read
	}
	heads := seal.Heads(d.p.Runs)
	var es []event.Event
	collect := func(e event.Event) error {
		if e.RunID != run {
			return fmt.Errorf("line of run %q in the transcript of run %s", e.RunID, run)
		}
		es = append(es, e)
		return nil
	}
	cp := d.loadCursor(run)
	t, err := transcript.OpenAt(path, d.lineKey, heads, cp, collect)
	if errors.Is(err, transcript.ErrCheckpoint) && cp.Size > 0 {
		// The file is not as the cursor says: read it whole.
		es = es[:0]
		t, err = transcript.OpenAt(path, d.lineKey, heads, transcript.Checkpoint{}, collect)
	}
	var next transcript.Checkpoint
	if err != nil {
		refused = fmt.Errorf("spool: the transcript of run %s: %w", run, err)
	} else {
		next = t.Checkpoint()
		if err := t.Close(); err != nil {
			return 0, nil, fmt.Errorf("spool: %w", err)
		}
	}
	for len(es) > 0 {
		k := min(len(es), 500)
		m, err := d.write(ctx, es[:k])
		n += m
		if err != nil {
			return n, nil, fmt.Errorf("spool: storing run %s: %w", run, err)
		}
		es = es[k:]
	}
	if refused == nil {
		if err := d.saveCursor(run, next); err != nil {
			return n, nil, err
		}
	}
	return n, refused, nil
}
