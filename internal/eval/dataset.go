// Package eval measures a reviewer on labelled actions (SPEC V2): it reads
// the JSONL datasets described in the shared datasets' README, runs a
// Reviewer over every item — a trajectory action by action, each with the
// transcript so far — and computes false-allow, false-deny and escalation
// rates overall, by category and by source, with latency percentiles and
// model tokens.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
)

// Item is one labelled item of a dataset.
type Item struct {
	// ID identifies the item ("<source>-<n>").
	ID string `json:"id"`
	// Source is the short name of where the item comes from.
	Source string `json:"source"`
	// Kind is "shell", "tool_call" or "trajectory" (the shared datasets'
	// kinds), or "file_edit" or "network".
	Kind string `json:"kind"`
	// Request is what the user asked, or "".
	Request string `json:"request"`
	// Transcript holds the turns before the action, not including Request.
	Transcript []vocab.Turn `json:"transcript"`
	// Action is the action object as written in the file.
	Action json.RawMessage `json:"action"`
	// Label is vocab.Allow or vocab.Deny.
	Label vocab.Decision `json:"label"`
	// Category is the risk class: one of the four classes of harm
	// (vocab.Class.Harm), vocab.Benign or vocab.Other.
	Category vocab.Class `json:"category"`
	// Ambiguous marks items whose label is defensible but weak.
	Ambiguous bool `json:"ambiguous"`

	// Parsed is Action read by action.Parse.
	Parsed action.Action `json:"-"`
	// File and Line say where the item was read.
	File string `json:"-"`
	Line int    `json:"-"`
}

// keys are the keys every item has, in the order of the schema.
var keys = []string{"id", "source", "kind", "request", "transcript", "action", "label", "category", "ambiguous"}

var (
	kinds = map[string]action.Kind{"shell": action.Shell, "tool_call": action.MCP, "trajectory": action.Sequence,
		"file_edit": action.FileEdit, "network": action.Network}
	roles = map[string]bool{"user": true, "assistant": true, "tool": true}
)

// maxErrors bounds the schema errors one read reports.
const maxErrors = 20

// ReadFile reads a dataset file (see Read).
func ReadFile(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read dataset: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// ReadFiles reads the dataset files paths in order and returns their items
// one after another; the first file that does not read is the error.
func ReadFiles(paths ...string) ([]Item, error) {
	var items []Item
	for _, p := range paths {
		its, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		items = append(items, its...)
	}
	return items, nil
}

// Read reads a dataset in JSON Lines: one item per non-blank line, with
// exactly the keys of the schema (in any order), each of its type:
// strings, a transcript of {role, content} turns (role user, assistant or
// tool), an action object that action.Parse reads and
// whose tool matches the kind (shell → shell, tool_call → mcp_tool_call,
// trajectory → sequence; beyond the shared datasets' schema, file_edit →
// file_edit and network → network, which the first pass's own corpus
// uses), label allow or deny, a known category and a
// boolean ambiguous. Ids must be unique within the file. Errors name
// the line, "name:line: message"; up to 20 are reported together.
func Read(r io.Reader, name string) ([]Item, error) {
	var items []Item
	var errs []error
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		it, err := parseItem(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, line, err))
			if len(errs) >= maxErrors {
				errs = append(errs, fmt.Errorf("%s: too many errors", name))
				break
			}
			continue
		}
		if prev, dup := seen[it.ID]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: id %q repeats the item of line %d", name, line, it.ID, prev))
			continue
		}
		seen[it.ID] = line
		it.File, it.Line = name, line
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", name, line+1, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return items, nil
}

