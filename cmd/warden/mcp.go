package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/gateway"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hookcmd"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/serve"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/wardenhome"
)

const mcpUsage = `usage: warden mcp [--config FILE] [--approval X] [--review X] [--rules FILE]...
                  [--approvals-reviewer user|auto_review|LIST] [--auto-review-model M]
                  [--server URL] [--db URL] [--timeout D]
                  [--name NAME] [--mode auto|prompt|writes|approve] [--tool-mode TOOL=MODE]...
                  -- UPSTREAM_CMD [ARG]...
       warden mcp --listen HOST:PORT --upstream [NAME=]URL|CMD... [--stateless] [--tls-cert FILE --tls-key FILE] [flags]
       warden mcp --upstream NAME=URL|CMD --upstream NAME=URL|CMD... [flags]

An MCP gateway (SPEC X2): the MCP client starts warden as its stdio server;
warden starts UPSTREAM_CMD as a stdio MCP server and relays everything the two
say, unchanged, but tools/call: each call is decided by the approval policy,
then by the tool's approval mode on the annotations the server declared in
tools/list (a boundary request for the first pass, auto-review or a person),
forwarded, and its result reviewed by the review policy before the client sees
it. A rejected call is an error result with the reason; a terminated session
refuses every later call. The client session is a warden run:
$WARDEN_HOME/runs/RUN_ID.jsonl and the store. See docs/mcp.md.

With --listen, warden serves streamable HTTP instead: each client session
(Mcp-Session-Id) is a run with its own connection to the upstream (an
http(s) URL of a streamable HTTP server, or a command line started per
session). With --stateless, requests of the stateless revision are served
too, each a run of its own (the breaker and overrides do not carry from one
to the next), sharing one connection per upstream; without it they are
refused and clients fall back to a session. The address must be loopback
unless TLS is given, and every request must carry
"Authorization: Bearer $WARDEN_TOKEN" (as warden serve's).

Several --upstream NAME=URL|CMD put several MCP servers behind one client
session (over stdio without --listen): their tools and prompts are listed as
NAME__tool, a call is routed by the prefix (which the server never sees), and
policies see it as NAME__tool(arg='...'); a policy pattern naming a tool
without a server's name is a configuration error. One --upstream without a
name is served as it is.

Exit status: 0 when the client ended the session, 1 when the MCP server died
or the run could not be recorded, 2 for a usage or configuration error.
`

