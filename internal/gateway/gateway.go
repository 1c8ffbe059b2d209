package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/tool"
)

// Gateway fronts one MCP server (the upstream) for MCP clients and governs
// their tool calls. One Gateway serves any number of client sessions, each
// a warden run.
type Gateway struct {
	// Config decides calls and results: the approval and review policies,
	// the boundary decider, the queue a person decides in, where runs are
	// recorded: a governed session's, as warden hook's, for a host named
	// "mcp".
	Config *govern.Config
	// Server names the upstream in boundary requests and run names.
	Server string
	// Mode is the upstream's approval mode (SPEC G2; "" is auto); Modes
	// gives a tool its own.
	Mode  mcp.Mode
	Modes map[string]mcp.Mode
	// Workdir is recorded as the runs' working directory.
	Workdir string
	// Log, when set, receives the protocol problems warden answered
	// (malformed messages, unknown ids) and upstream failures.
	Log io.Writer

	// key is warden's state key, loaded for the first session.
	keyOnce sync.Once
	key     *seal.Key
	keyErr  error
}

// stateKey returns warden's state key, loaded once for every session.
func (g *Gateway) stateKey() (*seal.Key, error) {
	g.keyOnce.Do(func() {
		g.key, g.keyErr = seal.LoadOrCreate(g.Config.Paths.Key)
	})
	if g.keyErr != nil {
		return nil, fmt.Errorf("warden state: %w", g.keyErr)
	}
	return g.key, nil
}

// Serve relays one client session between client and upstream until the
// client or the upstream ends it, governing each tools/call. The session
// is a warden run, recorded as it goes; Serve closes both connections. It
// returns nil when the client ended the session, and an error when the
// upstream did, or the run could not be recorded.
func (g *Gateway) Serve(ctx context.Context, client, upstream sdk.Connection) error {
	return g.serve(ctx, client, []Upstream{{Conn: upstream}}, nil)
}

// Upstream is one MCP server of a client session: its connection, and
// its name, which prefixes its tools and prompts (NAME__tool) when a
// session has several (ServeMany).
type Upstream struct {
	Name string
	Conn sdk.Connection
	// cat, when set, is what the upstream listed of its tools before this
	// session (a shared connection's, for requests of the stateless
	// revision).
	cat *catalog
}

// ServeMany is Serve with several upstreams behind one client session
// (docs/mcp.md, "Several upstreams"): each upstream's tools and prompts
// are listed as NAME__tool, a call is routed by its prefix, which the
// upstream never sees, and a resource by the upstream that listed its
// URI. Names must be valid (ValidName) and distinct. One upstream without
// a name is Serve: nothing prefixed.
func (g *Gateway) ServeMany(ctx context.Context, client sdk.Connection, ups []Upstream) error {
	return g.serve(ctx, client, ups, nil)
}

// serve is ServeMany, telling opened (when set) of the session once it is
// open.
func (g *Gateway) serve(ctx context.Context, client sdk.Connection, ups []Upstream, opened func(*session)) error {
	s, err := g.open(ctx, client, ups)
	if err != nil {
		client.Close()
		for _, u := range ups {
			u.Conn.Close()
		}
		return err
	}
	if opened != nil {
		opened(s)
	}
	return s.relay()
}

// session is one client session, relayed.
type session struct {
	g      *Gateway
	ctx    context.Context
	cancel context.CancelFunc
	client sdk.Connection
	// ups are the upstreams; one without a name is the single upstream
	// every message but tools/call is relayed to as it is.
	ups      []*upstream
	host     *hook.Host
	cfg      *hook.Config
	run      *govern.Session
	decideMu sync.Mutex // one decision of the session at a time

	mu sync.Mutex
	// next numbers the requests warden sends the upstream and the client.
	next int64
	// byClient are the client's requests not answered yet, by the client's
	// id; toUp the requests sent upstream, by warden's id.
	byClient map[jsonrpc.ID]*pending
	toUp     map[int64]*pending
	// fromUp are the upstreams' requests forwarded to the client, by
	// warden's id, with the upstream and its id.
	fromUp map[int64]fromUpstream
	// stopped is why the session was terminated ("" while it runs); upErr
	// why the upstream is gone.
	stopped string
	upErr   error
	calls   sync.WaitGroup
	// work runs the governed calls and routed requests.
	work *workers
	// uris are the resources' URIs each upstream listed, templates the
	// literal beginnings of its resource templates (several upstreams).
	uris      map[string]*upstream
	templates []ownedPrefix
	// notes are events to record at the next decision (recorded outside
	// one, they would wait for a person deciding).
	notes []event.Data
}

