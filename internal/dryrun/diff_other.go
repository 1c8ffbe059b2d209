//go:build !linux

package dryrun

import (
	"errors"
	"os"

	"github.com/wardenhq/warden/internal/effect"
)

// diff is Linux-only, as dry runs are.
func diff(view *os.File, rep *effect.Report, ignore []string) error {
	return errors.New("dry runs are Linux-only")
}

// reads is Linux-only, as dry runs are.
func reads(receive func(string) (*os.File, error)) []string { return []string{} }
