package event

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/internal/eventid"
	"github.com/wardenhq/warden/internal/jsonerr"
)

// A Sink receives events. Write must be safe for concurrent use.
type Sink interface {
	Write(e Event) error
}

// SinkFunc adapts a function to the Sink interface.
type SinkFunc func(e Event) error

// Write calls f.
func (f SinkFunc) Write(e Event) error { return f(e) }

// Tee returns a sink that writes to every sink in turn and returns the
// first error. A sink that writes the event as a sealed line of its own
// making (warden's sealed transcript, SPEC L8) hands the sinks after it the
// event as that line: they marshal it to the same bytes.
func Tee(sinks ...Sink) Sink {
	return SinkFunc(func(e Event) error {
		if e.sealed == nil {
			e.sealed = &sealedLine{}
		}
		var first error
		for _, s := range sinks {
			if err := write(s, e); err != nil && first == nil {
				first = err
			}
			if e.sealed.id != "" {
				e.ID = e.sealed.id // as the sealed line has it
			}
		}
		return first
	})
}

// A lineSink writes an event as a line of its own making and returns the
// line, without its newline, and the id the line gives the event: warden's
// sealed transcript (internal/transcript), which numbers an event after
// the lines other processes appended to the file before it (SPEC L8).
type lineSink interface {
	WriteLine(e Event) (line []byte, id string, err error)
}

// write writes e to s. When s is a lineSink, e and its copies (they share
// e.sealed) then marshal to the line s wrote, and Tee hands the sinks after
// s the id that line gives the event.
func write(s Sink, e Event) error {
	ls, ok := s.(lineSink)
	if !ok || e.sealed == nil {
		return s.Write(e)
	}
	line, id, err := ls.WriteLine(e)
	if err == nil {
		e.sealed.b, e.sealed.id = line, id
	}
	return err
}

// writer writes events as JSON Lines (NewWriter).
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a sink that writes events to w as JSON Lines. Each
// event is written with a single write call as soon as it is emitted, so a
// crash loses no earlier line.
func NewWriter(w io.Writer) Sink { return &writer{w: w} }

// Write appends e as one line.
func (w *writer) Write(e Event) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.w.Write(line)
	return err
}

// Create creates (or appends to) the transcript file at path, making its
// directory. When the file's last line has no newline (a write cut short by
// a crash), a newline is written first, so the next event starts a line of
// its own instead of being glued to the cut one.
func Create(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	return f, nil
}

// maxLine is the longest transcript line Read accepts, in bytes.
const maxLine = 256 << 20

// CutLineError is what Read returns when a transcript's last line has no
// newline and does not decode: a write cut short by a crash. Every event
// before it was read and handed on; a caller that can go on treats it as a
// warning (see Read). A line that does not decode anywhere else is an
// ordinary error.
type CutLineError struct {
	// Line is the cut line's number, from 1; Offset the byte offset it
	// starts at (the length of the complete part of the file) and Size its
	// length in bytes.
	Line   int
	Offset int64
	Size   int
	// Err is why it does not decode.
	Err error
}

// Error says which line was cut and that what came before it was read.
func (e *CutLineError) Error() string {
	return fmt.Sprintf("line %d: the last line is cut short (%d bytes, no newline; a crash while it was written?): %v; the %d lines before it were read", e.Line, e.Size, e.Err, e.Line-1)
}

// Unwrap returns why the line does not decode.
func (e *CutLineError) Unwrap() error { return e.Err }

// Read decodes a JSON Lines transcript, calling fn for each event. A line
// that does not decode is an error naming its line number, in plain words
// (never the Go types it was decoded into) — except for a last line with no
// newline: that is a write a crash cut short, and Read returns a
// *CutLineError after calling fn for every event before it.
func Read(r io.Reader, fn func(Event) error) error {
	return ReadLines(r, func(_ int, _ []byte, e Event) error { return fn(e) })
}