// fromUpstream is a request of an upstream, forwarded to the client.
type fromUpstream struct {
	up *upstream
	id jsonrpc.ID
}

// upstream is one MCP server of a session, and what it declared of its
// tools.
type upstream struct {
	// name prefixes the upstream's tools and prompts ("" for the single
	// unnamed upstream: nothing is prefixed).
	name string
	conn sdk.Connection
	cat  *catalog
}

// pending is a request in flight.
type pending struct {
	clientID jsonrpc.ID
	method   string
	// up is the upstream the request was sent to.
	up *upstream
	// upID is warden's id of the request upstream (0 before it is sent).
	upID int64
	// cancel withdraws a governed call; answer, when set, receives the
	// upstream's answer instead of the client.
	cancel context.CancelFunc
	answer chan *jsonrpc.Response
}

func (g *Gateway) open(ctx context.Context, client sdk.Connection, ups []Upstream) (*session, error) {
	if g.Config == nil {
		return nil, errors.New("gateway: no configuration: every call must be governed")
	}
	if err := checkUpstreams(ups); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	id := client.SessionID()
	if id == "" {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		id = hex.EncodeToString(b[:])
	}
	s := &session{g: g, client: client,
		byClient: map[jsonrpc.ID]*pending{}, toUp: map[int64]*pending{}, fromUp: map[int64]fromUpstream{}}
	for _, u := range ups {
		cat := u.cat
		if cat == nil {
			cat = &catalog{}
		}
		s.ups = append(s.ups, &upstream{name: u.Name, conn: u.Conn, cat: cat})
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.work = newWorkers(s.ctx)
	server := g.Server
	if server == "" {
		server = "mcp"
	}
	s.host = hook.Gateway("mcp:"+server, func(name, _ string) tool.Tool {
		u, bare, ok := s.route(name)
		if !ok {
			return &mcpTool{server: server, name: name, bare: name}
		}
		l, _ := u.cat.get(bare)
		return &mcpTool{server: s.serverOf(u), name: name, bare: bare, l: l}
	})
	key, err := g.stateKey()
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	// The session's id is the transport's, made at random by warden for
	// this session (Handler), or made here: a new run, which no other
	// process opens.
	run, err := govern.Open(g.Config.Paths, "mcp", id, g.Config.Sink, govern.Options{Key: key, New: true})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	s.run = run
	cfg := hook.Config{Config: *g.Config, Crossing: s.crossing}
	s.cfg = &cfg
	cfg.Start(s.host, run, g.Workdir)
	return s, nil
}

// relay relays until either side ends the session.
func (s *session) relay() error {
	var upDone sync.WaitGroup
	for _, u := range s.ups {
		upDone.Add(1)
		go func() {
			defer upDone.Done()
			s.readUpstream(u)
		}()
	}
	cerr := s.readClient()
	s.cancel()
	s.calls.Wait()
	for _, u := range s.ups {
		u.conn.Close()
	}
	upDone.Wait()
	s.client.Close()
	s.mu.Lock()
	upErr := s.upErr
	s.mu.Unlock()
	end := event.RunEnd{Status: event.StatusCompleted}
	if upErr != nil && !errors.Is(upErr, errClientGone) {
		end.Status = event.StatusError
	}
	s.decideMu.Lock()
	s.flushNotes()
	s.run.Events.Emit(end)
	err := s.run.Close()
	s.decideMu.Unlock()
	if cerr != nil {
		return cerr
	}
	if upErr != nil && !errors.Is(upErr, errClientGone) {
		return upErr
	}
	return err
}

// errClientGone ends the upstream's side when the client ended the
// session.
var errClientGone = errors.New("the client ended the session")

// logf notes a protocol problem.
func (s *session) logf(format string, args ...any) { s.g.logf(format, args...) }

// logf notes a protocol problem or an upstream failure on Log.
func (g *Gateway) logf(format string, args ...any) {
	if g.Log != nil {
		fmt.Fprintf(g.Log, "warden mcp: "+format+"\n", args...)
	}
}

// readClient reads the client's messages until it ends the session: nil
// at its end of stream, an error when the stream broke (after answering a
// parse error).
func (s *session) readClient() error {
	for {
		msg, err := s.client.Read(s.ctx)
		if err != nil {
			if errors.Is(err, io.EOF) || s.ctx.Err() != nil {
				return nil
			}
			if recoverable(err) {
				s.logf("from the client: %v", err)
				s.reply(nil, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "warden: not a JSON-RPC message: " + err.Error()})
				continue
			}
			// The stream cannot be read past this point.
			s.logf("from the client: %v", err)
			s.reply(nil, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "warden: " + err.Error()})
			return fmt.Errorf("reading the client: %w", err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.ID.IsValid() {
				s.clientRequest(m)
			} else {
				s.clientNotification(m)
			}
		case *jsonrpc.Response:
			s.clientResponse(m)
		}
	}
}

