// Package install writes warden's hooks into a coding agent's own
// configuration (`warden hook install`, `warden hook doctor`), merging with
// what is there, and records Codex's trust of them. It is apart from
// package hook so that warden-hook, which answers hooks and installs none,
// links no TOML reader.
package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/jsonobj"
)

// Setup says where a host keeps its hook configuration and which of its
// events warden is installed on.
type Setup struct {
	// User and Project are the configuration file of each scope, relative
	// to the person's home directory and to the project's directory.
	User, Project string
	// Events are the events warden handles, each with its matcher ("" for
	// none: the event has no tool to match).
	Events []Registration
	// Timeout is the handler's timeout in the host's unit, above warden's
	// own escalation timeout, so that warden's denial, not the host's
	// timeout (which some hosts read as "proceed"), ends a wait.
	Timeout int
	// Name, when set, names the handler (Gemini CLI shows it).
	Name string
	// Flat says the events' lists hold handlers, not matcher groups
	// (Cursor).
	Flat bool
	// Version is the file's "version" a host requires (Cursor: 1).
	Version int
	// FailClosed is the handler's switch, where the host has one, that
	// makes a hook that crashes or times out block the action instead of
	// letting it through (Cursor's failClosed).
	FailClosed string
}

// Registration is one event warden is installed on.
type Registration struct {
	Event, Matcher string
	// Label is the event's name in Codex's trust keys.
	Label string
}

// setups are the hosts' hook configurations.
var setups = map[string]Setup{
	"claude-code": {User: ".claude/settings.json", Project: ".claude/settings.json", Timeout: 900, Events: []Registration{
		{Event: "PreToolUse", Matcher: "*"}, {Event: "PermissionRequest", Matcher: "*"},
		{Event: "PostToolUse", Matcher: "*"}, {Event: "PostToolUseFailure", Matcher: "*"}, {Event: "UserPromptSubmit"}}},
	"codex": {User: ".codex/hooks.json", Project: ".codex/hooks.json", Timeout: 900, Events: []Registration{
		{Event: "PreToolUse", Matcher: "*", Label: "pre_tool_use"}, {Event: "PermissionRequest", Matcher: "*", Label: "permission_request"},
		{Event: "PostToolUse", Matcher: "*", Label: "post_tool_use"}, {Event: "UserPromptSubmit", Label: "user_prompt_submit"}}},
	"gemini": {User: ".gemini/settings.json", Project: ".gemini/settings.json", Timeout: 900000, Name: "warden", Events: []Registration{
		{Event: "BeforeTool"}, {Event: "AfterTool"}, {Event: "BeforeAgent"}}},
	"cursor": {User: ".cursor/hooks.json", Project: ".cursor/hooks.json", Flat: true, Version: 1, Timeout: 900, FailClosed: "failClosed", Events: []Registration{
		{Event: "preToolUse"}, {Event: "beforeShellExecution"}, {Event: "beforeMCPExecution"},
		{Event: "postToolUse"}, {Event: "beforeSubmitPrompt"}}},
}

// Place says where to install: the scope's directories.
type Place struct {
	// Scope is "user" or "project".
	Scope string
	// Home is the person's home directory; Project the project's.
	Home, Project string
	// CodexHome is $CODEX_HOME ("" for ~/.codex): Codex's user files and
	// the config.toml that records which hooks the person trusts.
	CodexHome string
	// Command is the command the host runs: warden's absolute path, quoted
	// for the shell, then "hook HOST"; or warden-hook's, then "HOST".
	Command string
	// Timeout, when not 0, is the handlers' timeout in the host's unit
	// instead of the host's Setup.Timeout.
	Timeout int
}

// File returns the configuration file h's hooks are installed in.
func (p Place) File(h *hook.Host) (string, error) {
	s, ok := setups[h.Name]
	if !ok {
		return "", fmt.Errorf("%s: no hook configuration known", h.Name)
	}
	switch p.Scope {
	case "user":
		if h.Name == "codex" && p.CodexHome != "" {
			return filepath.Join(p.CodexHome, "hooks.json"), nil
		}
		return filepath.Join(p.Home, s.User), nil
	case "project":
		return filepath.Join(p.Project, s.Project), nil
	}
	return "", fmt.Errorf("scope %q: want user or project", p.Scope)
}

