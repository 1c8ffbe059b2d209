// Package plane connects a run (`warden run`, a hook, `warden mcp`) to the
// control plane: the server (--server, $WARDEN_SERVER) and the store
// (--db, $WARDEN_DB) its events go to and its people decide through.
package plane

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/queue"
	"github.com/wardenhq/warden/internal/runtoken"
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

// ServerOpener connects a run to the server at url with the run credential
// token (where says where it came from, for errors): a plane whose sink
// sends the run's events to the server and whose queue is the server's,
// once the server has proved itself and taken the credential. The full
// warden's is serverplane.Open; warden-hook links no HTTP client and has
// none.
type ServerOpener func(ctx context.Context, url, token, where string) (*Plane, error)

// Openers open the parts of the control plane a main links: the store
// and the server. A part left nil is one the main does not link; naming
// it is an error (ErrNoStore, ErrNoServer).
type Openers struct {
	Store  StoreOpener
	Server ServerOpener
}

// ErrNoStore says a store was named to a main that links no database.
var ErrNoStore = errors.New("this program links no database: run the full warden")

// ErrNoServer says a server was named to a main that links no HTTP client.
var ErrNoServer = errors.New("this program links no HTTP client: run the full warden")

// ServerURL returns the server a run is to use: flag (--server), else
// $WARDEN_SERVER; "" for none.
func ServerURL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(EnvServer)
}

// Open connects a run to the server at serverURL (default
// $WARDEN_SERVER) and the store at dbURL (default $WARDEN_DB), which o
// opens: the run's events go to both, and its people decide through the
// server, else through the store. Neither set: a plane with nothing, the
// console's run. A server that cannot be reached or refuses the token is
// a configuration error before anything runs.
func Open(ctx context.Context, serverURL, dbURL string, o Openers) (*Plane, error) {
	p := &Plane{}
	serverURL = ServerURL(serverURL)
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
		if o.Store == nil {
			return nil, fmt.Errorf("--db: %w", ErrNoStore)
		}
		sp, err := o.Store(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
		p.add(sp)
		p.Queue = sp.Queue
	}
	if serverURL != "" {
		if o.Server == nil {
			p.Close()
			return nil, fmt.Errorf("--server: %w", ErrNoServer)
		}
		sp, err := o.Server(ctx, serverURL, token, where)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.add(sp)
		p.Queue = sp.Queue
	}
	return p, nil
}

// add takes q's sinks and closers after p's.
func (p *Plane) add(q *Plane) {
	p.Sinks = append(p.Sinks, q.Sinks...)
	p.Closers = append(p.Closers, q.Closers...)
}
