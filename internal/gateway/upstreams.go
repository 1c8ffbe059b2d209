package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/wardenhq/warden/policy"
)

// Several upstreams behind one client session (docs/mcp.md, "Several
// upstreams"). The session stands in for one server: it answers
// initialize with what every upstream declared, lists every upstream's
// tools and prompts with its name before theirs (NAME__tool), and routes
// each request to the upstream it names:
//
//   - tools/call and prompts/get by the prefix, stripped before the
//     upstream sees the request;
//   - resources/read, subscribe and unsubscribe by the upstream that
//     listed the URI (or the resource template it fits);
//   - completion/complete by its reference, a prompt's or a resource's;
//   - initialize, logging/setLevel and notifications to every upstream;
//     ping is answered by warden.
//
// Listings are fanned out: a page holds the next page of every upstream
// that has one, and the cursor keeps each upstream's own cursor, so that
// every upstream's pagination is intact. Any other method is refused with
// "method not found": warden does not guess where it goes.

// nameSep separates an upstream's name from its tool's or prompt's name.
const nameSep = "__"

// ValidName checks the name of one of several upstreams: 1 to 32 ASCII
// letters, digits, '-' and '_', without "__" (which separates it from
// the tool's name) and not ending in '_', so that NAME__tool splits one
// way only.
func ValidName(name string) error {
	switch {
	case name == "":
		return errors.New("an upstream needs a NAME when there are several (--upstream NAME=URL|CMD)")
	case len(name) > 32:
		return fmt.Errorf("upstream name %q: longer than 32 characters", name)
	case strings.Contains(name, nameSep) || strings.HasSuffix(name, "_"):
		return fmt.Errorf("upstream name %q: it may not hold %q or end in '_', which separate it from its tools' names (NAME__tool)", name, nameSep)
	}
	for _, c := range []byte(name) {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return fmt.Errorf("upstream name %q: only letters, digits, '-' and '_' are allowed", name)
		}
	}
	return nil
}

// checkUpstreams checks the upstreams of a session: one unnamed, or
// several, each with a valid name of its own.
func checkUpstreams(ups []Upstream) error {
	if len(ups) == 0 {
		return errors.New("no upstream")
	}
	if len(ups) == 1 && ups[0].Name == "" {
		return nil
	}
	names := make([]string, len(ups))
	for i, u := range ups {
		names[i] = u.Name
	}
	return CheckNames(names)
}

// CheckNames checks the names of several upstreams: each valid
// (ValidName), none given twice (their tools' names would collide).
func CheckNames(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if err := ValidName(n); err != nil {
			return err
		}
		if seen[n] {
			return fmt.Errorf("upstream name %q given twice: its tools' names would collide", n)
		}
		seen[n] = true
	}
	return nil
}

// many reports whether the session has several upstreams, whose tools and
// prompts are prefixed.
func (s *session) many() bool { return len(s.ups) > 1 || s.ups[0].name != "" }

// route returns the upstream a tool's or prompt's name (as the client
// calls it) names, and the name in that upstream.
func (s *session) route(name string) (*upstream, string, bool) {
	if !s.many() {
		return s.ups[0], name, true
	}
	pre, bare, ok := strings.Cut(name, nameSep)
	if !ok || bare == "" {
		return nil, "", false
	}
	for _, u := range s.ups {
		if u.name == pre {
			return u, bare, true
		}
	}
	return nil, "", false
}

// serverOf names upstream u in boundary requests and events.
func (s *session) serverOf(u *upstream) string {
	if u.name == "" {
		return s.g.server()
	}
	return u.name
}

// nameOf is " NAME" for a named upstream, for messages.
func (s *session) nameOf(u *upstream) string {
	if u.name == "" {
		return ""
	}
	return " " + u.name
}

