package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/tool"
)

// Phase is where in a host's tool loop an event happens.
type Phase int

// The phases warden governs.
const (
	// PreTool is before a tool call runs: the approval policy decides.
	PreTool Phase = iota + 1
	// PostTool is after it ran: the review policy decides.
	PostTool
	// Permission is the host asking to cross its own boundary (its
	// permission prompt): the boundary decider decides.
	Permission
	// Prompt is the person's new request: a turn starts.
	Prompt
)

// Event is one hook event, read strictly from the host's JSON.
type Event struct {
	// Name is the host's event name (hook_event_name).
	Name  string
	Phase Phase
	// SessionID is the host's session (Cursor: conversation) id.
	SessionID string
	// TurnID identifies the turn where the host says (Codex turn_id,
	// Claude prompt_id, Cursor generation_id).
	TurnID string
	Cwd    string
	// ToolUseID identifies the call where the host says.
	ToolUseID string
	// Tool and Input are the tool called and its input object, as the
	// host names them.
	Tool  string
	Input json.RawMessage
	// Output is what the tool returned (PostTool), as text; Failed says
	// the call failed.
	Output string
	Failed bool
	// Prompt is the person's request (Prompt).
	Prompt string
	// NoModify says the event cannot carry changed input (Cursor's
	// beforeShellExecution): a modification is answered as a denial.
	NoModify bool
}

// Reply is what warden answers a hook event, before the host's format.
type Reply string

// The replies, in the words of docs/hooks.md's table.
const (
	// Pass says nothing: the host proceeds as it would without warden.
	Pass Reply = "pass"
	// Allow approves the call.
	Allow Reply = "allow"
	// Modify approves the call with changed input (Verdict.Input).
	Modify Reply = "modify"
	// Deny rejects the call; the reason reaches the model.
	Deny Reply = "deny"
	// Stop ends the turn (approval terminate).
	Stop Reply = "stop"
	// Ask leaves the call to the host's own prompt to a person.
	Ask Reply = "ask"
	// Block is a review's terminate after the call ran.
	Block Reply = "block"
)

// Verdict is warden's decision on one event.
type Verdict struct {
	Decision Reply
	// Input is the modified input, for Modify.
	Input json.RawMessage
	// Reason says why; it reaches the model where the host passes it on.
	Reason string
	// Context is text for the model's context where the host injects it
	// (the notes of a person's override, SPEC G12).
	Context string
	// Withheld says a Block after the call withholds only this result: a
	// person was to review it and none is reachable here. The run goes
	// on; it is no review's terminate (SPEC R2).
	Withheld bool
}

// Answer is what the hook process prints and exits with.
type Answer struct {
	Stdout []byte
	Stderr string
	Code   int
}

// Host is one coding agent's hook protocol, as data.
type Host struct {
	// Name is the host's name on warden's command line (claude-code).
	Name string
	// Tools says what the host's tools are, by the name the host gives them
	// in hook events; MCP tools are named mcp__SERVER__TOOL.
	Tools map[string]Spec
	// Ask says the host has a usable "ask": a person at the host decides
	// an escalation. Without it, an escalation waits for warden's queue or
	// auto-review.
	Ask bool
	// Modifies says the host takes changed input before a call (a
	// modification, a call confined to warden's sandbox).
	Modifies bool
	// parse reads one event; answer writes a verdict on it; fail is the
	// deny of a hook that could not decide.
	parse func(data []byte) (*Event, error)
	// tool, when set, resolves a called tool (a gateway's tools, described
	// by their server); task names the run in its start record ("" for
	// hook:NAME); command is the command named in denials that need a
	// person ("" for warden hook).
	tool          func(name, cwd string) tool.Tool
	task, command string
	answer        func(e *Event, v Verdict) Answer
	fail          func(reason string) Answer
}

// Hosts returns the hosts warden speaks to, by name.
func Hosts() []string {
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// hosts holds the hosts by name; each is described in its own file.
var hosts = map[string]*Host{claude.Name: claude, codex.Name: codex, cursor.Name: cursor, gemini.Name: gemini}

// Lookup returns the host name, or an error listing the hosts.
func Lookup(name string) (*Host, error) {
	if h, ok := hosts[name]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("unknown host %q (hosts: %s)", name, strings.Join(Hosts(), ", "))
}

// Parse reads one hook event of h strictly (SPEC A8): one JSON object
// with no duplicate names or names differing only by case, an event h
// sends, with exactly the fields that event has and the required ones
// present, each of its type. Anything else is an error.
func (h *Host) Parse(data []byte) (*Event, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("%s: the hook input is not a JSON object", h.Name)
	}
	if err := argjson.CheckNames(data); err != nil {
		return nil, fmt.Errorf("%s: hook input: %w", h.Name, err)
	}
	return h.parse(data)
}