// recoverable reports whether a read error concerned one message the
// stream went on after (a JSON value that is not a JSON-RPC message),
// rather than the stream itself (malformed JSON, a frame over the limit).
func recoverable(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	if errors.As(err, &typ) {
		return true
	}
	msg := err.Error()
	for _, fatal := range []string{"exceeds", "limit", "trailing data", "invalid character"} {
		if strings.Contains(msg, fatal) {
			return false
		}
	}
	return true
}

// reply answers the client: result or werr, for the client's id.
func (s *session) reply(result json.RawMessage, id jsonrpc.ID, werr *jsonrpc.Error) {
	resp := &jsonrpc.Response{ID: id, Result: result}
	if werr != nil {
		resp.Error, resp.Result = werr, nil
	}
	if err := s.client.Write(s.ctx, resp); err != nil {
		s.logf("answering the client: %v", err)
	}
}

// clientRequest takes a request of the client: tools/call is governed,
// anything else forwarded with warden's id.
func (s *session) clientRequest(m *jsonrpc.Request) {
	s.mu.Lock()
	if _, dup := s.byClient[m.ID]; dup {
		s.mu.Unlock()
		s.logf("the client reused id %v of a request in flight", m.ID.Raw())
		s.reply(nil, m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("warden: id %v is already in use by a request in flight", m.ID.Raw())})
		return
	}
	if s.upErr != nil {
		upErr := s.upErr
		s.mu.Unlock()
		s.reply(nil, m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: the MCP server is gone: " + upErr.Error()})
		return
	}
	p := &pending{clientID: m.ID, method: m.Method}
	s.byClient[m.ID] = p
	if m.Method == methodCall || s.many() {
		// A call is governed; with several upstreams, a request is
		// routed or fanned out (upstreams.go). Either may wait on an
		// upstream, so neither holds up the client's other messages.
		ctx, cancel := context.WithCancel(s.ctx)
		p.cancel = cancel
		s.calls.Add(1)
		s.mu.Unlock()
		s.work.run(func() {
			defer s.calls.Done()
			defer cancel()
			if m.Method == methodCall {
				s.governCall(ctx, p, m)
			} else {
				s.routeRequest(ctx, p, m)
			}
		})
		return
	}
	s.next++
	p.upID = s.next
	p.up = s.ups[0]
	s.toUp[p.upID] = p
	s.mu.Unlock()
	s.sendUp(p, m.Method, m.Params)
}