// ask sends a request of warden's to upstream u and waits for its answer;
// a cancellation withdraws it upstream.
func (s *session) ask(ctx context.Context, u *upstream, clientID jsonrpc.ID, method string, params json.RawMessage) (*jsonrpc.Response, error) {
	s.mu.Lock()
	if s.upErr != nil {
		err := s.upErr
		s.mu.Unlock()
		return nil, fmt.Errorf("the MCP server is gone: %w", err)
	}
	s.next++
	p := &pending{clientID: clientID, method: method, up: u, upID: s.next, answer: make(chan *jsonrpc.Response, 1)}
	s.toUp[p.upID] = p
	s.mu.Unlock()
	id, _ := jsonrpc.MakeID(float64(p.upID))
	if err := u.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		s.mu.Lock()
		delete(s.toUp, p.upID)
		s.mu.Unlock()
		return nil, fmt.Errorf("sending %s to the MCP server%s: %w", method, s.nameOf(u), err)
	}
	select {
	case r := <-p.answer:
		return r, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.toUp, p.upID)
		s.mu.Unlock()
		_ = u.conn.Write(s.ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: cancelParams(p.upID, "the client cancelled the request")})
		return nil, ctx.Err()
	}
}

// rpcError is an upstream's answer error as the client receives it.
func rpcError(err error) *jsonrpc.Error {
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return werr
}

// routeRequest answers a request of the client other than tools/call in a
// session of several upstreams: routed, fanned out or answered here. A
// request the client cancelled is not answered.
func (s *session) routeRequest(ctx context.Context, p *pending, m *jsonrpc.Request) {
	result, werr := s.routed(ctx, p, m)
	if ctx.Err() != nil && s.ctx.Err() == nil {
		return
	}
	s.finish(p, result, werr)
}

// listKeys are the listings fanned out, and the member of their result
// that holds the items.
var listKeys = map[string]string{"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}

func (s *session) routed(ctx context.Context, p *pending, m *jsonrpc.Request) (json.RawMessage, *jsonrpc.Error) {
	params, err := readParams(m.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: " + m.Method + ": " + err.Error()}
	}
	switch m.Method {
	case "ping":
		return json.RawMessage(`{}`), nil
	case "initialize":
		return s.initialize(ctx, p, m.Params)
	case "server/discover":
		return s.discover(ctx, p, m.Params)
	case "logging/setLevel":
		// An upstream without logging (method not found) is passed over;
		// any other error is the answer.
		set := 0
		for _, r := range s.fanOut(ctx, p, m.Method, func(*upstream) json.RawMessage { return m.Params }) {
			switch {
			case r.err == nil:
				set++
			case r.err.Code != jsonrpc.CodeMethodNotFound:
				return nil, r.err
			}
		}
		if set == 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "warden: logging/setLevel: no MCP server of this session logs"}
		}
		return json.RawMessage(`{}`), nil
	case "prompts/get":
		var name string
		if json.Unmarshal(params["name"], &name) != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: prompts/get: no prompt name"}
		}
		u, bare, ok := s.route(name)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("warden: prompts/get: no MCP server of this session is named by %q (prompts are named SERVER__prompt)", name)}
		}
		params["name"], _ = json.Marshal(bare)
		return s.forward(ctx, p, u, m.Method, params)
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		var uri string
		_ = json.Unmarshal(params["uri"], &uri)
		u := s.owner(uri)
		if u == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("warden: %s: no one MCP server of this session listed resource %q (none, or two)", m.Method, uri)}
		}
		return s.forward(ctx, p, u, m.Method, params)
	case "completion/complete":
		var ref map[string]json.RawMessage
		if json.Unmarshal(params["ref"], &ref) != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: completion/complete: no ref"}
		}
		var kind, name, uri string
		_ = json.Unmarshal(ref["type"], &kind)
		_ = json.Unmarshal(ref["name"], &name)
		_ = json.Unmarshal(ref["uri"], &uri)
		var u *upstream
		if kind == "ref/prompt" {
			var bare string
			if u, bare, _ = s.route(name); u != nil {
				ref["name"], _ = json.Marshal(bare)
				params["ref"], _ = json.Marshal(ref)
			}
		} else {
			u = s.owner(uri)
		}
		if u == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: completion/complete: the reference names no MCP server of this session"}
		}
		return s.forward(ctx, p, u, m.Method, params)
	}
	if key, ok := listKeys[m.Method]; ok {
		return s.list(ctx, p, m.Method, key, params)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "warden: " + m.Method + " is not routed to one of several MCP servers"}
}

// readParams reads a request's parameters as an object's members (none
// for no parameters).
func readParams(raw json.RawMessage) (map[string]json.RawMessage, error) {
	params := map[string]json.RawMessage{}
	if len(raw) == 0 || string(raw) == "null" {
		return params, nil
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, fmt.Errorf("params: want an object: %w", err)
	}
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	return params, nil
}