// load reads h's configuration file at p: its path, h's setup, the file's
// object and its hooks.
func (p Place) load(h *hook.Host) (path string, s Setup, top, hooks ordered, err error) {
	if path, err = p.File(h); err != nil {
		return
	}
	s = setups[h.Name]
	if top, err = readObject(path); err != nil {
		return
	}
	if hooks, err = top.object("hooks"); err != nil {
		err = fmt.Errorf("%s: hooks: %w", path, err)
	}
	return
}

// Report is what install or doctor found and did, one line each; OK says
// the host runs warden's hooks as installed.
type Report struct {
	Lines []string
	OK    bool
}

func (r *Report) say(format string, args ...any) {
	r.Lines = append(r.Lines, fmt.Sprintf(format, args...))
}

// Install writes warden's hooks into h's configuration at p, merging with
// what is there: other hooks and settings are kept, warden's own handlers
// replaced, so that installing twice changes nothing; the file is backed
// up (FILE.warden-backup-TIME) before it changes. With uninstall, warden's
// handlers are removed instead. For Codex, the hooks are also recorded as
// trusted in Codex's config.toml, since Codex silently skips hooks nobody
// trusted.
func Install(h *hook.Host, p Place, uninstall bool) (Report, error) {
	var r Report
	path, s, top, hooks, err := p.load(h)
	if err != nil {
		return r, err
	}
	for _, reg := range s.Events {
		list, err := hooks.list(reg.Event)
		if err != nil {
			return r, fmt.Errorf("%s: hooks.%s: %w", path, reg.Event, err)
		}
		list = withoutWarden(list, h.Name, s.Flat)
		if !uninstall {
			list = append(list, s.entry(reg, p.Command, p.Timeout))
		}
		hooks.set(reg.Event, list)
	}
	top.set("hooks", hooks)
	if s.Version != 0 {
		if _, ok := top.get("version"); !ok {
			top.set("version", s.Version)
		}
	}
	changed, err := writeObject(path, top)
	if err != nil {
		return r, err
	}
	switch {
	case changed && uninstall:
		r.say("removed warden's hooks from %s", path)
	case changed:
		r.say("installed warden's hooks in %s (events: %s)", path, s.eventNames())
	default:
		r.say("%s already as wanted: nothing changed", path)
	}
	if h.Name == "codex" {
		if err := codexTrust(&r, p, path, hooks, uninstall); err != nil {
			return r, err
		}
	}
	r.OK = true
	return r, nil
}

func (s Setup) eventNames() string {
	var names []string
	for _, e := range s.Events {
		names = append(names, e.Event)
	}
	return strings.Join(names, ", ")
}

// entry is warden's handler (in its matcher group) for one event, with
// timeout (0: the host's Setup.Timeout) and the host's fail-closed switch.
func (s Setup) entry(reg Registration, command string, timeout int) json.RawMessage {
	handler := ordered{{"type", "command"}, {"command", command}}
	if s.Flat {
		handler = ordered{{"command", command}}
	}
	if s.Name != "" {
		handler = ordered{{"name", s.Name}, {"type", "command"}, {"command", command}}
	}
	if timeout == 0 {
		timeout = s.Timeout
	}
	if timeout > 0 {
		handler = append(handler, member{"timeout", timeout})
	}
	if s.FailClosed != "" {
		handler = append(handler, member{s.FailClosed, true})
	}
	var v ordered
	switch {
	case s.Flat:
		v = handler
	case reg.Matcher != "":
		v = ordered{{"matcher", reg.Matcher}, {"hooks", []any{handler}}}
	default:
		v = ordered{{"hooks", []any{handler}}}
	}
	b, _ := json.Marshal(v) // strings and numbers
	return b
}

// isWarden reports whether command is a warden hook of host: `warden hook
// HOST` or `warden-hook HOST`.
func isWarden(command, host string) bool {
	f := strings.Fields(command)
	if len(f) >= 2 && strings.Trim(filepath.Base(f[0]), `'"`) == FastCommand {
		return f[1] == host
	}
	return len(f) >= 3 && strings.Trim(filepath.Base(f[0]), `'"`) == "warden" && f[1] == "hook" && f[2] == host
}

// FastCommand is the name of warden-hook, `warden hook` without the model
// SDKs (cmd/warden-hook): install writes it where it sits beside warden.
const FastCommand = "warden-hook"

