package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/internal/hook"
)

// methodCall is the one method warden governs.
const methodCall = "tools/call"

// callParams are the parameters of tools/call, read strictly: nothing else
// is accepted (a task augmentation would return the result later, past
// review).
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// readCall reads the parameters of tools/call strictly (SPEC A8).
func readCall(params json.RawMessage) (callParams, error) {
	return readCallWith(params, readCallFast)
}

// readCallWith is readCall reading the parameters that pass CheckNames
// with fast, else, where fast reports false, with encoding/json's decoder.
func readCallWith(params json.RawMessage, fast func(json.RawMessage) (callParams, bool)) (callParams, error) {
	var c callParams
	t := bytes.TrimSpace(params)
	if len(t) == 0 || t[0] != '{' {
		return c, errors.New("params: want an object")
	}
	if err := argjson.CheckNames(t); err != nil {
		return c, fmt.Errorf("params: %w", err)
	}
	c, ok := fast(t)
	if !ok {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return c, fmt.Errorf("params: %w", err)
		}
	}
	if c.Name == "" {
		return c, errors.New("params: no tool name")
	}
	if a := bytes.TrimSpace(c.Arguments); len(a) == 0 || string(a) == "null" {
		c.Arguments = json.RawMessage("{}")
	} else if a[0] != '{' {
		return c, errors.New("params: arguments: want an object")
	}
	return c, nil
}

// readCallFast reads the parameters t of tools/call, which CheckNames
// accepted, as encoding/json would into callParams, without its decoder:
// when every member is spelled as callParams names it and the name is a
// string without escapes (what clients send). Otherwise it reports false,
// and encoding/json reads them (its case-insensitive matching and errors
// included). FuzzX2_CallReadingAgrees checks the two agree.
func readCallFast(t json.RawMessage) (c callParams, ok bool) {
	ok = true
	err := argjson.Each(t, func(key string, v json.RawMessage) bool {
		switch key {
		case "name":
			c.Name, ok = plainString(v)
		case "arguments":
			c.Arguments = v
		case "_meta":
			c.Meta = v
		default:
			ok = false
		}
		return ok
	})
	return c, ok && err == nil
}

// plainString is the JSON string v when it has no escapes (its text is
// then its bytes: CheckNames refused invalid UTF-8 and control
// characters); false for anything else.
func plainString(v json.RawMessage) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// errorResult is a CallToolResult with isError and text: the model reads
// why and can adapt.
func errorResult(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": true})
	return b
}

// stopped is the answer to a call of a terminated session.
func stopped(reason string) json.RawMessage {
	return errorResult("warden stopped this session: " + reason + ". Every later tool call in this session is refused.")
}

// governCall governs one tools/call of the client: the approval policy
// and the boundary, the upstream call, the review of its result. Every
// path answers the client, but a call the client cancelled, which is
// withdrawn silently.
func (s *session) governCall(ctx context.Context, p *pending, m *jsonrpc.Request) {
	result, werr := s.decideCall(ctx, p, m)
	if ctx.Err() != nil && s.ctx.Err() == nil {
		// The client cancelled: nothing is answered.
		return
	}
	s.finish(p, result, werr)
}

func (s *session) decideCall(ctx context.Context, p *pending, m *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	c, err := readCall(m.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: tools/call " + err.Error()}
	}
	if why := s.stoppedWhy(); why != "" {
		return stopped(why), nil
	}
	u, bare, ok := s.route(c.Name)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("warden: tools/call: no MCP server of this session is named by %q (tools are named SERVER__tool)", c.Name)}
	}
	if _, listed := u.cat.get(bare); !listed {
		// A call before any listing, or of a tool added since: what the
		// server declares for it is asked for first.
		if err := s.listTools(ctx, u); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: listing the server's tools to judge the call: " + err.Error()}
		}
	}
	e := &hook.Event{Name: methodCall, Phase: hook.PreTool, SessionID: s.run.RunID, Cwd: s.g.Workdir,
		ToolUseID: fmt.Sprint(m.ID.Raw()), Tool: c.Name, Input: c.Arguments}
	v, err := s.decide(ctx, e)
	if err != nil {
		return errorResult("warden could not decide this call, so it is denied: " + err.Error()), nil
	}
	params := m.Params
	switch v.Decision {
	case hook.Pass, hook.Allow:
	case hook.Modify:
		l, ok := u.cat.get(bare)
		if !ok {
			return errorResult("warden modified this call, but the server never listed the tool, so its input schema is unknown: denied"), nil
		}
		if err := l.validate(v.Input); err != nil {
			return errorResult("warden modified this call, and the modified arguments do not fit the tool's input schema (" + err.Error() + "): denied"), nil
		}
		c.Arguments = v.Input
	case hook.Stop, hook.Block:
		return stopped(s.stop(v.Reason)), nil
	default:
		return errorResult("warden denied this call: " + v.Reason), nil
	}
	if v.Decision == hook.Modify || bare != c.Name {
		// The upstream sees its own tool's name, and what was decided.
		up := c
		up.Name = bare
		if params, err = json.Marshal(up); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	}
	resp, err := s.callUp(ctx, p, u, params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: " + err.Error()}
	}
	e.Phase = hook.PostTool
	e.Input = c.Arguments
	var werr *jsonrpc.Error
	if resp.Error != nil {
		if !errors.As(resp.Error, &werr) {
			werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
		}
		e.Output, e.Failed = werr.Message, true
	} else {
		e.Output, e.Failed = resultText(resp.Result)
	}
	v, err = s.decide(ctx, e)
	if err != nil {
		return errorResult("warden could not review this call's result, so it is withheld: " + err.Error()), nil
	}
	if v.Decision == hook.Block && v.Withheld {
		// Only this result: a person was to review it and none is
		// reachable; the session goes on (SPEC R2: only a terminate ends it).
		return errorResult("warden withheld this call's result: " + v.Reason), nil
	}
	if v.Decision == hook.Block || v.Decision == hook.Stop {
		return stopped(s.stop(v.Reason)), nil
	}
	if werr != nil {
		return nil, werr
	}
	return resp.Result, nil
}

