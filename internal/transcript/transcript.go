// Package transcript writes and reads warden's sealed JSONL transcripts
// (SPEC L8): every line carries the MAC, under warden's key, of its content
// after its run's previous line (the chain of internal/seal), and the end
// of each run's chain is kept in warden's state (seal.Heads), so that a line
// changed, removed, inserted or cut from the end is refused when read.
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventid"
	"github.com/wardenhq/warden/internal/jsonerr"
	"github.com/wardenhq/warden/internal/seal"
)

// Sealed is what ReadSealed verified of a transcript.
type Sealed struct {
	// Runs are where the chain of each run of the file ends.
	Runs map[string]seal.ChainEnd
	// Headed holds the runs whose head record was found (and matched).
	Headed map[string]bool
	// Lines counts the file's lines, blank ones included, a cut last line
	// not.
	Lines int
	// Ahead holds the runs whose head record counts the cut last line: a
	// crash cut it after it was written whole. A caller that removes the
	// cut line rewinds their records to Runs (seal.Heads.Write).
	Ahead []string
}

// ReadSealed is event.Read for a sealed transcript (SPEC L8): every line must
// carry the MAC, under key, of its content after its run's previous line,
// or the first that does not is a *seal.ChainError naming it, and fn was called
// for the events before it only. With heads set, a run whose head record
// exists must hold at least the lines the record counts, the last of them
// the one it names; otherwise the error is a *seal.ChainError wrapping
// seal.ErrTruncated, naming the line after the run's last — unless the file's
// last line is cut short and is the one line the record counts beyond
// (Sealed.Ahead). A last line cut short by a crash is a *event.CutLineError,
// as in event.Read, returned after the checks of everything before it.
func ReadSealed(r io.Reader, key seal.MACKey, heads seal.Heads, fn func(event.Event) error) (*Sealed, error) {
	c := seal.NewChain(key)
	s := &Sealed{Headed: map[string]bool{}}
	want := map[string]*seal.ChainEnd{} // head records, by run
	last := map[string]int{}            // the line number of each run's last line
	err := event.ReadLines(r, func(n int, line []byte, e event.Event) error {
		s.Lines = n
		last[e.RunID] = n
		if _, seen := want[e.RunID]; !seen && heads != "" {
			h, ok, err := heads.Read(e.RunID)
			if err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			want[e.RunID] = nil
			if ok {
				want[e.RunID] = &h
				s.Headed[e.RunID] = true
			}
		}
		if err := c.Check(e.RunID, line); err != nil {
			return &seal.ChainError{Line: n, RunID: e.RunID, Err: err}
		}
		if h := want[e.RunID]; h != nil && c.End(e.RunID).Lines == h.Lines && c.End(e.RunID).MAC != h.MAC {
			return &seal.ChainError{Line: n, RunID: e.RunID, Err: fmt.Errorf("%w: warden recorded another line as the run's line %d", seal.ErrBadMAC, h.Lines)}
		}
		return fn(e)
	})
	var cut *event.CutLineError
	if err != nil && !errors.As(err, &cut) {
		return nil, err
	}
	if cut != nil {
		s.Lines = cut.Line - 1
	}
	s.Runs = c.Runs()
	for id, h := range want {
		if h != nil && cut != nil && s.Runs[id].Lines == h.Lines-1 && s.Runs[id].MAC == h.Prev {
			// The head counts one line more, the one after the run's
			// last complete line: the cut line is that line, which a
			// crash (a power loss) cut after it was written.
			s.Ahead = append(s.Ahead, id)
			continue
		}
		if h != nil && s.Runs[id].Lines < h.Lines {
			return nil, &seal.ChainError{Line: last[id] + 1, RunID: id, Err: fmt.Errorf("%w: warden wrote %d lines of run %s, the file holds %d", seal.ErrTruncated, h.Lines, id, s.Runs[id].Lines)}
		}
	}
	if cut != nil {
		return s, cut
	}
	return s, nil
}

// Transcript is a sealed JSONL transcript open for appending (SPEC L8), an
// event.Sink: each event is written as one sealed line with a single write,
// chained after its run's previous line, and the run's head record is
// rewritten after it. Several warden processes may append to one file (a
// person's override, given while the run goes on): each holds the file's
// lock while it writes and first checks, and chains after, the lines the
// others appended. Lines appended or removed by anything else stop the
// writer with an error. The numbered ids Recorders give (internal/eventid) are
// given their final number there too, under the lock: an event whose
// number another line of its run already has, or a higher one, is numbered
// after that run's last, so that ids stay unique and ascend in the file's
// order whoever appended before it.
type Transcript struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	chain  *seal.Chain
	heads  seal.Heads
	headFs map[string][]byte // the head records, mapped
	offset int64
	lines  int
	head   []byte // the head record's buffer
	// seq is the highest event number (eventid.Number) of each run's lines.
	seq map[string]int
	// appended takes the events of the lines other processes appended,
	// as catchUp checks them (OnAppended).
	appended func(event.Event) error
}