// forward sends the client's request to upstream u and returns its answer.
func (s *session) forward(ctx context.Context, p *pending, u *upstream, method string, params map[string]json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	r, err := s.ask(ctx, u, p.clientID, method, raw)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: " + err.Error()}
	}
	if r.Error != nil {
		return nil, rpcError(r.Error)
	}
	return r.Result, nil
}

// answer is one upstream's answer to a request fanned out.
type answer struct {
	u      *upstream
	result json.RawMessage
	err    *jsonrpc.Error
}

// fanOut sends method to each upstream params gives parameters for (nil:
// none) at once, and returns their answers in the upstreams' order.
func (s *session) fanOut(ctx context.Context, p *pending, method string, params func(*upstream) json.RawMessage) []answer {
	var out []answer
	done := make(chan struct{})
	for _, u := range s.ups {
		if raw := params(u); raw != nil {
			out = append(out, answer{u: u, result: raw})
		}
	}
	for i := range out {
		go func() {
			defer func() { done <- struct{}{} }()
			a := &out[i]
			r, err := s.ask(ctx, a.u, p.clientID, method, a.result)
			a.result = nil
			switch {
			case err != nil:
				a.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: " + err.Error()}
			case r.Error != nil:
				a.err = rpcError(r.Error)
			default:
				a.result = r.Result
			}
		}()
	}
	for range out {
		<-done
	}
	return out
}

// initialize initializes every upstream with the client's parameters and
// answers with what they declared together: the capabilities of any, the
// protocol version of the first, their instructions each under its name.
func (s *session) initialize(ctx context.Context, p *pending, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	caps := map[string]map[string]json.RawMessage{}
	var order []string
	var version json.RawMessage
	var instructions []string
	for _, a := range s.fanOut(ctx, p, "initialize", func(*upstream) json.RawMessage { return params }) {
		if a.err != nil {
			a.err.Message = "MCP server " + a.u.name + ": " + a.err.Message
			return nil, a.err
		}
		var r struct {
			ProtocolVersion json.RawMessage                       `json:"protocolVersion"`
			Capabilities    map[string]map[string]json.RawMessage `json:"capabilities"`
			Instructions    string                                `json:"instructions"`
		}
		if err := json.Unmarshal(a.result, &r); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: MCP server " + a.u.name + " answered initialize with " + err.Error()}
		}
		if version == nil {
			version = r.ProtocolVersion
		} else if string(version) != string(r.ProtocolVersion) {
			s.logf("MCP server %s speaks protocol %s, the first %s", a.u.name, r.ProtocolVersion, version)
		}
		order = mergeCaps(caps, order, r.Capabilities)
		if r.Instructions != "" {
			instructions = append(instructions, a.u.name+": "+r.Instructions)
		}
	}
	sort.Strings(order)
	return mergedAnswer(map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"serverInfo":      s.serverInfo(),
	}, instructions)
}

// serverInfo is the gateway's name for its client: warden mcp and the
// names of its upstreams.
func (s *session) serverInfo() map[string]string {
	names := make([]string, len(s.ups))
	for i, u := range s.ups {
		names[i] = u.name
	}
	return map[string]string{"name": "warden mcp (" + strings.Join(names, ", ") + ")", "version": "1"}
}

