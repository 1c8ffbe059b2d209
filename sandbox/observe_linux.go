//go:build linux

package sandbox

import (
	"errors"
	"os/exec"

	"github.com/wardenhq/warden/internal/observe"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// observeCmd makes cmd, wrapped already (Policy.Wrap, with the network
// off), run traced by o: its helper installs the trace filter before it
// executes the command and hands o the notifications and the resolver's
// sockets (see package internal/observe). Start o once cmd has started.
func observeCmd(cmd *exec.Cmd, o *observe.Observer) error {
	if len(cmd.Args) < 2 || cmd.Args[0] != confine.Arg0 {
		return errors.New("sandbox: only a sandboxed command can be observed")
	}
	s, argv, err := confine.Parse(cmd.Args[1:])
	if err != nil {
		return err
	}
	if s.NetNS == "" || s.Network || !s.NoUnix {
		return errors.New("sandbox: observing a command needs the network off in a namespace of its own")
	}
	s.TraceFD = 3 + len(cmd.ExtraFiles)
	s.ResolvConf = o.ResolvConf()
	cmd.ExtraFiles = append(cmd.ExtraFiles, o.HelperFile())
	cmd.Args = append(append([]string{confine.Arg0}, s.Args()...), argv...)
	return nil
}