// Runner says which command a hook command runs: "warden-hook (the fast
// path)" or "warden".
func Runner(command string) string {
	if f := strings.Fields(command); len(f) > 0 && strings.Trim(filepath.Base(f[0]), `'"`) == FastCommand {
		return FastCommand + " (the fast path)"
	}
	return "warden"
}

// withoutWarden removes warden's handlers of host from an event's list,
// and the groups they leave empty.
func withoutWarden(list []json.RawMessage, host string, flat bool) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range list {
		if flat {
			var hd struct{ Command string }
			if json.Unmarshal(raw, &hd) == nil && isWarden(hd.Command, host) {
				continue
			}
			out = append(out, raw)
			continue
		}
		g, err := parseObject(raw)
		if err != nil {
			out = append(out, raw)
			continue
		}
		handlers, err := g.list("hooks")
		if err != nil {
			out = append(out, raw)
			continue
		}
		var kept []json.RawMessage
		for _, hr := range handlers {
			var hd struct{ Command string }
			if json.Unmarshal(hr, &hd) == nil && isWarden(hd.Command, host) {
				continue
			}
			kept = append(kept, hr)
		}
		switch {
		case len(kept) == len(handlers):
			out = append(out, raw)
		case len(kept) > 0:
			g.set("hooks", kept)
			b, _ := json.Marshal(g)
			out = append(out, b)
		}
	}
	return out
}

// Doctor says whether h runs warden's hooks as installed at p: the events
// registered, the command there, and for Codex whether it trusts them (it
// skips hooks nobody trusted, or whose definition changed since) and, at
// project scope, whether it loads the project's configuration at all.
func Doctor(h *hook.Host, p Place) (Report, error) {
	r := Report{OK: true}
	path, s, _, hooks, err := p.load(h)
	if err != nil {
		return r, err
	}
	for _, reg := range s.Events {
		list, _ := hooks.list(reg.Event)
		found := ""
		for _, c := range commandsIn(list, s.Flat) {
			if isWarden(c, h.Name) {
				found = c
			}
		}
		switch {
		case found == "":
			r.OK = false
			r.say("%s: %s runs no warden hook: run `warden hook install %s --scope %s`", path, reg.Event, h.Name, p.Scope)
		case found != p.Command:
			r.say("%s: %s runs %q (this warden is %q)", path, reg.Event, found, p.Command)
		default:
			r.say("%s: %s runs %s", path, reg.Event, Runner(found))
		}
	}
	if h.Name == "codex" {
		codexDoctor(&r, p, path, hooks)
	}
	if h.Name == "gemini" && p.Scope == "project" {
		r.say("Gemini CLI runs project hooks only in a trusted folder (it asks, or GEMINI_CLI_TRUST_WORKSPACE=true); the user scope needs no trust")
	}
	return r, nil
}

// commandsIn lists the commands of an event's handlers.
func commandsIn(list []json.RawMessage, flat bool) []string {
	var out []string
	for _, raw := range list {
		if flat {
			var hd struct{ Command string }
			if json.Unmarshal(raw, &hd) == nil {
				out = append(out, hd.Command)
			}
			continue
		}
		var g struct{ Hooks []struct{ Command string } }
		if json.Unmarshal(raw, &g) == nil {
			for _, hd := range g.Hooks {
				out = append(out, hd.Command)
			}
		}
	}
	return out
}

// codexHandler is one handler of Codex's hooks.json with what its trust
// is keyed by.
type codexHandler struct {
	key, hash, command string
}

