package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/serve"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// envServer names the variable that gives `warden run` its server when
// --server is not set.
const envServer = "WARDEN_SERVER"

// plane is what a run shares with the control plane: where its events go
// besides the transcript, and where its people decide.
type plane struct {
	sinks   []event.Sink
	queue   queue.Queue
	closers []func() error
}

// sink returns the sink of the plane's destinations, or nil.
func (p *plane) sink() event.Sink {
	if len(p.sinks) == 0 {
		return nil
	}
	return event.Tee(p.sinks...)
}

// Close delivers what is still buffered and closes the connections.
func (p *plane) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// openPlane connects a run to the server at serverURL (default
// $WARDEN_SERVER) and the store at dbURL (default $WARDEN_DB): the run's
// events go to both, and its people decide through the server, else
// through the store. Neither set: a plane with nothing, the console's
// run. A server that cannot be reached or refuses the token is a
// configuration error before anything runs.
func openPlane(ctx context.Context, serverURL, dbURL string) (*plane, error) {
	p := &plane{}
	if serverURL == "" {
		serverURL = os.Getenv(envServer)
	}
	// A run holds a run credential alone (SPEC S4): one derived from an
	// operator's $WARDEN_TOKEN, which then leaves the process's
	// environment, /proc/PID/environ included, with or without a server.
	var token, where string
	var credErr error
	if serverURL != "" {
		token, where, credErr = serve.RunCredential()
	}
	if os.Getenv(wardenhome.EnvToken) != "" || os.Getenv(wardenhome.EnvRunToken) != "" {
		if err := wardenhome.ScrubEnv(wardenhome.EnvToken, wardenhome.EnvRunToken); err != nil {
			fmt.Fprintf(os.Stderr, "warden: warning: %v\n", err)
		}
	}
	if credErr != nil {
		return nil, fmt.Errorf("--server: %w", credErr)
	}
	if u := store.URL(dbURL); u != "" {
		st, err := store.Open(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
		b := st.Buffer() // commits in batches beside the run
		p.sinks = append(p.sinks, b)
		p.queue = st
		p.closers = append(p.closers, b.Close, st.Close)
	}
	if serverURL != "" {
		c := &serveclient.Client{URL: strings.TrimRight(serverURL, "/"), Token: token}
		if err := checkServer(ctx, c, where); err != nil {
			p.Close()
			return nil, err
		}
		p.sinks = append(p.sinks, c)
		p.queue = c
		p.closers = append(p.closers, c.Close)
	}
	return p, nil
}

// checkServer has the server prove itself and take the run's credential
// (where says where it came from), so that a wrong address or credential,
// or a server that cannot prove it is the one the person started, stops
// the run before it starts.
func checkServer(ctx context.Context, c *serveclient.Client, where string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := c.Whoami(ctx)
	var se *serveclient.StatusError
	var ue *serveclient.UnverifiedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return fmt.Errorf("--server: %w (the credential is from %s: set %s to an operator's credential of that server, or %s to its run credential, kept in its $WARDEN_HOME/token)", err, where, wardenhome.EnvToken, wardenhome.EnvRunToken)
	case errors.As(err, &se) && se.Code == http.StatusUnauthorized:
		return fmt.Errorf("--server %s refused warden's credential (from %s): set %s to the token of that server (kept in its $WARDEN_HOME/token)", c.URL, where, wardenhome.EnvToken)
	case errors.As(err, &se):
		return fmt.Errorf("--server %s answered %d to a request for its queue (%s): is it a warden server?", c.URL, se.Code, se.Message)
	}
	return fmt.Errorf("--server %s: the server cannot be reached: %w (start it with `warden serve`)", c.URL, err)
}

const transcriptImportUsage = `usage: warden transcript import [--db URL] FILE...

Loads JSONL transcripts into the store (--db, else $WARDEN_DB, else SQLite
at $WARDEN_HOME/warden.db), so that the panel shows and searches them.
Importing a transcript twice keeps one copy of each event. A transcript
must verify first, as "warden transcript verify" checks it: one that does
not is not imported (exit 2, "FILE:LINE: why" for its first bad line).
`

// transcriptImport implements `warden transcript import`.
func transcriptImport(args []string, stdout, stderr io.Writer) int {
	c := newCommand("warden transcript import", transcriptImportUsage, stderr)
	db := c.dbFlag()
	files, code, ok := c.parse(args, true, stdout)
	if !ok {
		return code
	}
	if len(files) == 0 {
		return c.fail("missing FILE: the transcripts to import")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, store.URL(*db))
	if err != nil {
		fmt.Fprintf(stderr, "warden: %v\n", err)
		return exitUsage
	}
	defer st.Close()
	code = exitOK
	for _, name := range files {
		// Only what warden wrote enters the store (SPEC L8); a last line
		// cut by a crash is reported by Import, as before.
		if _, err := task.VerifyTranscript(name); errors.As(err, new(*seal.ChainError)) {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			code = exitUsage
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "warden: %v\n", err)
			code = exitError
			continue
		}
		n, err := st.Import(ctx, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "warden: %s: %v (%d events stored before it)\n", name, err, n)
			code = max(code, exitError)
			continue
		}
		fmt.Fprintf(stdout, "%s: %d events\n", name, n)
	}
	return code
}
