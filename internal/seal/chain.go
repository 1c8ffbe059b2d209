package seal

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The sealed line (SPEC L8). Every line warden writes to a transcript ends
// with one more key, "line_mac", the last of the object:
//
//	{"event":…,…,"line_mac":"<64 hex>"}
//
// The MAC is HMAC-SHA256, under warden's key derived for LineKeyLabel, of
//
//	be64(len(prev)) ‖ prev ‖ be64(len(content)) ‖ content
//
// where content is the line's exact bytes before `,"line_mac":"` and prev
// is the line_mac of the previous line of the same run in the file, or
// "run:" followed by the run id for a run's first line. A line changed,
// removed, inserted, moved within its run or spliced in from another run
// breaks the chain at the first line that follows it; the end of a run's
// chain is kept outside the transcript, in warden's state (a head record,
// see Heads), so that removing the last lines is seen too.

// LineKeyLabel names the purpose of the key that seals transcript lines,
// derived from warden's key (Key.Derive).
const LineKeyLabel = "warden/transcript/v1"

// A MACKey makes the HMAC-SHA256 hashes that seal transcript lines:
// warden's key derived for LineKeyLabel (a *Key).
type MACKey interface {
	Hash() hash.Hash
}

// macField starts the MAC of a sealed line; macTail ends the line.
const (
	macField  = `,"line_mac":"`
	macTail   = `"}`
	macHexLen = 64
	macSuffix = len(macField) + macHexLen + len(macTail)
)

// The reasons a sealed transcript does not verify, in a *ChainError.
var (
	// ErrUnsealed: a line carries no line_mac.
	ErrUnsealed = errors.New("the line is not sealed (no line_mac): something other than warden wrote it, or a warden older than sealed transcripts")
	// ErrBadMAC: a line's line_mac is not the MAC of its content after
	// its run's previous line.
	ErrBadMAC = errors.New("its line_mac does not verify: the line was changed, a line of its run before it was removed, inserted or moved, or another warden key wrote it")
	// ErrTruncated: a run's lines end before the end warden recorded.
	ErrTruncated = errors.New("lines of the run are missing at the end")
)

// ChainError says which line of a transcript breaks its chain of MACs.
type ChainError struct {
	// Path is the transcript's file, when the caller knows it.
	Path string
	// Line is the line's number, from 1 (for ErrTruncated, the number the
	// first missing line would have).
	Line int
	// RunID is the run the line belongs to, when known.
	RunID string
	// Err is ErrUnsealed, ErrBadMAC or ErrTruncated, possibly wrapped
	// with details.
	Err error
}

// Error names the line and why it breaks the chain: "PATH:LINE: reason",
// or "line LINE: reason" without a path.
func (e *ChainError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

// Unwrap returns the reason.
func (e *ChainError) Unwrap() error { return e.Err }

// Chain seals and checks the lines of transcripts, run by run, in the order
// of the file (SPEC L8). It is not safe for concurrent use.
type Chain struct {
	h    hash.Hash
	runs map[string]*ChainEnd
	n    [8]byte
	sum  []byte
}

// ChainEnd is where a run's chain stands: how many of its lines were
// sealed or checked, the line_mac of the last, and of the one before it
// ("" for none).
type ChainEnd struct {
	Lines int
	MAC   string
	Prev  string
}

// NewChain returns a chain that seals and checks with key.
func NewChain(key MACKey) *Chain {
	return &Chain{h: key.Hash(), runs: map[string]*ChainEnd{}}
}

// End returns where runID's chain stands (zero when it has no line yet).
func (c *Chain) End(runID string) ChainEnd {
	if e := c.runs[runID]; e != nil {
		return *e
	}
	return ChainEnd{}
}

// Runs returns the ends of every run the chain has seen.
func (c *Chain) Runs() map[string]ChainEnd {
	out := make(map[string]ChainEnd, len(c.runs))
	for id, e := range c.runs {
		out[id] = *e
	}
	return out
}

// mac returns the hex MAC of content after prev.
func (c *Chain) mac(prev string, content []byte) string {
	c.h.Reset()
	binary.BigEndian.PutUint64(c.n[:], uint64(len(prev)))
	c.h.Write(c.n[:])
	c.h.Write([]byte(prev))
	binary.BigEndian.PutUint64(c.n[:], uint64(len(content)))
	c.h.Write(c.n[:])
	c.h.Write(content)
	c.sum = c.h.Sum(c.sum[:0])
	return hex.EncodeToString(c.sum)
}

// end returns runID's chain end, made when first seen.
func (c *Chain) end(runID string) *ChainEnd {
	e := c.runs[runID]
	if e == nil {
		e = &ChainEnd{}
		c.runs[runID] = e
	}
	return e
}

// SetEnd sets where runID's chain stands: after the lines of a file read
// before, or back where it was when a line could not be written.
func (c *Chain) SetEnd(runID string, e ChainEnd) { c.runs[runID] = &e }

// prev is what a run's next line is chained to.
func (e *ChainEnd) prev(runID string) string {
	if e.Lines == 0 {
		return "run:" + runID
	}
	return e.MAC
}

// Seal returns obj, the JSON object of an event of run runID, as a sealed
// line (without a newline), chained after the run's last line.
func (c *Chain) Seal(runID string, obj []byte) ([]byte, error) {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errors.New("event: sealing a line that is not a JSON object")
	}
	content := obj[:len(obj)-1]
	e := c.end(runID)
	mac := c.mac(e.prev(runID), content)
	line := make([]byte, 0, len(content)+macSuffix+1) // and a newline
	line = append(line, content...)
	line = append(line, macField...)
	line = append(line, mac...)
	line = append(line, macTail...)
	e.Lines++
	e.Prev, e.MAC = e.MAC, mac
	return line, nil
}