// codexHandlers lists warden's handlers in Codex's hooks.json at path (as
// the object hooks), each with the key and hash Codex records its trust
// under: "PATH:EVENT_LABEL:GROUP:HANDLER", and the SHA-256 of the
// handler's normalized identity (codex-rs/hooks/src/engine/discovery.rs,
// command_hook_hash; checked against `codex app-server`'s hooks/list).
func codexHandlers(path string, hooks ordered) []codexHandler {
	var out []codexHandler
	for _, reg := range setups["codex"].Events {
		list, _ := hooks.list(reg.Event)
		for gi, raw := range list {
			var g struct {
				Matcher *string `json:"matcher"`
				Hooks   []struct {
					Type          string  `json:"type"`
					Command       string  `json:"command"`
					Timeout       *int64  `json:"timeout"`
					Async         bool    `json:"async"`
					StatusMessage *string `json:"statusMessage"`
				} `json:"hooks"`
			}
			if json.Unmarshal(raw, &g) != nil {
				continue
			}
			for hi, hd := range g.Hooks {
				if hd.Type != "command" || !isWarden(hd.Command, "codex") {
					continue
				}
				timeout := int64(600)
				if hd.Timeout != nil {
					timeout = max(*hd.Timeout, 1)
				}
				handler := map[string]any{"type": "command", "command": hd.Command, "timeout": timeout, "async": hd.Async}
				if hd.StatusMessage != nil {
					handler["statusMessage"] = *hd.StatusMessage
				}
				identity := map[string]any{"event_name": reg.Label, "hooks": []any{handler}}
				if g.Matcher != nil && reg.Matcher != "" {
					identity["matcher"] = *g.Matcher
				}
				out = append(out, codexHandler{key: fmt.Sprintf("%s:%s:%d:%d", path, reg.Label, gi, hi), hash: canonicalHash(identity), command: hd.Command})
			}
		}
	}
	return out
}

// canonicalHash is Codex's version_for_toml of v: SHA-256 of its JSON with
// keys sorted, compact, as serde_json writes it (no HTML escaping).
func canonicalHash(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and bools
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Codex's config.toml block of warden's trust records.
const (
	trustBegin = "# BEGIN warden hook trust (written by `warden hook install codex`; do not edit)"
	trustEnd   = "# END warden hook trust"
)

// codexConfig returns the path of Codex's user config.toml.
func codexConfig(p Place) string {
	if p.CodexHome != "" {
		return filepath.Join(p.CodexHome, "config.toml")
	}
	return filepath.Join(p.Home, ".codex", "config.toml")
}

// codexTrust records warden's handlers at path as trusted in Codex's
// config.toml (hooks.state."KEY".trusted_hash), in a block of its own that
// it replaces; other settings are left as they are.
func codexTrust(r *Report, p Place, path string, hooks ordered, uninstall bool) error {
	cfg := codexConfig(p)
	data, err := os.ReadFile(cfg)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rest := removeBlock(string(data))
	var state struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(rest, &state); err != nil {
		return fmt.Errorf("%s: %w", cfg, err)
	}
	var block strings.Builder
	if !uninstall {
		for _, hd := range codexHandlers(path, hooks) {
			if old, ok := state.Hooks.State[hd.key]; ok {
				if old.TrustedHash != hd.hash {
					return fmt.Errorf("%s trusts another definition of the hook %s; remove its [hooks.state] table, then install again", cfg, hd.key)
				}
				continue
			}
			fmt.Fprintf(&block, "[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(hd.key), tomlString(hd.hash))
		}
	}
	out := strings.TrimRight(rest, "\n")
	if block.Len() > 0 {
		if out != "" {
			out += "\n\n"
		}
		out += trustBegin + "\n" + block.String() + trustEnd
	}
	if out != "" {
		out += "\n"
	}
	if out == string(data) {
		return nil
	}
	if err := backupAndWrite(cfg, []byte(out), data != nil); err != nil {
		return err
	}
	if uninstall {
		r.say("removed warden's hook trust from %s", cfg)
	} else {
		r.say("recorded warden's hooks as trusted in %s (Codex skips hooks nobody trusted)", cfg)
	}
	return nil
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // JSON's escapes are TOML's for these strings
	return string(b)
}

// removeBlock removes warden's trust block from a config.toml's text.
func removeBlock(s string) string {
	i := strings.Index(s, trustBegin)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], trustEnd)
	if j < 0 {
		return s[:i]
	}
	return strings.TrimRight(s[:i], "\n") + "\n" + strings.TrimLeft(s[i+j+len(trustEnd):], "\n")
}

