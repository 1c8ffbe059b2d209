package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/gate"
	"github.com/wardenhq/warden/internal/serve"
	"github.com/wardenhq/warden/internal/spool"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/internal/wardenhome"
)

const serveUsage = `usage: warden serve [--addr HOST:PORT] [--db URL] [--insecure-remote] [--tls-cert FILE --tls-key FILE] [--allow-host NAME]...

Serves the HTTP API and the web panel on the store until SIGINT or SIGTERM.
The store is --db, else $WARDEN_DB, else SQLite at $WARDEN_HOME/warden.db;
postgres://… shares one database between replicas and machines.
Every call needs a credential (SPEC S4). Deciding takes an operator's:
$WARDEN_TOKEN (at least 128 bits; $WARDEN_OPERATOR names its holder in
the decisions), or one made by "warden operator add NAME". Runs, hooks and
gateways hold the run credential kept in $WARDEN_HOME/token, which submits
and waits but decides nothing.
An address other than loopback needs TLS, or --insecure-remote.
Requests must name the server by a loopback name (localhost, 127.0.0.1,
[::1]), the host of --addr, or a name given with --allow-host; any other
Host header is refused (421), so a web page cannot reach the server by
rebinding its own name to this machine.
`

// serveCmd implements `warden serve`: the API and panel on a store (SPEC
// S2). It binds loopback by default and refuses any other address without
// TLS unless told otherwise; it stops gracefully on SIGINT or SIGTERM.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden serve", serveUsage, stderr)
	addr := c.fs.String("addr", "127.0.0.1:7878", "the `HOST:PORT` to listen on")
	db := c.dbFlag()
	insecure := c.fs.Bool("insecure-remote", false, "allow an address other than loopback without TLS (the token then crosses the network in clear)")
	cert := c.fs.String("tls-cert", "", "the TLS certificate `FILE` (PEM)")
	key := c.fs.String("tls-key", "", "the TLS private key `FILE` (PEM)")
	deadline := c.fs.Duration("request-deadline", serve.DefaultRequestDeadline, "the `DURATION` a request submitted without a deadline waits before it expires to its fail-safe outcome (0: none)")
	var hosts stringList
	c.fs.Var(&hosts, "allow-host", "a `NAME` the Host header may carry besides loopback names (repeatable; the name people reach the server by)")
	pos, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return c.fail("takes no arguments, got %q", strings.Join(pos, " "))
	}
	if (*cert == "") != (*key == "") {
		return c.fail("--tls-cert and --tls-key go together")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return c.fail("--addr %q: %v", *addr, err)
	}
	if !loopbackHost(host) && *cert == "" && !*insecure {
		return c.fail("--addr %s is not a loopback address: serving beyond this machine needs TLS (--tls-cert and --tls-key), or --insecure-remote to send the token in clear", *addr)
	}
	token, err := serve.OperatorToken()
	if err != nil {
		fmt.Fprintf(stderr, "warden serve: %v\n", err)
		return exitUsage
	}
	operator := os.Getenv(serve.EnvOperator)
	// The operator's credential leaves no trace in /proc/PID/environ,
	// where any process of this user could read it.
	if err := wardenhome.ScrubEnv(serve.EnvToken); err != nil {
		fmt.Fprintf(stderr, "warden serve: warning: %v\n", err)
	}
	runToken, err := serve.RunToken()
	if err != nil {
		fmt.Fprintf(stderr, "warden serve: %v\n", err)
		return exitUsage
	}
	sealer, err := gate.FileSealer(wardenhome.KeyPath())
	if err != nil {
		fmt.Fprintf(stderr, "warden serve: %v\n", err)
		return exitError
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := store.Open(ctx, store.URL(*db))
	if err != nil {
		fmt.Fprintf(stderr, "warden serve: the store: %v\n", err)
		return exitError
	}
	defer st.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "warden serve: %v\n", err)
		return exitError
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if ip := net.ParseIP(host); host != "" && !loopbackHost(host) && (ip == nil || !ip.IsUnspecified()) {
		hosts = append(hosts, host) // the address it was told to listen on names it
	}
	srv := &serve.Server{Store: st, Token: token, Operator: operator, RunToken: runToken, Sealer: sealer, Log: log, Orders: toolbox.Orders(), Hosts: hosts, RequestDeadline: *deadline}
	if *deadline <= 0 {
		srv.RequestDeadline = -1 // none
	}
	// Long polls and event streams end with base, so that a shutdown need
	// not wait for them.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	scheme := "http"
	if *cert != "" {
		scheme = "https"
	}
	fmt.Fprintf(stderr, "warden serve: listening on %s://%s/ (store: %s)\nwarden serve: the token is in %s (the run credential: it submits, never decides)\n", scheme, ln.Addr(), st.Engine(), serve.TokenPath())
	ops, err := st.Operators(ctx)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "warden serve: the operators: %v\n", err)
		return exitError
	case token != "":
		fmt.Fprintf(stderr, "warden serve: operators: $%s and %d more (warden operator add NAME)\n", serve.EnvToken, len(ops))
	case len(ops) == 0:
		fmt.Fprintf(stderr, "warden serve: no operator can decide yet: set $%s, or run `warden operator add NAME`\n", serve.EnvToken)
	default:
		fmt.Fprintf(stderr, "warden serve: operators: %d (warden operator add NAME)\n", len(ops))
	}

	if st.Default() {
		// Hooks mark their sessions in the default store's spool: the
		// panel shows their events a drain later (docs/hooks.md, Speed).
		go drainSpool(ctx, st, log)
	}
	done := make(chan error, 1)
	go func() {
		if *cert != "" {
			done <- hs.ServeTLS(ln, *cert, *key)
		} else {
			done <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "warden serve: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "warden serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cancelBase()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "warden serve: shutdown: %v\n", err)
	}
	return exitOK
}

// loopbackHost reports whether host names only this machine: localhost or
// a loopback IP. An empty host (every interface) is not.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// drainSpool imports what the hooks' spool marks into st every
// spool.Interval until ctx ends, logging a transcript that does not
// verify (its lines from the first bad one on never enter the store) and
// a drain that failed (its marks are left for the next).
func drainSpool(ctx context.Context, st *store.Store, log *slog.Logger) {
	t := time.NewTicker(spool.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		res, err := st.ImportSpool(ctx)
		for _, r := range res.Refused {
			log.Warn("a hook session's transcript does not verify", "err", r)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("draining the hooks' spool", "err", err)
		}
	}
}