// sendUp sends request p upstream with warden's id; a failure answers the
// client.
func (s *session) sendUp(p *pending, method string, params json.RawMessage) {
	id, _ := jsonrpc.MakeID(float64(p.upID))
	if err := p.up.conn.Write(s.ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		s.mu.Lock()
		delete(s.toUp, p.upID)
		s.mu.Unlock()
		s.finish(p, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: sending to the MCP server: " + err.Error()})
	}
}

// finish answers the client's request p and forgets it.
func (s *session) finish(p *pending, result json.RawMessage, werr *jsonrpc.Error) {
	s.mu.Lock()
	_, live := s.byClient[p.clientID]
	if live && s.byClient[p.clientID] == p {
		delete(s.byClient, p.clientID)
	}
	s.mu.Unlock()
	if !live {
		return
	}
	s.reply(result, p.clientID, werr)
}

// clientNotification forwards a notification of the client; a
// cancellation withdraws the governed call it names.
func (s *session) clientNotification(m *jsonrpc.Request) {
	if m.Method == "notifications/cancelled" {
		id, reason, ok := readCancel(m.Params)
		if !ok {
			s.logf("a cancellation that does not parse")
			return
		}
		s.withdraw(id, reason)
		return
	}
	for _, u := range s.ups {
		if err := u.conn.Write(s.ctx, &jsonrpc.Request{Method: m.Method, Params: m.Params}); err != nil {
			s.logf("forwarding %s: %v", m.Method, err)
		}
	}
}

// withdraw takes back the client's request id: a governed call is
// cancelled (its queued request withdrawn, its upstream call cancelled),
// another request's cancellation forwarded upstream. Nothing is answered.
func (s *session) withdraw(id jsonrpc.ID, reason string) {
	s.mu.Lock()
	p, ok := s.byClient[id]
	if ok {
		delete(s.byClient, id)
	}
	s.mu.Unlock()
	switch {
	case !ok:
	case p.cancel != nil:
		// The governed call cancels its own upstream request.
		p.cancel()
	case p.upID != 0:
		m := &jsonrpc.Request{Method: "notifications/cancelled", Params: cancelParams(p.upID, reason)}
		if err := p.up.conn.Write(s.ctx, m); err != nil {
			s.logf("forwarding a cancellation: %v", err)
		}
	}
}

// clientResponse forwards the client's answer to a request of the
// upstream, with the upstream's id; an answer to no such request is
// dropped.
func (s *session) clientResponse(m *jsonrpc.Response) {
	from, ok := take(s, s.fromUp, m.ID)
	if !ok {
		s.logf("the client answered a request never made (id %v): dropped", m.ID.Raw())
		return
	}
	out := &jsonrpc.Response{ID: from.id, Result: m.Result, Error: m.Error}
	if err := from.up.conn.Write(s.ctx, out); err != nil {
		s.logf("forwarding an answer to the MCP server: %v", err)
	}
}

// readUpstream reads upstream u's messages until it ends; then every
// request in flight is answered with an error.
func (s *session) readUpstream(u *upstream) {
	for {
		msg, err := u.conn.Read(s.ctx)
		if err != nil {
			if s.ctx.Err() != nil {
				err = errClientGone
			} else if recoverable(err) && !errors.Is(err, io.EOF) {
				s.logf("from the MCP server%s: %v", s.nameOf(u), err)
				continue
			}
			s.upstreamGone(u, err)
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			s.upstreamResponse(m)
		case *jsonrpc.Request:
			s.upstreamRequest(u, m)
		}
	}
}

// upstreamGone answers every request in flight with an error: upstream
// u is gone, and with it the session (with several upstreams too: the
// client listed tools it could no longer call).
func (s *session) upstreamGone(u *upstream, err error) {
	if errors.Is(err, io.EOF) {
		err = errors.New("the MCP server" + s.nameOf(u) + " closed its output")
	} else if s.many() && !errors.Is(err, errClientGone) {
		err = fmt.Errorf("MCP server %s: %w", u.name, err)
	}
	s.mu.Lock()
	if s.upErr == nil || errors.Is(s.upErr, errClientGone) {
		s.upErr = err
	}
	var waiting []*pending
	for id, p := range s.toUp {
		delete(s.toUp, id)
		waiting = append(waiting, p)
	}
	s.mu.Unlock()
	if errors.Is(err, errClientGone) {
		return
	}
	s.logf("the MCP server is gone: %v", err)
	s.note(event.Error{Message: "the MCP server is gone: " + err.Error()})
	werr := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "warden: the MCP server is gone: " + err.Error()}
	for _, p := range waiting {
		if p.answer != nil {
			p.answer <- &jsonrpc.Response{Error: werr}
			continue
		}
		s.finish(p, nil, werr)
	}
	// Nothing more can be relayed: once the governed calls have answered,
	// the client's stream is closed so that the session ends.
	go func() {
		s.calls.Wait()
		s.client.Close()
	}()
}

// upstreamResponse routes the upstream's answer to who asked: a governed
// call, warden's own listing, or the client (with its own id).
func (s *session) upstreamResponse(m *jsonrpc.Response) {
	p, ok := take(s, s.toUp, m.ID)
	if !ok {
		s.logf("the MCP server answered a request never made (id %v): dropped", m.ID.Raw())
		return
	}
	if p.answer != nil {
		p.answer <- m
		return
	}
	if p.method == "tools/list" && m.Error == nil {
		s.learn(p.up, m.Result)
	}
	var werr *jsonrpc.Error
	if m.Error != nil {
		if !errors.As(m.Error, &werr) {
			werr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.Error.Error()}
		}
	}
	s.finish(p, m.Result, werr)
}

// learn records a tools/list page of upstream u; a tool that changed
// since its first listing is an event (SPEC G2: a "rug pull").
func (s *session) learn(u *upstream, result json.RawMessage) string {
	changed, next, err := u.cat.learn(result)
	if err != nil {
		s.logf("%v", err)
		return ""
	}
	for _, name := range changed {
		s.note(event.Warning{Message: fmt.Sprintf("MCP tool %s/%s changed its description, schema or annotations since it was first listed; its calls are boundary requests from now on", s.serverOf(u), name)})
	}
	return next
}