// codexDoctor says whether Codex trusts warden's hooks at path, and, at
// project scope, whether it loads the project's configuration.
func codexDoctor(r *Report, p Place, path string, hooks ordered) {
	cfg := codexConfig(p)
	data, _ := os.ReadFile(cfg)
	var c struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
				Enabled     *bool  `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if _, err := toml.Decode(string(data), &c); err != nil {
		r.OK = false
		r.say("%s does not parse (%v): Codex will not start", cfg, err)
		return
	}
	for _, hd := range codexHandlers(path, hooks) {
		st, ok := c.Hooks.State[hd.key]
		switch {
		case ok && st.Enabled != nil && !*st.Enabled:
			r.OK = false
			r.say("Codex SKIPS %s: it is disabled in %s", hd.key, cfg)
		case !ok || st.TrustedHash == "":
			r.OK = false
			r.say("Codex SKIPS %s: nobody trusted it (run `warden hook install codex`)", hd.key)
		case st.TrustedHash != hd.hash:
			r.OK = false
			r.say("Codex SKIPS %s: it changed since it was trusted (run `warden hook install codex`)", hd.key)
		default:
			r.say("Codex trusts %s", hd.key)
		}
	}
	if p.Scope == "project" {
		root, _ := filepath.Abs(p.Project)
		if c.Projects[root].TrustLevel != "trusted" {
			r.OK = false
			r.say("Codex SKIPS the project's hooks: %s is not a trusted project; trust it in Codex, or add to %s:\n[projects.%s]\ntrust_level = \"trusted\"", root, cfg, tomlString(root))
		}
	}
}

// ordered is a JSON object with its members in order, so that a merged
// settings file keeps the person's order.
type ordered []member

type member struct {
	Key string
	Val any
}

// MarshalJSON writes the members in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	return jsonobj.Marshal(len(o), func(i int) (string, any) { return o[i].Key, o[i].Val })
}

// parseObject reads a JSON object with its members in order, each value
// raw; a key given twice is an error.
func parseObject(data []byte) (ordered, error) {
	members, err := jsonobj.Parse(data)
	if err != nil {
		return nil, err
	}
	o := make(ordered, 0, len(members))
	for _, m := range members {
		if _, dup := o.get(m.Key); dup {
			return nil, fmt.Errorf("%q given twice", m.Key)
		}
		o = append(o, member{m.Key, m.Value})
	}
	return o, nil
}

func (o ordered) get(k string) (any, bool) {
	for _, m := range o {
		if m.Key == k {
			return m.Val, true
		}
	}
	return nil, false
}

func (o *ordered) set(k string, v any) {
	for i, m := range *o {
		if m.Key == k {
			(*o)[i].Val = v
			return
		}
	}
	*o = append(*o, member{k, v})
}

// object returns member k as an ordered object (empty when absent).
func (o ordered) object(k string) (ordered, error) {
	v, ok := o.get(k)
	if !ok {
		return ordered{}, nil
	}
	switch x := v.(type) {
	case ordered:
		return x, nil
	case json.RawMessage:
		return parseObject(x)
	}
	return nil, errors.New("not an object")
}

// list returns member k as a list of raw values (empty when absent).
func (o ordered) list(k string) ([]json.RawMessage, error) {
	v, ok := o.get(k)
	if !ok {
		return nil, nil
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, errors.New("not a list")
	}
	return out, nil
}

// readObject reads the JSON object of a settings file; a missing file is
// an empty object, a file that is not a JSON object an error (never
// overwritten).
func readObject(path string) (ordered, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(bytes.TrimSpace(data)) == 0 {
		return ordered{}, nil
	}
	if err != nil {
		return nil, err
	}
	o, err := parseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (not changed)", path, err)
	}
	return o, nil
}

// writeObject writes o to path, indented, when it differs from what is
// there, backing the old file up first; changed says it wrote.
func writeObject(path string, o ordered) (changed bool, err error) {
	b, err := json.Marshal(o)
	if err != nil {
		return false, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return false, err
	}
	out.WriteByte('\n')
	old, rerr := os.ReadFile(path)
	if rerr == nil {
		if same(old, out.Bytes()) {
			return false, nil
		}
	}
	return true, backupAndWrite(path, out.Bytes(), rerr == nil)
}

// same reports whether two JSON texts are the same value, members in the
// same order.
func same(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// backupAndWrite keeps the old file as FILE.warden-backup-TIME (when there
// is one), then replaces path with data atomically.
func backupAndWrite(path string, data []byte, backup bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if backup {
		old, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		bak := path + ".warden-backup-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.WriteFile(bak, old, mode); err != nil {
			return fmt.Errorf("backing up %s: %w", path, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