// parseItem reads and checks one line.
func parseItem(b []byte) (Item, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) { // never the Go type it was decoded into
			return Item{}, fmt.Errorf("not a JSON object: got %s", te.Value)
		}
		return Item{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if obj == nil {
		return Item{}, errors.New("not a JSON object")
	}
	var missing, unknown []string
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range obj {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(missing) > 0 {
		return Item{}, fmt.Errorf("missing key(s) %s", strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		return Item{}, fmt.Errorf("unknown key(s) %s (keys: %s)", strings.Join(slices.Sorted(slices.Values(unknown)), ", "), strings.Join(keys, ", "))
	}
	var it Item
	str := func(k string, dst *string) error {
		if err := json.Unmarshal(obj[k], dst); err != nil || isNull(obj[k]) {
			return fmt.Errorf("%q is not a string", k)
		}
		return nil
	}
	var label, category string
	for k, dst := range map[string]*string{"id": &it.ID, "source": &it.Source, "kind": &it.Kind, "request": &it.Request,
		"label": &label, "category": &category} {
		if err := str(k, dst); err != nil {
			return Item{}, err
		}
	}
	it.Label, it.Category = vocab.Decision(label), vocab.Class(category)
	if it.ID == "" {
		return Item{}, errors.New(`"id" is empty`)
	}
	if it.Source == "" {
		return Item{}, errors.New(`"source" is empty`)
	}
	if isNull(obj["ambiguous"]) || json.Unmarshal(obj["ambiguous"], &it.Ambiguous) != nil {
		return Item{}, errors.New(`"ambiguous" is not a boolean`)
	}
	if it.Label != vocab.Allow && it.Label != vocab.Deny {
		return Item{}, fmt.Errorf("label %q: want allow or deny", it.Label)
	}
	if !it.Category.Harm() && it.Category != vocab.Benign && it.Category != vocab.Other {
		return Item{}, fmt.Errorf("category %q: want exfiltration, credential_probing, security_weakening, destructive, benign or other", it.Category)
	}
	tool, ok := kinds[it.Kind]
	if !ok {
		return Item{}, fmt.Errorf("kind %q: want shell, tool_call, trajectory, file_edit or network", it.Kind)
	}
	turns, err := parseTranscript(obj["transcript"])
	if err != nil {
		return Item{}, err
	}
	it.Transcript = turns
	it.Action = append(json.RawMessage(nil), obj["action"]...)
	a, err := action.Parse(it.Action)
	if err != nil {
		return Item{}, err
	}
	if a.Kind != tool {
		return Item{}, fmt.Errorf("kind %s needs an action with tool %q, not %q", it.Kind, tool, a.Kind)
	}
	if a.Kind == action.Sequence {
		for i, s := range a.Actions {
			switch s.Kind {
			case action.Shell, action.MCP, action.Text:
			default:
				return Item{}, fmt.Errorf("action: actions[%d]: a trajectory step is shell, mcp_tool_call or text, not %q", i, s.Kind)
			}
		}
	}
	it.Parsed = a
	return it, nil
}

func parseTranscript(raw json.RawMessage) ([]vocab.Turn, error) {
	var list []map[string]json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &list) != nil {
		return nil, errors.New(`"transcript" is not a list of objects`)
	}
	turns := make([]vocab.Turn, 0, len(list))
	for i, t := range list {
		var turn vocab.Turn
		for k, v := range t {
			var s string
			if isNull(v) || json.Unmarshal(v, &s) != nil {
				return nil, fmt.Errorf("transcript[%d]: %q is not a string", i, k)
			}
			switch k {
			case "role":
				turn.Role = s
			case "content":
				turn.Content = s
			default:
				return nil, fmt.Errorf("transcript[%d]: unknown key %q (keys: role, content)", i, k)
			}
		}
		if _, ok := t["content"]; !ok {
			return nil, fmt.Errorf("transcript[%d]: missing key content", i)
		}
		if !roles[turn.Role] {
			return nil, fmt.Errorf("transcript[%d]: role %q: want user, assistant or tool", i, turn.Role)
		}
		turns = append(turns, turn)
	}
	return turns, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// SharedDir returns the folder of the project's shared labelled datasets:
// $WARDEN_DATASETS when set, else the first shared/datasets folder holding
// *.jsonl files in dir or one of its parents (next to the module root, or
// further up for a worktree); "" when there is none.
func SharedDir(dir string) string {
	if d := os.Getenv("WARDEN_DATASETS"); d != "" {
		return d
	}
	for {
		d := filepath.Join(dir, "shared", "datasets")
		if files, _ := filepath.Glob(filepath.Join(d, "*.jsonl")); len(files) > 0 {
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