// OnAppended makes the transcript hand fn, in the file's order, every
// event another warden process appended that this writer checks and
// chains after before its own next line (a person's override given while
// a held session runs, SPEC G12), so that its caller's state counts them
// too. An error from fn stops the write.
func (t *Transcript) OnAppended(fn func(event.Event) error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.appended = fn
}

// Open opens the transcript at path for appending sealed lines
// under key, creating it (and its directory) when missing, and keeping the
// head records of its runs in heads ("" keeps none). What the file holds
// already must verify (ReadSealed): a transcript broken, unsealed or cut
// short is refused, so that nothing is chained after lines warden did not
// write (a caller that resumes a run removes a cut last line first).
func Open(path string, key seal.MACKey, heads seal.Heads) (*Transcript, error) {
	t, err := openLocked(path, key, heads)
	if err != nil {
		return nil, err
	}
	f := t.f
	defer t.unlock()
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() == 0 {
		// A new transcript (a new run's): nothing to check, and no
		// reader's buffer to allocate for it.
		return t, nil
	}
	s, err := ReadSealed(io.NewSectionReader(f, 0, 1<<62), key, heads, func(e event.Event) error {
		t.noteSeq(e.RunID, e.ID)
		return nil
	})
	if err != nil {
		f.Close()
		var ce *seal.ChainError
		if errors.As(err, &ce) {
			ce.Path = path
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for id, end := range s.Runs {
		t.chain.SetEnd(id, end)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	t.offset, t.lines = fi.Size(), s.Lines
	return t, nil
}

// openLocked opens the transcript at path for appending, creating it and
// its directory when missing, and takes its lock: the caller unlocks.
func openLocked(path string, key seal.MACKey, heads seal.Heads) (*Transcript, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	t := &Transcript{f: f, path: path, chain: seal.NewChain(key), heads: heads, headFs: map[string][]byte{}, seq: map[string]int{}}
	if err := t.lock(); err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

func (t *Transcript) lock() error {
	for {
		err := syscall.Flock(int(t.f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			if err != nil {
				return fmt.Errorf("%s: locking the transcript: %w", t.path, err)
			}
			return nil
		}
	}
}

func (t *Transcript) unlock() { _ = syscall.Flock(int(t.f.Fd()), syscall.LOCK_UN) }

// Write appends e as one sealed line (event.Sink). Under a Recorder or
// event.Tee the event, and every copy of it handed to the sinks after this
// one, then marshals to that line (WriteLine).
func (t *Transcript) Write(e event.Event) error {
	_, _, err := t.WriteLine(e)
	return err
}

// WriteLine appends e as one sealed line and returns the line, without its
// newline, and e's id as the line has it (see Transcript: a numbered id is
// given its number under the file's lock): event.Tee and Recorders hand
// the sinks after this one e as that line, under that id.
func (t *Transcript) WriteLine(e event.Event) ([]byte, string, error) { return t.write(e) }

// WriteSealed is Write returning e as sealed: it marshals to its line.
func (t *Transcript) WriteSealed(e event.Event) (event.Event, error) {
	var sealed event.Event
	err := event.Tee(t, event.SinkFunc(func(s event.Event) error {
		sealed = s
		return nil
	})).Write(e)
	return sealed, err
}

// Sync commits the file to disk.
func (t *Transcript) Sync() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	return t.f.Sync()
}

func (t *Transcript) write(e event.Event) ([]byte, string, error) {
	if e.RunID == "" {
		return nil, "", errors.New("event: an event without a run id cannot be sealed")
	}
	// A copy of the common fields and the data marshals to the event's
	// object, whatever line the event was read from or sealed as.
	plain := event.Event{ID: e.ID, Time: e.Time, RunID: e.RunID, Agent: e.Agent, Span: e.Span, Data: e.Data}
	obj, err := plain.MarshalJSON()
	if err != nil {
		return nil, "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil, "", fmt.Errorf("%s: the transcript is closed", t.path)
	}
	if err := t.lock(); err != nil {
		return nil, "", err
	}
	defer t.unlock()
	if err := t.catchUp(); err != nil {
		return nil, "", err
	}
	// The event's place in the file is decided now: a numbered id is
	// numbered after its run's lines, those other processes appended
	// included.
	n, numbered := eventid.Number(e.RunID, e.ID)
	if last := t.seq[e.RunID]; numbered && n <= last {
		n = last + 1
		plain.ID = eventid.Make(e.RunID, n)
		if obj, err = plain.MarshalJSON(); err != nil {
			return nil, "", err
		}
	}
	before := t.chain.End(e.RunID)
	line, err := t.chain.Seal(e.RunID, obj)
	if err != nil {
		return nil, "", err
	}
	buf := append(line, '\n') // in the room Seal left
	wrote, err := t.f.Write(buf)
	t.offset += int64(wrote)
	if err != nil {
		// The chain stays where the file is: a partial line is the cut
		// line of a crash, and nothing is chained after it.
		t.chain.SetEnd(e.RunID, before)
		return nil, "", fmt.Errorf("%s: %w", t.path, err)
	}
	t.lines++
	if numbered {
		t.seq[e.RunID] = n
	}
	if err := t.writeHead(e.RunID); err != nil {
		return nil, "", err
	}
	return line, plain.ID, nil
}

// noteSeq counts id, of a line of run runID, in the run's highest event
// number.
func (t *Transcript) noteSeq(runID, id string) {
	if n, ok := eventid.Number(runID, id); ok && n > t.seq[runID] {
		t.seq[runID] = n
	}
}

// catchUp checks and chains after the lines other warden processes
// appended since this one last wrote; anything else is an error.
func (t *Transcript) catchUp() error {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(t.f.Fd()), &st); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	size := st.Size
	switch {
	case size == t.offset:
		return nil
	case size < t.offset:
		return fmt.Errorf("%s: %w: the transcript shrank from %d to %d bytes while warden wrote it", t.path, seal.ErrTruncated, t.offset, size)
	}
	data := make([]byte, size-t.offset)
	if _, err := t.f.ReadAt(data, t.offset); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	if data[len(data)-1] != '\n' {
		return fmt.Errorf("%s: line %d: a line without its newline was appended while warden wrote the transcript", t.path, t.lines+1)
	}
	for _, l := range bytes.SplitAfter(data[:len(data)-1], []byte("\n")) {
		t.lines++
		body := bytes.TrimRight(l, "\r\n")
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		var h struct {
			ID    string `json:"id"`
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal(body, &h); err != nil {
			return &seal.ChainError{Path: t.path, Line: t.lines, Err: fmt.Errorf("%w (appended while warden wrote the transcript: %v)", seal.ErrBadMAC, jsonerr.Plain(err))}
		}
		if err := t.chain.Check(h.RunID, body); err != nil {
			return &seal.ChainError{Path: t.path, Line: t.lines, RunID: h.RunID, Err: fmt.Errorf("%w (appended while warden wrote the transcript)", err)}
		}
		t.noteSeq(h.RunID, h.ID)
		if t.appended != nil {
			var e event.Event
			if err := json.Unmarshal(body, &e); err != nil {
				return fmt.Errorf("%s: line %d (appended while warden wrote the transcript): %w", t.path, t.lines, jsonerr.Plain(err))
			}
			if err := t.appended(e); err != nil {
				return fmt.Errorf("%s: line %d: %w", t.path, t.lines, err)
			}
		}
	}
	t.offset = size
	return nil
}

// writeHead rewrites runID's head record, in place. The record is mapped
// into memory (shared with the file), so that rewriting it after each
// line is a copy, not a system call; the kernel writes it back, and a
// crash of this process loses nothing written.
func (t *Transcript) writeHead(runID string) error {
	if t.heads == "" {
		return nil
	}
	m := t.headFs[runID]
	if m == nil {
		p, err := t.heads.Path(runID)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("head record: %w", err)
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return fmt.Errorf("head record: %w", err)
		}
		defer f.Close()
		if err := f.Truncate(int64(seal.HeadSize)); err != nil {
			return fmt.Errorf("head record: %w", err)
		}
		if m, err = syscall.Mmap(int(f.Fd()), 0, seal.HeadSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != nil {
			return fmt.Errorf("head record: %w", err)
		}
		t.headFs[runID] = m
	}
	t.head = seal.AppendHead(t.head[:0], t.chain.End(runID))
	copy(m, t.head)
	return nil
}

// End returns where runID's chain stands in the file.
func (t *Transcript) End(runID string) seal.ChainEnd {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.chain.End(runID)
}

// Close closes the file and the head records.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	for _, m := range t.headFs {
		if merr := syscall.Munmap(m); err == nil {
			err = merr
		}
	}
	t.headFs = nil
	return err
}