// ReadLines is Read, handing on each event with its line's number (from 1,
// blank lines counted) and exact bytes (without the newline; valid until
// fn returns), for a reader that checks the lines themselves (warden's
// sealed transcripts, SPEC L8).
func ReadLines(r io.Reader, fn func(n int, line []byte, e Event) error) error {
	br := bufio.NewReaderSize(r, 64*1024)
	n := 0
	var offset int64
	var line []byte
	for {
		line = line[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			line = append(line, chunk...)
			if len(line) > maxLine+1 {
				return fmt.Errorf("line %d: longer than %d MiB", n+1, maxLine>>20)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		n++
		complete := line[len(line)-1] == '\n'
		body := bytes.TrimRight(line, "\r\n")
		start := offset
		offset += int64(len(line))
		if len(bytes.TrimSpace(body)) == 0 {
			if !complete {
				return nil
			}
			continue
		}
		var e Event
		if derr := json.Unmarshal(body, &e); derr != nil {
			derr = plainJSONError(derr)
			if !complete {
				return &CutLineError{Line: n, Offset: start, Size: len(line), Err: derr}
			}
			return fmt.Errorf("line %d: %w", n, derr)
		}
		if err := fn(n, body, e); err != nil {
			return err
		}
		if !complete {
			return nil
		}
	}
}

// plainJSONError rewords an error of encoding/json in plain words: a value
// of the wrong type names the field and the JSON types involved, never the
// Go type it was to be decoded into. Other errors are returned as they are.
func plainJSONError(err error) error { return jsonerr.Plain(err) }

// Recorder stamps events with ids, times, the run id and the emitting agent,
// and hands them to a sink. The first sink error is kept and reported by
// Err; a run checks it and stops, since a transcript that lost events is not
// one to keep running under. A nil *Recorder discards events.
type Recorder struct {
	run   *runRec
	agent string
	span  string
}

type runRec struct {
	id   string
	sink Sink
	seq  atomic.Int64
	// emit makes one event at a time take its id and reach the sinks, so
	// that ids, the transcript's lines and its chain of MACs (SPEC L8)
	// have one order, which every sink sees.
	emit sync.Mutex
	mu   sync.Mutex
	err  error
	now  func() time.Time
}

// NewRecorder returns a recorder for run id writing to sink, for the agent
// "main".
func NewRecorder(runID string, sink Sink) *Recorder {
	return &Recorder{run: &runRec{id: runID, sink: sink, now: time.Now}, agent: "main"}
}

// Continue makes the recorder number its next event after n earlier ones,
// for a run resumed from a transcript whose events are numbered up to n:
// ids are never reused (SPEC L8).
func (r *Recorder) Continue(n int) {
	if r != nil {
		r.run.seq.Store(int64(n))
	}
}

// RunID returns the run id the recorder stamps.
func (r *Recorder) RunID() string {
	if r == nil {
		return ""
	}
	return r.run.id
}

// For returns a recorder for the same run that stamps agent and span.
func (r *Recorder) For(agent, span string) *Recorder {
	if r == nil {
		return nil
	}
	return &Recorder{run: r.run, agent: agent, span: span}
}

// Emit stamps d and writes it.
func (r *Recorder) Emit(d Data) {
	if r == nil {
		return
	}
	r.run.emit.Lock()
	defer r.run.emit.Unlock()
	n := r.run.seq.Add(1)
	e := Event{
		ID:     eventid.Make(r.run.id, int(n)),
		Time:   r.run.now().UTC(),
		RunID:  r.run.id,
		Agent:  r.agent,
		Span:   r.span,
		Data:   d,
		sealed: &sealedLine{},
	}
	err := write(r.run.sink, e)
	// A sealed transcript may have numbered the event further (after
	// lines another process appended): the count goes on from its number.
	if id := e.sealed.id; id != "" && id != e.ID {
		if m, ok := eventid.Number(r.run.id, id); ok && int64(m) > r.run.seq.Load() {
			r.run.seq.Store(int64(m))
		}
	}
	if err != nil {
		r.run.mu.Lock()
		if r.run.err == nil {
			r.run.err = fmt.Errorf("transcript: %w", err)
		}
		r.run.mu.Unlock()
	}
}

// Err returns the first error the sink returned, if any.
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	r.run.mu.Lock()
	defer r.run.mu.Unlock()
	return r.run.err
}

// NewRunID returns a new run id: the UTC time and a random suffix, so ids
// sort by start time.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