// mergedAnswer is the result of an answer merged from the upstreams' (out),
// with their instructions, when any gave some, each under its name.
func mergedAnswer(out map[string]any, instructions []string) (json.RawMessage, *jsonrpc.Error) {
	if len(instructions) > 0 {
		out["instructions"] = strings.Join(instructions, "\n\n")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return b, nil
}

// mergeCaps adds one upstream's capabilities to caps, those of the
// upstreams before it (a capability any declared, each member true if any
// said so), and returns order with the capabilities new to caps.
func mergeCaps(caps map[string]map[string]json.RawMessage, order []string, add map[string]map[string]json.RawMessage) []string {
	for k, v := range add {
		c, seen := caps[k]
		if !seen {
			c = map[string]json.RawMessage{}
			caps[k] = c
			order = append(order, k)
		}
		for mk, mv := range v {
			if _, ok := c[mk]; !ok || string(mv) == "true" {
				c[mk] = mv
			}
		}
	}
	return order
}

// discover answers server/discover (the stateless revision) for every
// upstream: the revisions all of them serve, the capabilities of any,
// their instructions each under its name.
func (s *session) discover(ctx context.Context, p *pending, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	caps := map[string]map[string]json.RawMessage{}
	var versions []string
	var instructions []string
	for i, a := range s.fanOut(ctx, p, "server/discover", func(*upstream) json.RawMessage { return params }) {
		if a.err != nil {
			a.err.Message = "MCP server " + a.u.name + ": " + a.err.Message
			return nil, a.err
		}
		var r struct {
			SupportedVersions []string                              `json:"supportedVersions"`
			Capabilities      map[string]map[string]json.RawMessage `json:"capabilities"`
			Instructions      string                                `json:"instructions"`
		}
		if err := json.Unmarshal(a.result, &r); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: MCP server " + a.u.name + " answered server/discover with " + err.Error()}
		}
		if i == 0 {
			versions = r.SupportedVersions
		} else {
			var both []string
			for _, v := range versions {
				for _, w := range r.SupportedVersions {
					if v == w {
						both = append(both, v)
					}
				}
			}
			versions = both
		}
		mergeCaps(caps, nil, r.Capabilities)
		if r.Instructions != "" {
			instructions = append(instructions, a.u.name+": "+r.Instructions)
		}
	}
	if versions == nil {
		versions = []string{}
	}
	return mergedAnswer(map[string]any{
		"supportedVersions": versions,
		"capabilities":      caps,
		"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": s.serverInfo()},
	}, instructions)
}

// list answers a listing: the next page of every upstream that has one
// (all of them without a cursor), tools and prompts prefixed with their
// upstream's name, resources' URIs noted as the upstream's. An upstream
// without the method (it lacks the capability) lists nothing.
func (s *session) list(ctx context.Context, p *pending, method, key string, params map[string]json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	var raw string
	_ = json.Unmarshal(params["cursor"], &raw)
	cursors, err := readCursor(raw, len(s.ups))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "warden: " + method + ": " + err.Error()}
	}
	index := map[*upstream]int{}
	answers := s.fanOut(ctx, p, method, func(u *upstream) json.RawMessage {
		i := 0
		for i < len(s.ups) && s.ups[i] != u {
			i++
		}
		c, ok := cursors[i]
		if !ok {
			return nil
		}
		index[u] = i
		q := map[string]json.RawMessage{}
		for k, v := range params {
			q[k] = v
		}
		delete(q, "cursor")
		if c != "" {
			q["cursor"], _ = json.Marshal(c)
		}
		b, _ := json.Marshal(q)
		return b
	})
	items := []json.RawMessage{}
	next := map[int]string{}
	for _, a := range answers {
		if a.err != nil {
			if a.err.Code == jsonrpc.CodeMethodNotFound {
				continue
			}
			a.err.Message = "MCP server " + a.u.name + ": " + a.err.Message
			return nil, a.err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(a.result, &page); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: MCP server " + a.u.name + " answered " + method + " with " + err.Error()}
		}
		if key == "tools" {
			s.learn(a.u, a.result)
		}
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(page[key], &list); err != nil && len(page[key]) > 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: MCP server " + a.u.name + " answered " + method + " with " + err.Error()}
		}
		for _, it := range list {
			switch key {
			case "tools", "prompts":
				var name string
				_ = json.Unmarshal(it["name"], &name)
				it["name"], _ = json.Marshal(a.u.name + nameSep + name)
			case "resources":
				var uri string
				_ = json.Unmarshal(it["uri"], &uri)
				s.own(uri, a.u, false)
			case "resourceTemplates":
				var tmpl string
				_ = json.Unmarshal(it["uriTemplate"], &tmpl)
				s.own(tmpl, a.u, true)
			}
			b, err := json.Marshal(it)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			items = append(items, b)
		}
		var c string
		if json.Unmarshal(page["nextCursor"], &c) == nil && c != "" {
			next[index[a.u]] = c
		}
	}
	out := map[string]any{key: items}
	if len(next) > 0 {
		out["nextCursor"] = makeCursor(next)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return b, nil
}

// makeCursor is warden's cursor of a listing: the cursor of each upstream
// (by its place) that has a next page.
func makeCursor(next map[int]string) string {
	b, _ := json.Marshal(next)
	return base64.RawURLEncoding.EncodeToString(b)
}

