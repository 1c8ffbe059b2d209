package store

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wardenhq/warden/internal/spool"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// ImportSpool stores what the hooks' spool in $WARDEN_HOME marks: the
// lines their sessions' transcripts gained since the last import, verified
// under warden's state key (internal/spool). Open does it first for the
// default store; `warden serve` does it every spool.Interval. A transcript
// that does not verify is in the result's Refused, and none of its lines
// from the first bad one on is stored.
func (s *Store) ImportSpool(ctx context.Context) (spool.Result, error) {
	home := wardenhome.Home()
	if home == "" {
		return spool.Result{}, nil
	}
	res, err := spool.Drain(ctx, spool.DefaultPaths(home), s.writeEvents)
	if err != nil {
		return res, fmt.Errorf("store: importing the hooks' spool: %w", err)
	}
	return res, nil
}

// Default reports whether the store is the default one, SQLite at
// $WARDEN_HOME/warden.db, which hooks reach through the spool.
func (s *Store) Default() bool {
	if s.engine != EngineSQLite {
		return false
	}
	home := wardenhome.Home()
	if home == "" {
		return false
	}
	want, err := filepath.Abs(filepath.Join(home, "warden.db"))
	if err != nil {
		return false
	}
	got, err := filepath.Abs(s.path)
	return err == nil && got == want
}
