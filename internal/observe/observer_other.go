//go:build !linux

package observe

import (
	"errors"
	"os"
)

// Observer watches one traced command (Linux only).
type Observer struct{}

// New fails: observing needs seccomp user notification (Linux).
func New() (*Observer, error) {
	return nil, errors.New("observe: needs Linux (seccomp user notification)")
}

// HelperFile is nil here.
func (o *Observer) HelperFile() *os.File { return nil }

// ResolvConf is empty here.
func (o *Observer) ResolvConf() string { return "" }

// Start does nothing here.
func (o *Observer) Start() {}

// Stop returns nothing here.
func (o *Observer) Stop() (Effects, error) { return Effects{}, nil }