// readCursor reads the cursor of a listing of n upstreams: "" is the
// first page of every one; else a cursor makeCursor gave, naming upstreams
// that exist, each with a cursor of its own.
func readCursor(raw string, n int) (map[int]string, error) {
	cursors := map[int]string{}
	if raw == "" {
		for i := 0; i < n; i++ {
			cursors[i] = ""
		}
		return cursors, nil
	}
	bad := errors.New("not a cursor warden gave")
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || json.Unmarshal(b, &cursors) != nil || len(cursors) == 0 {
		return nil, bad
	}
	for i, c := range cursors {
		if i < 0 || i >= n || c == "" {
			return nil, bad
		}
	}
	return cursors, nil
}

// own notes that upstream u listed a resource's URI, or a resource
// template (whose literal beginning, up to its first '{', then stands for
// the URIs it fits).
func (s *session) own(uri string, u *upstream, template bool) {
	if uri == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.uris == nil {
		s.uris = map[string]*upstream{}
	}
	if template {
		if i := strings.IndexByte(uri, '{'); i >= 0 {
			uri = uri[:i]
		}
		s.templates = append(s.templates, ownedPrefix{uri, u})
		return
	}
	if prev, seen := s.uris[uri]; seen && prev != u {
		// Two servers list one URI: either could be answering for the
		// other (a server that lists another's file to be asked for
		// it), so the URI is routed to neither.
		u = nil
	}
	s.uris[uri] = u
}

// ownedPrefix is a resource template's literal beginning and the
// upstream that listed it.
type ownedPrefix struct {
	prefix string
	u      *upstream
}

// owner returns the upstream that listed a resource's URI, else the one
// whose template's longest literal beginning it starts with, else nil: nil
// too when two upstreams listed the URI, or templates of two as long.
func (s *session) owner(uri string) *upstream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.uris[uri]; ok {
		return u
	}
	var best *upstream
	n := -1
	for _, t := range s.templates {
		if !strings.HasPrefix(uri, t.prefix) {
			continue
		}
		switch {
		case len(t.prefix) > n:
			best, n = t.u, len(t.prefix)
		case len(t.prefix) == n && t.u != best:
			best = nil
		}
	}
	return best
}

// CheckPolicyNames checks the tool patterns of policies for a session of
// several upstreams named names, where policies see a call as the client
// makes it (NAME__tool): a pattern whose tool name has no server's name
// before it (write_file) would match no call, and one that names no
// server of the session (zz__write_file) neither, so both are refused at
// start rather than let a rule silently apply to nothing. A glob that
// may cover the prefix (*, *__write_file, fs__*) is accepted.
func CheckPolicyNames(names []string, policies ...[]policy.Entry) error {
	for _, entries := range policies {
		for _, e := range entries {
			var tools []string
			if e.Structured() {
				tools = []string{e.Tool}
			} else {
				m, err := policy.CompileList(e.Tools)
				if err != nil {
					return fmt.Errorf("%s: %w", where(e), err)
				}
				for _, p := range m {
					tools = append(tools, p.String())
				}
			}
			for _, t := range tools {
				if err := checkToolName(names, patternTool(t)); err != nil {
					return fmt.Errorf("%s: %w", where(e), err)
				}
			}
		}
	}
	return nil
}

// where names a policy entry for an error.
func where(e policy.Entry) string {
	if e.Pos.File != "" || e.Pos.Line > 0 {
		return e.Pos.String()
	}
	return "policy entry " + e.Name
}

// checkToolName checks the tool name part of one pattern.
func checkToolName(names []string, tool string) error {
	if tool == "" || strings.HasPrefix(tool, "*") {
		return nil
	}
	pre, _, ok := strings.Cut(tool, nameSep)
	if !ok {
		return fmt.Errorf("the pattern names tool %q, but with several MCP servers tools are named SERVER__tool (%s__%s, or *__%s for any server): it would match no call", tool, names[0], tool, tool)
	}
	if strings.ContainsAny(pre, "*?[") {
		return nil
	}
	for _, n := range names {
		if n == pre {
			return nil
		}
	}
	return fmt.Errorf("the pattern names tool %q of no MCP server %q of this session (%s): it would match no call", tool, pre, strings.Join(names, ", "))
}

// patternTool is the tool name part of a textual pattern: what comes
// before its arguments.
func patternTool(p string) string {
	p = strings.TrimSpace(p)
	if i := strings.IndexByte(p, '('); i >= 0 {
		p = p[:i]
	}
	return strings.TrimSpace(p)
}