// mcpCmd implements `warden mcp`.
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("warden mcp", mcpUsage, stderr)
	gf := hookcmd.AddFlags(c.fs, "mcp.yaml", false)
	name := c.fs.String("name", "", "the MCP server's `NAME` in boundary requests and the run (default: the command's base name)")
	mode := c.fs.String("mode", "", "the server's approval `MODE`: auto (default: tools not declared read-only that may be destructive or open-world), prompt (every call), writes (every tool not declared read-only), approve (none)")
	var toolModes stringList
	c.fs.Var(&toolModes, "tool-mode", "a tool's own approval mode, `TOOL=MODE` (repeatable)")
	listen := c.fs.String("listen", "", "serve streamable HTTP on `HOST:PORT` instead of stdio")
	var upstreams stringList
	c.fs.Var(&upstreams, "upstream", "the MCP server: `[NAME=]URL|CMD`, an http(s) URL or a command line (repeatable: several servers, each named, tools named NAME__tool)")
	cert := c.fs.String("tls-cert", "", "with --listen, the TLS certificate `FILE` (PEM)")
	key := c.fs.String("tls-key", "", "with --listen, the TLS private key `FILE` (PEM)")
	stateless := c.fs.Bool("stateless", false, "with --listen, serve requests of the stateless revision too, each a run of its own (default: refused, clients fall back to a session)")
	var upstream []string
	for i, a := range args {
		if a == "--" {
			args, upstream = args[:i], args[i+1:]
			break
		}
	}
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.fail("unexpected %q: the MCP server's command goes after --", pos[0])
	}
	// specs are the upstreams; names their names when there are several.
	var specs []upstreamSpec
	var names []string
	switch {
	case len(upstream) > 0 && len(upstreams) > 0:
		return c.fail("give the MCP server's command after --, or --upstream, not both")
	case *listen != "" && len(upstreams) == 0:
		return c.fail("--listen needs an --upstream, and no command after --")
	case len(upstreams) > 0:
		for _, u := range upstreams {
			sp, err := parseUpstream(u, len(upstreams) > 1)
			if err != nil {
				return c.fail("--upstream %q: %v", u, err)
			}
			specs = append(specs, sp)
		}
		if len(specs) > 1 {
			for _, sp := range specs {
				names = append(names, sp.name)
			}
			if err := gateway.CheckNames(names); err != nil {
				return c.fail("--upstream: %v", err)
			}
		} else if *name == "" {
			*name = specs[0].name
		}
	case len(upstream) == 0:
		return c.fail("give the MCP server's command after --")
	default:
		specs = []upstreamSpec{{argv: upstream}}
	}
	if *stateless && *listen == "" {
		return c.fail("--stateless goes with --listen")
	}
	if (*cert == "") != (*key == "") {
		return c.fail("--tls-cert and --tls-key go together")
	}
	var token string
	if *listen != "" {
		host, _, err := net.SplitHostPort(*listen)
		if err != nil {
			return c.fail("--listen %q: %v", *listen, err)
		}
		if !loopbackHost(host) && *cert == "" {
			return c.fail("--listen %s is not a loopback address: serving beyond this machine needs TLS (--tls-cert and --tls-key)", *listen)
		}
		if token, err = serve.OperatorToken(); err != nil || token == "" {
			return c.fail("--listen needs $%s, the token every request must carry (%v)", serve.EnvToken, err)
		}
	}
	g := &gateway.Gateway{Server: *name, Modes: map[string]mcp.Mode{}, Log: stderr}
	if g.Server == "" {
		switch {
		case len(names) > 0:
			g.Server = strings.Join(names, "+")
		case specs[0].url != "":
			g.Server = "mcp"
		default:
			g.Server = serverName(specs[0].argv)
		}
	}
	var err error
	if g.Mode, err = mcp.ParseMode(*mode); err != nil {
		return c.fail("--mode: %v", err)
	}
	for _, tm := range toolModes {
		t, m, ok := strings.Cut(tm, "=")
		if !ok || t == "" {
			return c.fail("--tool-mode %q: want TOOL=MODE", tm)
		}
		if g.Modes[t], err = mcp.ParseMode(m); err != nil || m == "" {
			return c.fail("--tool-mode %q: want TOOL=MODE with MODE auto, prompt, writes or approve", tm)
		}
		if pre, _, ok := strings.Cut(t, "__"); len(names) > 0 && (!ok || !slices.Contains(names, pre)) {
			return c.fail("--tool-mode %q: with several upstreams a tool is NAME__tool, NAME one of %s", tm, strings.Join(names, ", "))
		}
	}
	f, err := gf.Load()
	if err != nil {
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitUsage
	}
	if f.Sandbox != "" {
		fmt.Fprintf(stderr, "warden mcp: %v\n", f.At("sandbox", fmt.Errorf("not a key of warden mcp")))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer gateway.TuneGC()()
	cfg, err := govern.Resolve(f, wardenhome.Home(), wardenhome.KeyPath())
	if err != nil {
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitUsage
	}
	if len(names) > 0 {
		if err := gateway.CheckPolicyNames(names, cfg.ApprovalEntries, cfg.ReviewEntries); err != nil {
			fmt.Fprintf(stderr, "warden mcp: %v\n", err)
			return exitUsage
		}
	}
	closeAll, err := hookcmd.Connect(ctx, cfg, f, true, planes)
	if err != nil {
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitUsage
	}
	g.Config = cfg
	if g.Workdir, err = os.Getwd(); err != nil {
		g.Workdir = ""
	}
	if *listen != "" {
		err := listenMCP(ctx, g, *listen, specs, *stateless, token, *cert, *key, stderr)
		if cerr := closeAll(); err == nil && cerr != nil {
			err = fmt.Errorf("recording the sessions: %w", cerr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "warden mcp: %v\n", err)
			return exitError
		}
		return exitOK
	}
	ups, err := connectUpstreams(ctx, specs, stderr)
	if err != nil {
		closeAll()
		fmt.Fprintf(stderr, "warden mcp: starting the MCP server: %v\n", err)
		return exitError
	}
	client, err := (&sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}, MaxLineLength: maxMCPMessage}).Connect(ctx)
	if err != nil {
		for _, u := range ups {
			u.Conn.Close()
		}
		closeAll()
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitError
	}
	serr := g.ServeMany(ctx, client, ups)
	cerr := closeAll()
	switch {
	case serr != nil:
		fmt.Fprintf(stderr, "warden mcp: %v\n", serr)
		return exitError
	case cerr != nil:
		fmt.Fprintf(stderr, "warden mcp: recording the session: %v\n", cerr)
		return exitError
	}
	return exitOK
}

// maxMCPMessage bounds one message of the client (a tool's arguments can
// carry a whole file): larger is a protocol error that ends the session.
const maxMCPMessage = 16 << 20