// Answer writes v as h answers event e.
func (h *Host) Answer(e *Event, v Verdict) Answer { return h.answer(e, v) }

// Fail is h's deny of an event warden could not decide (the input did
// not parse, the store or server could not be reached, an internal error):
// never silence, never an exit code the host reads as "proceed".
func (h *Host) Fail(reason string) Answer {
	return h.fail("warden could not decide this, so it is denied: " + reason)
}

// fields is a strict reading of a host's event object: its members by
// name, checked against what an event may and must carry.
type members map[string]json.RawMessage

// readMembers reads the members of an object CheckNames accepted.
func readMembers(host string, data []byte) (members, error) {
	var m members
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: hook input: %w", host, err)
	}
	return m, nil
}

// check refuses a member not in allowed and a required one missing.
func (m members) check(host, event string, required, optional []string) error {
	allowed := map[string]bool{}
	for _, k := range required {
		allowed[k] = true
		if _, ok := m[k]; !ok {
			return fmt.Errorf("%s: %s event without %s", host, event, k)
		}
	}
	for _, k := range optional {
		allowed[k] = true
	}
	var unknown []string
	for k := range m {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: %s event with unknown field(s) %s", host, event, strings.Join(unknown, ", "))
	}
	return nil
}

// str reads member k as a string ("" when absent); null is accepted where
// nullable says so.
func (m members) str(k string, nullable bool) (string, error) {
	raw, ok := m[k]
	if !ok {
		return "", nil
	}
	if nullable && string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: want a string", k)
	}
	return s, nil
}

// object reads member k as a JSON object.
func (m members) object(k string) (json.RawMessage, error) {
	raw, ok := m[k]
	if !ok {
		return nil, nil
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%s: want an object", k)
	}
	return raw, nil
}

// kinds checks that member k, when present, is one of the JSON types
// given ('{' object, '[' array, '"' string, 'b' boolean, 'n' number).
func (m members) kinds(k string, kinds string) error {
	raw, ok := m[k]
	if !ok {
		return nil
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return fmt.Errorf("%s: empty", k)
	}
	c := t[0]
	switch {
	case c == 't' || c == 'f':
		c = 'b'
	case c == '-' || (c >= '0' && c <= '9'):
		c = 'n'
	}
	if !strings.ContainsRune(kinds, rune(c)) {
		return fmt.Errorf("%s: a value of the wrong type", k)
	}
	return nil
}

// text renders a tool's output for a reviewer: a JSON string as its text,
// anything else as its JSON.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// marshal writes v as one line of JSON.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only plain maps of strings and raw JSON are written here.
		panic(err)
	}
	return append(b, '\n')
}

// strictObject decodes the JSON object raw into v strictly (SPEC A8): no
// duplicate names, no names differing only by case, no unknown names.
func strictObject(raw json.RawMessage, v any) error {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("want an object")
	}
	return tool.DecodeArguments("the hook input", raw, v)
}

// marshalObject writes a map as a JSON object.
func marshalObject(m map[string]any) json.RawMessage {
	b := marshal(m)
	return json.RawMessage(bytes.TrimSpace(b))
}

// Gateway returns the host of an MCP gateway (warden mcp, SPEC X2): its
// events are the tool calls of one client session, which a gateway builds
// itself (no hook input is parsed, no answer written); tool resolves a
// called name to the tool as the upstream server described it; task names
// the run in its start record. It has no ask of its own: a person decides
// through warden's queue. It takes changed arguments.
func Gateway(task string, tool func(name, cwd string) tool.Tool) *Host {
	return &Host{Name: "mcp", Modifies: true, tool: tool, task: task, command: "warden mcp",
		fail: func(reason string) Answer { return Answer{Stderr: reason + "\n", Code: 2} }}
}

// commandName is the command a denial that needs a person names.
func (h *Host) commandName() string {
	if h.command != "" {
		return h.command
	}
	return "warden hook"
}