// SplitLine returns a sealed line's content and MAC, or ok false when it
// carries none.
func SplitLine(line []byte) (content []byte, mac string, ok bool) {
	if len(line) < macSuffix+1 || !bytes.HasSuffix(line, []byte(macTail)) {
		return nil, "", false
	}
	at := len(line) - macSuffix
	if !bytes.HasPrefix(line[at:], []byte(macField)) {
		return nil, "", false
	}
	mac = string(line[at+len(macField) : len(line)-len(macTail)])
	for i := 0; i < len(mac); i++ {
		if c := mac[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return nil, "", false
		}
	}
	return line[:at], mac, true
}

// Check verifies line (one transcript line without its newline) as the
// next line of run runID and records it. It returns ErrUnsealed or
// ErrBadMAC; a line that does not verify is not recorded.
func (c *Chain) Check(runID string, line []byte) error {
	content, mac, ok := SplitLine(line)
	if !ok {
		return ErrUnsealed
	}
	e := c.end(runID)
	want := c.mac(e.prev(runID), content)
	if !hmac.Equal([]byte(mac), []byte(want)) {
		if e.Lines == 0 {
			delete(c.runs, runID)
		}
		return ErrBadMAC
	}
	e.Lines++
	e.Prev, e.MAC = e.MAC, mac
	return nil
}

// Heads is a directory of head records (SPEC L8): for each run, how many
// lines of its transcript warden wrote and the line_mac of the last and of
// the one before it, kept in warden's state where the agent cannot write,
// so that a transcript whose last lines were removed is refused. A record
// is one line of fixed size, rewritten in place after every line:
// "warden-transcript-head v1 LINES MAC PREV\n", LINES in 12 digits, PREV
// 64 "-" for a run's first line.
type Heads string

// HeadSize is the size of a head record in bytes; it never changes.
const HeadSize = len(headPrefix) + 12 + 1 + macHexLen + 1 + macHexLen + 1

// headPrefix starts a head record.
const headPrefix = "warden-transcript-head v1 "

// Path returns the head record's file of runID.
func (h Heads) Path(runID string) (string, error) {
	if runID == "" || strings.ContainsAny(runID, `/\`+"\x00") || strings.HasPrefix(runID, ".") {
		return "", fmt.Errorf("event: run id %q cannot name a head record", runID)
	}
	return filepath.Join(string(h), runID+".head"), nil
}

// formatHead returns the head record of end.
func formatHead(end ChainEnd) []byte { return AppendHead(make([]byte, 0, HeadSize), end) }

// AppendHead appends the head record of end to b.
func AppendHead(b []byte, end ChainEnd) []byte {
	b = append(b, headPrefix...)
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], int64(end.Lines), 10)
	for i := len(n); i < 12; i++ {
		b = append(b, '0')
	}
	b = append(b, n...)
	b = append(b, ' ')
	b = append(b, end.MAC...)
	b = append(b, ' ')
	if end.Prev == "" {
		for i := 0; i < macHexLen; i++ {
			b = append(b, '-')
		}
	} else {
		b = append(b, end.Prev...)
	}
	return append(b, '\n')
}

// Write replaces the head record of runID with end (for a caller that
// removed a cut last line the record counted).
func (h Heads) Write(runID string, end ChainEnd) error {
	p, err := h.Path(runID)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, formatHead(end), 0o600); err != nil {
		return fmt.Errorf("head record of run %s: %w", runID, err)
	}
	return nil
}

// Read returns the head record of runID; ok is false when there is none.
func (h Heads) Read(runID string) (end ChainEnd, ok bool, err error) {
	p, err := h.Path(runID)
	if err != nil {
		return ChainEnd{}, false, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return ChainEnd{}, false, nil
	}
	if err != nil {
		return ChainEnd{}, false, fmt.Errorf("head record of run %s: %w", runID, err)
	}
	s := string(b)
	if len(s) != HeadSize || !strings.HasPrefix(s, headPrefix) || s[len(s)-1] != '\n' {
		return ChainEnd{}, false, fmt.Errorf("head record of run %s (%s) is malformed", runID, p)
	}
	f := strings.Fields(s[len(headPrefix):])
	if len(f) != 3 {
		return ChainEnd{}, false, fmt.Errorf("head record of run %s (%s) is malformed", runID, p)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 || len(f[1]) != macHexLen || len(f[2]) != macHexLen {
		return ChainEnd{}, false, fmt.Errorf("head record of run %s (%s) is malformed", runID, p)
	}
	end = ChainEnd{Lines: n, MAC: f[1], Prev: f[2]}
	if end.Prev == strings.Repeat("-", macHexLen) {
		end.Prev = ""
	}
	return end, true, nil
}
