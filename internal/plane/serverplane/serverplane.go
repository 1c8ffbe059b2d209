// Package serverplane is the full warden's plane.ServerOpener: a run's
// events go to a `warden serve` (internal/serveclient), and its people
// decide in that server's panel. It is apart from internal/plane so that
// warden-hook, which links no HTTP client, links plane without it.
package serverplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/plane"
	"github.com/wardenhq/warden/internal/serveclient"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// Open connects a run to the server at url with the run credential token
// (from where): the server proves itself and takes the credential first,
// so that a wrong address or credential, or a server that cannot prove it
// is the one the person started, stops the run before it starts.
func Open(ctx context.Context, url, token, where string) (*plane.Plane, error) {
	c := &serveclient.Client{URL: strings.TrimRight(url, "/"), Token: token}
	if err := check(ctx, c, where); err != nil {
		return nil, err
	}
	return &plane.Plane{Sinks: []event.Sink{c}, Queue: c, Closers: []func() error{c.Close}}, nil
}

var _ plane.ServerOpener = Open

// check has the server prove itself and take the run's credential.
func check(ctx context.Context, c *serveclient.Client, where string) error {
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
