package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
)

// Checkpoint is where a transcript stood when a writer last wrote it: its
// size, its lines, where each run's chain ended and the highest event
// number of each run's lines (eventid.Number). A writer that keeps it where only
// warden writes (authenticated) can open the transcript again without
// checking what it checked before (OpenAt).
type Checkpoint struct {
	Size  int64                    `json:"size"`
	Lines int                      `json:"lines"`
	Runs  map[string]seal.ChainEnd `json:"runs"`
	// Seq is missing (nil) from a checkpoint an earlier warden kept: OpenAt
	// refuses it (ErrCheckpoint), and the file is read whole instead.
	Seq map[string]int `json:"seq"`
}

// Checkpoint returns where the transcript stands now.
func (t *Transcript) Checkpoint() Checkpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	seq := make(map[string]int, len(t.seq))
	for id, n := range t.seq {
		seq[id] = n
	}
	return Checkpoint{Size: t.offset, Lines: t.lines, Runs: t.chain.Runs(), Seq: seq}
}

// Size returns the transcript's size as this writer last saw it (what
// Checkpoint's Size would be), without copying the ends of its runs.
func (t *Transcript) Size() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.offset
}

// ErrCheckpoint says a transcript is not as a checkpoint describes it: it
// is shorter, or the line the checkpoint ends on is not the one it names.
var ErrCheckpoint = errors.New("the transcript is not as its checkpoint describes it")

// OpenAt is Open for a writer that knows where the
// file stood (cp, from Checkpoint, kept where only warden writes): the
// first cp.Size bytes are taken as cp describes them — their last line
// must end there and carry the MAC cp names for its run — and only the
// lines after them are checked, each chained after its run's end, and
// passed to fn. It costs the lines appended since, not the whole file.
// A file that is not as cp describes is ErrCheckpoint: open it with
// OpenTranscript instead.
func OpenAt(path string, key seal.MACKey, heads seal.Heads, cp Checkpoint, fn func(event.Event) error) (*Transcript, error) {
	t, err := openLocked(path, key, heads)
	if err != nil {
		return nil, err
	}
	f := t.f
	defer t.unlock()
	fail := func(err error) (*Transcript, error) {
		f.Close()
		return nil, err
	}
	if cp.Seq == nil && cp.Size > 0 {
		return fail(fmt.Errorf("%s: %w: it does not say how the runs' events are numbered", path, ErrCheckpoint))
	}
	if err := checkEnd(f, cp); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	for id, end := range cp.Runs {
		t.chain.SetEnd(id, end)
	}
	for id, n := range cp.Seq {
		t.seq[id] = n
	}
	n := cp.Lines
	err = event.ReadLines(io.NewSectionReader(f, cp.Size, 1<<62), func(i int, line []byte, e event.Event) error {
		n = cp.Lines + i
		if err := t.chain.Check(e.RunID, line); err != nil {
			return &seal.ChainError{Path: path, Line: n, RunID: e.RunID, Err: err}
		}
		t.noteSeq(e.RunID, e.ID)
		return fn(e)
	})
	if err != nil {
		return fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	t.offset, t.lines = fi.Size(), n
	return t, nil
}

// checkEnd checks that the file's first cp.Size bytes end with a whole line
// whose MAC is the end of one of cp's runs.
func checkEnd(f *os.File, cp Checkpoint) error {
	if cp.Size == 0 {
		return nil
	}
	// The last line is read from the end, in windows growing from 4 KiB
	// to at most 64 KiB: most lines are short, and a hook process reads it
	// on every call.
	const maxTail = 1 << 16
	var line []byte
	for size := int64(4 << 10); ; size *= 4 {
		from := max(cp.Size-min(size, maxTail), 0)
		buf := make([]byte, cp.Size-from)
		if _, err := f.ReadAt(buf, from); err != nil {
			return fmt.Errorf("%w: %v", ErrCheckpoint, err)
		}
		if buf[len(buf)-1] != '\n' {
			return ErrCheckpoint
		}
		line = buf[:len(buf)-1]
		i := bytes.LastIndexByte(line, '\n')
		if i >= 0 {
			line = line[i+1:]
		}
		if i >= 0 || from == 0 || size >= maxTail {
			break
		}
	}
	_, mac, ok := seal.SplitLine(bytes.TrimRight(line, "\r"))
	if !ok {
		return ErrCheckpoint
	}
	for _, end := range cp.Runs {
		if end.MAC == mac {
			return nil
		}
	}
	return ErrCheckpoint
}
