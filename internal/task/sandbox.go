package task

import (
	"errors"
	"path/filepath"

	"github.com/wardenhq/warden/sandbox"
)

// SandboxConfig is the sandbox section of a task file:
//
//	sandbox: {mode: workspace-write, writable_roots: [../cache], network_access: false}
type SandboxConfig struct {
	// Mode is the sandbox mode name; empty means workspace-write.
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty"`
	// WritableRoots are extra writable roots.
	WritableRoots []string `yaml:"writable_roots,omitempty" json:"writable_roots,omitempty"`
	// NetworkAccess turns the network on.
	NetworkAccess bool `yaml:"network_access,omitempty" json:"network_access,omitempty"`
}

// Policy returns the policy c describes for commands running in workdir.
// Relative writable roots are taken relative to base (the directory of the
// task file), or to workdir when base is empty.
func (c SandboxConfig) Policy(workdir, base string) (sandbox.Policy, error) {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: workdir, NetworkAccess: c.NetworkAccess}
	if c.Mode != "" {
		m, err := sandbox.ParseMode(c.Mode)
		if err != nil {
			return sandbox.Policy{}, err
		}
		p.Mode = m
	}
	if base == "" {
		base = workdir
	}
	for _, r := range c.WritableRoots {
		if r == "" {
			return sandbox.Policy{}, errors.New("sandbox: a writable root is empty")
		}
		if !filepath.IsAbs(r) && base != "" {
			r = filepath.Join(base, r)
		}
		p.WritableRoots = append(p.WritableRoots, r)
	}
	return p, nil
}