// serverName names an MCP server by its command: the base name of the
// first argument that is not a runner (npx, node, uvx, …) or an option.
func serverName(argv []string) string {
	for _, a := range argv {
		base := a[strings.LastIndexAny(a, "/")+1:]
		switch {
		case strings.HasPrefix(a, "-"), base == "npx", base == "node", base == "uvx", base == "python", base == "python3", base == "docker", base == "run":
			continue
		}
		base = strings.TrimPrefix(base, "server-")
		if at := strings.LastIndex(base, "@"); at > 0 {
			base = base[:at]
		}
		if base != "" {
			return base
		}
	}
	return "mcp"
}

// nopWriteCloser is stdout, which closing the session leaves open.
type nopWriteCloser struct{ io.Writer }

// Close implements io.Closer.
func (nopWriteCloser) Close() error { return nil }

// isURL reports whether an upstream is a streamable HTTP endpoint.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// upstreamSpec is one --upstream: its name (several: required), and an
// http(s) URL or a command line.
type upstreamSpec struct {
	name string
	url  string
	argv []string
}

// parseUpstream reads an --upstream value, [NAME=]URL|CMD; named says a
// name is required (several upstreams).
func parseUpstream(v string, named bool) (upstreamSpec, error) {
	var sp upstreamSpec
	if n, rest, ok := strings.Cut(v, "="); ok && n != "" && !strings.ContainsAny(n, "/ ") {
		sp.name, v = n, rest
	} else if named {
		return sp, errors.New("with several upstreams, each is NAME=URL|CMD")
	}
	if isURL(v) {
		sp.url = v
		return sp, nil
	}
	argv, err := shell.Split(v)
	if err != nil || len(argv) == 0 {
		return sp, errors.New("want an http(s) URL or a command line")
	}
	sp.argv = argv
	return sp, nil
}

// connectUpstreams connects to the upstreams of a session (a URL's
// streamable HTTP endpoint, else a command started for it), named when
// there are several; on an error, those connected are closed.
func connectUpstreams(ctx context.Context, specs []upstreamSpec, stderr io.Writer) ([]gateway.Upstream, error) {
	var ups []gateway.Upstream
	for _, sp := range specs {
		conn, err := dialUpstream(ctx, sp, stderr)
		if err != nil {
			for _, u := range ups {
				u.Conn.Close()
			}
			if sp.name != "" {
				err = fmt.Errorf("%s: %w", sp.name, err)
			}
			return nil, err
		}
		u := gateway.Upstream{Conn: conn}
		if len(specs) > 1 {
			u.Name = sp.name
		}
		ups = append(ups, u)
	}
	return ups, nil
}

// dialUpstream connects to one upstream: a URL's streamable HTTP
// endpoint, else a command started for it.
func dialUpstream(ctx context.Context, sp upstreamSpec, stderr io.Writer) (sdk.Connection, error) {
	if sp.url != "" {
		return (&sdk.StreamableClientTransport{Endpoint: sp.url}).Connect(ctx)
	}
	cmd := exec.Command(sp.argv[0], sp.argv[1:]...)
	cmd.Stderr = stderr
	return (&sdk.CommandTransport{Command: cmd}).Connect(ctx)
}

// listenMCP serves g over streamable HTTP on addr until ctx ends; each
// session connects to the upstreams (URLs, else command lines started per
// session), and requests of the stateless revision (when stateless) share
// one connection to each, made on first need.
func listenMCP(ctx context.Context, g *gateway.Gateway, addr string, specs []upstreamSpec, stateless bool, token, cert, key string, stderr io.Writer) error {
	h := &gateway.Handler{Gateway: g, Token: token, Stateless: stateless, Upstreams: func(ctx context.Context) ([]gateway.Upstream, error) {
		return connectUpstreams(ctx, specs, stderr)
	}}
	for _, sp := range specs {
		d := gateway.Dialer{Connect: func(ctx context.Context) (sdk.Connection, error) { return dialUpstream(ctx, sp, stderr) }}
		if len(specs) > 1 {
			d.Name = sp.name
		}
		h.Dialers = append(h.Dialers, d)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "warden mcp: serving %s on %s\n", g.Server, ln.Addr())
	errc := make(chan error, 1)
	go func() {
		if cert != "" {
			errc <- srv.ServeTLS(ln, cert, key)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err = <-errc:
	case <-ctx.Done():
		// The sessions end first: a stream a client holds open (its GET)
		// would otherwise keep the server from shutting down.
		h.Close()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = srv.Shutdown(shut); errors.Is(err, context.DeadlineExceeded) {
			// A stream still open 5 s after the sessions ended (a client
			// that opened its GET again, or a session begun meanwhile,
			// which the Close below ends and records) is closed.
			err = srv.Close()
		}
	}
	h.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
