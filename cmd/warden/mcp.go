package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/gateway"
	"github.com/wardenhq/warden/internal/mcp"
)

const mcpUsage = `usage: warden mcp [--config FILE] [--approval X] [--review X] [--rules FILE]...
                  [--approvals-reviewer user|auto_review|LIST] [--auto-review-model M]
                  [--server URL] [--db URL] [--timeout D]
                  [--name NAME] [--mode auto|prompt|writes|approve] [--tool-mode TOOL=MODE]...
                  -- UPSTREAM_CMD [ARG]...

An MCP gateway (SPEC X2): the MCP client starts warden as its stdio server;
warden starts UPSTREAM_CMD as a stdio MCP server and relays everything the two
say, unchanged, but tools/call: each call is decided by the approval policy,
then by the tool's approval mode on the annotations the server declared in
tools/list (a boundary request for the first pass, auto-review or a person),
forwarded, and its result reviewed by the review policy before the client sees
it. A rejected call is an error result with the reason; a terminated session
refuses every later call. The client session is a warden run:
$WARDEN_HOME/runs/RUN_ID.jsonl and the store. See docs/mcp.md.

Exit status: 0 when the client ended the session, 1 when the MCP server died
or the run could not be recorded, 2 for a usage or configuration error.
`

// mcpCmd implements `warden mcp`.
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("warden mcp", mcpUsage, stderr)
	gf := addGovernFlags(c.fs, "mcp.yaml", false)
	name := c.fs.String("name", "", "the MCP server's `NAME` in boundary requests and the run (default: the command's base name)")
	mode := c.fs.String("mode", "", "the server's approval `MODE`: auto (default: tools not declared read-only that may be destructive or open-world), prompt (every call), writes (every tool not declared read-only), approve (none)")
	var toolModes stringList
	c.fs.Var(&toolModes, "tool-mode", "a tool's own approval mode, `TOOL=MODE` (repeatable)")
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
	if len(upstream) == 0 {
		return c.fail("give the MCP server's command after --")
	}
	g := &gateway.Gateway{Server: *name, Modes: map[string]mcp.Mode{}, Log: stderr}
	if g.Server == "" {
		g.Server = serverName(upstream)
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
	}
	f, err := gf.load()
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
	cfg, closeAll, err := governConfig(ctx, f, true)
	if err != nil {
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitUsage
	}
	g.Config = cfg
	if g.Workdir, err = os.Getwd(); err != nil {
		g.Workdir = ""
	}
	cmd := exec.Command(upstream[0], upstream[1:]...)
	cmd.Stderr = stderr
	up, err := (&sdk.CommandTransport{Command: cmd}).Connect(ctx)
	if err != nil {
		closeAll()
		fmt.Fprintf(stderr, "warden mcp: starting the MCP server: %v\n", err)
		return exitError
	}
	client, err := (&sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}, MaxLineLength: maxMCPMessage}).Connect(ctx)
	if err != nil {
		up.Close()
		closeAll()
		fmt.Fprintf(stderr, "warden mcp: %v\n", err)
		return exitError
	}
	serr := g.Serve(ctx, client, up)
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