// upstreamRequest forwards a request or notification of upstream u
// (sampling, elicitation, roots, ping, progress, logging, list changes)
// to the client, a request with warden's id.
func (s *session) upstreamRequest(u *upstream, m *jsonrpc.Request) {
	out := &jsonrpc.Request{Method: m.Method, Params: m.Params}
	if m.ID.IsValid() {
		s.mu.Lock()
		s.next++
		n := s.next
		s.fromUp[n] = fromUpstream{up: u, id: m.ID}
		s.mu.Unlock()
		out.ID, _ = jsonrpc.MakeID(float64(n))
	} else if m.Method == "notifications/cancelled" {
		// The upstream withdraws its own request: name it by warden's id.
		id, reason, ok := readCancel(m.Params)
		if !ok {
			return
		}
		s.mu.Lock()
		var n int64
		for k, v := range s.fromUp {
			if v.up == u && v.id == id {
				n = k
				delete(s.fromUp, k)
				break
			}
		}
		s.mu.Unlock()
		if n == 0 {
			return
		}
		out.Params = cancelParams(n, reason)
	}
	if err := s.client.Write(s.ctx, out); err != nil {
		s.logf("forwarding %s to the client: %v", m.Method, err)
	}
}

// server is the upstream's name.
func (g *Gateway) server() string {
	if g.Server == "" {
		return "mcp"
	}
	return g.Server
}

// mode is the approval mode of tool.
func (g *Gateway) mode(name string) mcp.Mode {
	if m, ok := g.Modes[name]; ok {
		return m
	}
	if g.Mode == "" {
		return mcp.Auto
	}
	return g.Mode
}

// crossing is the boundary request a call makes by its tool's declared
// annotations in its mode, or by a listing that changed (SPEC G2). A call
// the approval policy approved was allowed by a rule, which the mode does
// not ask again; a tool that changed since the rule's author saw it is
// asked about all the same.
func (s *session) crossing(call tool.Call, approved bool) *boundary.Request {
	var decl mcp.Tools
	u, bare, ok := s.route(call.Function)
	if !ok {
		return &boundary.Request{Permission: boundary.MCP, Server: s.g.server(), Tool: call.Function, Reason: "no MCP server of this session lists the tool"}
	}
	server := s.serverOf(u)
	l, known := u.cat.get(bare)
	if known {
		decl.Declare(server, bare, l.Annotations)
	}
	m := s.g.mode(call.Function)
	var req *boundary.Request
	if !approved {
		req = decl.Check(m, server, bare)
	}
	if known && l.changed && m != mcp.Approve {
		why := "the tool's description, schema or annotations changed since it was first listed (a tool that changes under the client is suspect)"
		if req != nil {
			why += "; " + req.Reason
		}
		req = &boundary.Request{Permission: boundary.MCP, Server: server, Tool: bare, Reason: why}
	}
	return req
}

// note keeps an event for the run, recorded at the next decision or when
// the session ends.
func (s *session) note(d event.Data) {
	s.mu.Lock()
	s.notes = append(s.notes, d)
	s.mu.Unlock()
}

// flushNotes records the events noted; the caller holds decideMu.
func (s *session) flushNotes() {
	s.mu.Lock()
	notes := s.notes
	s.notes = nil
	s.mu.Unlock()
	for _, d := range notes {
		s.run.Events.Emit(d)
	}
}

// readCancel reads the parameters of notifications/cancelled.
func readCancel(params json.RawMessage) (id jsonrpc.ID, reason string, ok bool) {
	var c struct {
		RequestID any    `json:"requestId"`
		Reason    string `json:"reason,omitempty"`
	}
	if json.Unmarshal(params, &c) != nil {
		return id, "", false
	}
	id, err := jsonrpc.MakeID(c.RequestID)
	return id, c.Reason, err == nil && id.IsValid()
}

// cancelParams are the parameters of notifications/cancelled for warden's
// request id.
func cancelParams(id int64, reason string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"requestId": id, "reason": reason})
	return b
}

// take removes and returns the entry of warden's request id in m.
func take[V any](s *session, m map[int64]V, id jsonrpc.ID) (V, bool) {
	n, isInt := id.Raw().(int64)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := m[n]
	delete(m, n)
	return v, ok && isInt
}
