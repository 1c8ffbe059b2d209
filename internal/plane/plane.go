// Package plane connects a run (`warden run`, a hook, `warden mcp`) to the
// control plane: the server (--server, $WARDEN_SERVER) and the store
// (--db, $WARDEN_DB) its events go to and its people decide through.
package plane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/runtoken"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// EnvServer names the variable that gives a run (`warden run`, a hook,
// `warden mcp`) its server when
// --server is not set.
const EnvServer = "WARDEN_SERVER"

// Plane is what a run shares with the control plane: where its events go
// besides the transcript, and where its people decide.
type Plane struct {
	// Sinks receive the run's events.
	Sinks []event.Sink
	// Queue is where the run's people decide; nil: at the console.
	Queue queue.Queue
	// Closers deliver what is buffered and close the connections, in
	// order.
	Closers []func() error
}

// Sink returns the sink of the plane's destinations, or nil.
func (p *Plane) Sink() event.Sink {
	if len(p.Sinks) == 0 {
		return nil
	}
	return event.Tee(p.Sinks...)
}

// Close delivers what is still buffered and closes the connections.
func (p *Plane) Close() error {
	var errs []error
	for _, c := range p.Closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// StoreOpener opens the store at url ("" the default one) for a run: a
// plane whose sink takes the run's events (batched beside it), whose queue
// is the store's, and whose closers commit them and close the store. The
// full warden's is storeplane.Open; warden-hook links no database and has
// none.
type StoreOpener func(ctx context.Context, url string) (*Plane, error)

// ErrNoStore says a store was named to a main that links no database.
var ErrNoStore = errors.New("this program links no database: run the full warden")

// Open connects a run to the server at serverURL (default
// $WARDEN_SERVER) and the store at dbURL (default $WARDEN_DB), which
// openStore opens: the run's events go to both, and its people decide
// through the server, else through the store. Neither set: a plane with
// nothing, the console's run. A server that cannot be reached or refuses
// the token is a configuration error before anything runs.
func Open(ctx context.Context, serverURL, dbURL string, openStore StoreOpener) (*Plane, error) {
	p := &Plane{}
	if serverURL == "" {
		serverURL = os.Getenv(EnvServer)
	}
	// A run holds a run credential alone (SPEC S4): one derived from an
	// operator's $WARDEN_TOKEN, which then leaves the process's
	// environment, /proc/PID/environ included, with or without a server.
	var token, where string
	var credErr error
	if serverURL != "" {
		token, where, credErr = runtoken.Credential()
	}
	if os.Getenv(wardenhome.EnvToken) != "" || os.Getenv(wardenhome.EnvRunToken) != "" {
		if err := wardenhome.ScrubEnv(wardenhome.EnvToken, wardenhome.EnvRunToken); err != nil {
			fmt.Fprintf(os.Stderr, "warden: warning: %v\n", err)
		}
	}
	if credErr != nil {
		return nil, fmt.Errorf("--server: %w", credErr)
	}
	if u := wardenhome.DBURL(dbURL); u != "" {
		if openStore == nil {
			return nil, fmt.Errorf("--db: %w", ErrNoStore)
		}
		sp, err := openStore(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
		p.Sinks = append(p.Sinks, sp.Sinks...)
		p.Queue = sp.Queue
		p.Closers = append(p.Closers, sp.Closers...)
	}
	if serverURL != "" {
		c := &serveclient.Client{URL: strings.TrimRight(serverURL, "/"), Token: token}
		if err := checkServer(ctx, c, where); err != nil {
			p.Close()
			return nil, err
		}
		p.Sinks = append(p.Sinks, c)
		p.Queue = c
		p.Closers = append(p.Closers, c.Close)
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