// decide decides one event of the session's run.
func (s *session) decide(ctx context.Context, e *hook.Event) (hook.Verdict, error) {
	s.decideMu.Lock()
	defer s.decideMu.Unlock()
	s.flushNotes()
	if e.Phase == hook.PreTool {
		// A person may have overridden a denial meanwhile (SPEC G12): the
		// retry must see it.
		if err := s.run.Refresh(); err != nil {
			return hook.Verdict{}, fmt.Errorf("reading the run's overrides: %w", err)
		}
	}
	return s.cfg.Decide(ctx, s.host, e, s.run)
}

// stoppedWhy is why the session was terminated, "" while it runs.
func (s *session) stoppedWhy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// stop terminates the session: every later call is refused. It returns
// why it was stopped.
func (s *session) stop(reason string) string {
	if reason == "" {
		reason = "a policy terminated it"
	}
	s.mu.Lock()
	if s.stopped == "" {
		s.stopped = reason
	}
	reason = s.stopped
	s.mu.Unlock()
	return reason
}

// callUp sends a governed call to upstream u and waits for its answer; a
// cancellation withdraws it upstream too.
func (s *session) callUp(ctx context.Context, p *pending, u *upstream, params json.RawMessage) (*jsonrpc.Response, error) {
	return s.ask(ctx, u, p.clientID, methodCall, params)
}

// listTools asks upstream u for its whole tool listing (every page), for
// a call that came before the client listed them.
func (s *session) listTools(ctx context.Context, u *upstream) error {
	cursor := ""
	for page := 0; page < 1000; page++ {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		r, err := s.ask(ctx, u, jsonrpc.ID{}, "tools/list", params)
		if err != nil {
			return err
		}
		if r.Error != nil {
			return r.Error
		}
		if cursor = s.learn(u, r.Result); cursor == "" {
			return nil
		}
	}
	return errors.New("the server's tool listing does not end")
}

// resultText is a CallToolResult as the reviewer reads it: its text
// content, other content as JSON, the structured content; and whether the
// server said the call failed. A result that spells a member twice (a
// duplicate, or two cases of one name, SPEC A8) may be read one way here
// and another by the client, so the reviewer reads all of its text.
func resultText(result json.RawMessage) (string, bool) {
	return resultTextWith(result, (*toolResult).readFast, contentText)
}

// resultTextWith is resultText reading the result that passes CheckNames
// with fast, else, where fast reports false, with encoding/json, and the
// text of each content item with text.
func resultTextWith(result json.RawMessage, fast func(*toolResult, json.RawMessage) bool, text func(json.RawMessage) (string, bool)) (string, bool) {
	if argjson.CheckNames(result) != nil {
		return string(result), false
	}
	var r toolResult
	if !fast(&r, result) {
		r = toolResult{}
		if err := json.Unmarshal(result, &r); err != nil {
			return string(result), false
		}
	}
	var b strings.Builder
	for _, c := range r.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if s, ok := text(c); ok {
			b.WriteString(s)
		} else {
			b.Write(c)
		}
	}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(r.StructuredContent)
	}
	return b.String(), r.IsError
}

// toolResult is what the reviewer reads of a CallToolResult.
type toolResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
}

// readFast reads result, which CheckNames accepted, as json.Unmarshal
// would into r, without its decoder, when it can tell it reads alike:
// every member is spelled as toolResult names it or in ASCII unlike any
// of its names in every case, content is an array, isError a boolean.
// Otherwise it reports false. FuzzX2_CallReadingAgrees checks the two
// agree.
func (r *toolResult) readFast(result json.RawMessage) bool {
	ok := true
	err := argjson.Each(result, func(key string, v json.RawMessage) bool {
		switch key {
		case "content":
			if len(v) == 0 || v[0] != '[' {
				ok = false
			} else {
				ok = json.Unmarshal(v, &r.Content) == nil
			}
		case "structuredContent":
			r.StructuredContent = v
		case "isError":
			switch string(v) {
			case "true":
				r.IsError = true
			case "false":
				r.IsError = false
			default:
				ok = false
			}
		default:
			ok = unlike(key, "content", "structuredContent", "isError")
		}
		return ok
	})
	return ok && err == nil
}

// contentText is the text of a text content item, as encoding/json reads
// its type and text; false for any other item.
func contentText(c json.RawMessage) (string, bool) {
	var t struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	fast, isText := true, false
	err := argjson.Each(c, func(key string, v json.RawMessage) bool {
		switch key {
		case "type":
			var typ string
			typ, fast = plainString(v)
			isText = typ == "text"
		case "text":
			t.Text, fast = plainString(v)
		default:
			fast = unlike(key, "type", "text")
		}
		return fast
	})
	if fast && err == nil && (len(c) > 0 && c[0] == '{') {
		return t.Text, isText
	}
	t.Type, t.Text = "", ""
	if json.Unmarshal(c, &t) == nil && t.Type == "text" {
		return t.Text, true
	}
	return "", false
}

// unlike reports whether key is in ASCII and equal to none of names in any
// case: encoding/json, which matches names regardless of case, ignores it.
func unlike(key string, names ...string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return false
		}
	}
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return false
		}
	}
	return true
}
