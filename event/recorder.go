package event

import (
	"bufio"
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
// first error.
func Tee(sinks ...Sink) Sink {
	return SinkFunc(func(e Event) error {
		var first error
		for _, s := range sinks {
			if err := s.Write(e); err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// Writer writes events as JSON Lines. Each event is written with a single
// write call as soon as it is emitted, so a crash loses no earlier line.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write appends e as one line.
func (w *Writer) Write(e Event) error {
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
// directory.
func Create(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// Read decodes a JSON Lines transcript, calling fn for each event. A line
// that does not decode is an error naming its line number.
func Read(r io.Reader, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 256*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return sc.Err()
}

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
// for a run resumed from a transcript that holds n events.
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

// Agent returns the agent name the recorder stamps.
func (r *Recorder) Agent() string {
	if r == nil {
		return ""
	}
	return r.agent
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
	n := r.run.seq.Add(1)
	e := Event{
		ID:    fmt.Sprintf("%s-%06d", r.run.id, n),
		Time:  r.run.now().UTC(),
		RunID: r.run.id,
		Agent: r.agent,
		Span:  r.span,
		Data:  d,
	}
	if err := r.run.sink.Write(e); err != nil {
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
