// Package storeplane is the full warden's plane.StoreOpener: a run's
// events go to the store (internal/store) in batches, and its people
// decide through the store's queue. It is apart from internal/plane so
// that warden-hook, which links no database, links plane without it.
package storeplane

import (
	"context"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/plane"
	"github.com/wardenhq/warden/internal/store"
)

// Open opens the store at url ("" the default one) for a run: its sink is
// the store's buffer, which commits in batches beside the run, its queue
// the store, and its closers commit what is buffered and close the store.
func Open(ctx context.Context, url string) (*plane.Plane, error) {
	st, err := store.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	b := st.Buffer()
	return &plane.Plane{Sinks: []event.Sink{b}, Queue: st, Closers: []func() error{b.Close, st.Close}}, nil
}

var _ plane.StoreOpener = Open
