package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/request"
)

// Bounds of a page of a list (requests, runs, events, search hits,
// denials): at most MaxPage items, DefaultPage when none is asked for,
// and no more than maxPageBytes of them (but always one), so that no list
// grows with the store.
const (
	DefaultPage      = 100
	defaultEventPage = 500
	MaxPage          = request.MaxPage
	maxPageBytes     = 4 << 20
)

// ErrCursor: a page's cursor that this list did not give.
var ErrCursor = errors.New("not a cursor of this list")

// Page selects one page of a list, in the list's order.
type Page struct {
	// Limit is the most items: <= 0 is the list's default (DefaultPage,
	// or defaultEventPage for a run's events), and at most MaxPage.
	Limit int
	// After is where the page starts: "" for the first page, else the
	// Next of the page before.
	After string
}

// limit returns the page's size, def when none was asked for.
func (p Page) limit(def int) int {
	switch {
	case p.Limit <= 0:
		return def
	case p.Limit > MaxPage:
		return MaxPage
	}
	return p.Limit
}

// cursor is the position of an item in a list ordered by a number and
// then a text (a time and an id; a sequence number alone has no text).
type cursor struct {
	n int64
	s string
}

// String encodes c, opaque to clients.
func (c cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.n, 10) + "." + c.s))
}

// parseCursor decodes a cursor String made; ErrCursor otherwise.
func parseCursor(v string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err == nil {
		n, s, ok := strings.Cut(string(b), ".")
		if ok {
			var c cursor
			if c.n, err = strconv.ParseInt(n, 10, 64); err == nil {
				c.s = s
				return c, nil
			}
		}
	}
	return cursor{}, fmt.Errorf("cursor %q: %w", v, ErrCursor)
}

// fit returns how many of n items, of the sizes size gives, make a page
// of at most limit items and maxPageBytes (at least one), and whether
// items are left after them.
func fit(n, limit int, size func(i int) int) (int, bool) {
	total := 0
	for i := 0; i < n; i++ {
		if i == limit {
			return i, true
		}
		total += size(i)
		if i > 0 && total > maxPageBytes {
			return i, true
		}
	}
	return n, false
}

// requestSize is about what r takes in a page of JSON.
func requestSize(r Request) int {
	return 400 + len(r.Call.Arguments) + len(r.View) + len(r.Message) + len(r.Result) + len(r.Modified) + len(r.Explanation)
}

// RequestPage returns one page of the requests of a status, in the order
// of Requests (pending oldest first, others newest first), and the
// cursor of the next page ("" after the last). Pending requests past
// their deadline are expired first.
func (s *Store) RequestPage(ctx context.Context, status string, p Page) ([]Request, string, error) {
	return page(p, "requests", func(after *cursor, n int) ([]Request, error) {
		return s.requestList(ctx, status, after, n)
	}, func(rs []Request, i int) int {
		return requestSize(rs[i])
	}, func(rs []Request, i int) cursor {
		return cursor{rs[i].Created.UnixNano(), rs[i].ID}
	})
}

// page reads one page p of a list named what: list reads at most n items
// after a position (nil: from the start), size is about what item i takes
// in a page of JSON, and at is the position of item i.
func page[T any](p Page, what string, list func(after *cursor, n int) ([]T, error), size func(items []T, i int) int, at func(items []T, i int) cursor) ([]T, string, error) {
	var after *cursor
	if p.After != "" {
		c, err := parseCursor(p.After)
		if err != nil {
			return nil, "", fmt.Errorf("store: %s: %w", what, err)
		}
		after = &c
	}
	limit := p.limit(DefaultPage)
	items, err := list(after, limit+1)
	if err != nil {
		return nil, "", err
	}
	n, more := fit(len(items), limit, func(i int) int { return size(items, i) })
	next := ""
	if more {
		next = at(items, n-1).String()
	}
	return items[:n], next, nil
}

// requestList reads the requests of a status after a position (nil: from
// the start), at most limit (<= 0: all).
func (s *Store) requestList(ctx context.Context, status string, after *cursor, limit int) ([]Request, error) {
	if err := s.expireDue(ctx); err != nil {
		return nil, fmt.Errorf("store: requests: %w", err)
	}
	var where []string
	var args []any
	order := "created DESC, id"
	switch status {
	case StatusPending:
		where, order = append(where, "status = 'pending'"), "created, id"
		if after != nil {
			where, args = append(where, "(created > ? OR (created = ? AND id > ?))"), append(args, after.n, after.n, after.s)
		}
	case StatusDecided, "all", "":
		if status == StatusDecided {
			where = append(where, "status <> 'pending'")
		}
		if after != nil {
			where, args = append(where, "(created < ? OR (created = ? AND id > ?))"), append(args, after.n, after.n, after.s)
		}
	default:
		return nil, fmt.Errorf("store: requests of status %q: want pending, decided or all", status)
	}
	q := "SELECT " + requestColumns + " FROM requests"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY " + order
	if limit > 0 {
		q, args = q+" LIMIT ?", append(args, limit)
	}
	rs, err := s.requests(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: requests: %w", err)
	}
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[i] = r.Request
	}
	return out, nil
}

// PendingOf returns the pending requests of one run, oldest first (those
// past their deadline are expired first).
func (s *Store) PendingOf(ctx context.Context, runID string) ([]Request, error) {
	if err := s.expireDue(ctx); err != nil {
		return nil, fmt.Errorf("store: pending requests of run %s: %w", runID, err)
	}
	rs, err := s.requests(ctx, "SELECT "+requestColumns+" FROM requests WHERE status = 'pending' AND run_id = ? ORDER BY created, id", runID)
	if err != nil {
		return nil, fmt.Errorf("store: pending requests of run %s: %w", runID, err)
	}
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[i] = r.Request
	}
	return out, nil
}

// PendingCount returns how many requests wait for a person (those past
// their deadline are expired first).
func (s *Store) PendingCount(ctx context.Context) (int, error) {
	if err := s.expireDue(ctx); err != nil {
		return 0, fmt.Errorf("store: pending requests: %w", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM requests WHERE status = 'pending'").Scan(&n); err != nil {
		return 0, fmt.Errorf("store: pending requests: %w", err)
	}
	return n, nil
}

// RunPage returns one page of the runs f selects (f.Limit is ignored),
// newest first, and the cursor of the next page ("" after the last).
func (s *Store) RunPage(ctx context.Context, f RunFilter, p Page) ([]Run, string, error) {
	return page(p, "runs", func(after *cursor, n int) ([]Run, error) {
		f.Limit = n
		return s.runList(ctx, f, after)
	}, func(runs []Run, i int) int {
		return 300 + 40*len(runs[i].Counts) + len(runs[i].Task)
	}, func(runs []Run, i int) cursor {
		return cursor{runs[i].Started.UnixNano(), runs[i].ID}
	})
}

// SearchPage returns one page of the events q selects (q.Limit is
// ignored), newest first, and the cursor of the next page ("" after the
// last).
func (s *Store) SearchPage(ctx context.Context, q Query, p Page) ([]Hit, string, error) {
	var seqs []int64
	return page(p, "search", func(after *cursor, n int) (hits []Hit, err error) {
		var before int64
		if after != nil {
			before = after.n
		}
		q.Limit = n
		hits, seqs, err = s.search(ctx, q, before)
		return hits, err
	}, func(hits []Hit, i int) int {
		return len(hits[i].Line)
	}, func(_ []Hit, i int) cursor {
		return cursor{n: seqs[i]}
	})
}

// EventPage returns one page of the stored JSON lines of run runID's
// events in order of arrival, after the event whose id is after ("" =
// from the start; ErrNotFound if the run has no such event), at most
// limit (<= 0: defaultEventPage; at most MaxPage) and maxPageBytes, and
// the id of the page's last event when more follow ("" after the last):
// the after of the next page.
func (s *Store) EventPage(ctx context.Context, runID, after string, limit int) ([]json.RawMessage, string, error) {
	limit = Page{Limit: limit}.limit(defaultEventPage)
	hits, err := s.runEvents(ctx, runID, after, limit+1)
	if err != nil {
		return nil, "", err
	}
	n, more := fit(len(hits), limit, func(i int) int { return len(hits[i].Line) })
	out := make([]json.RawMessage, n)
	for i := range out {
		out[i] = hits[i].Line
	}
	next := ""
	if more {
		next = hits[n-1].Event.ID
	}
	return out, next, nil
}

// DenialPage returns one page of the latest denials of run runID (every
// run when ""), in the order of Denials, and the cursor of the next page
// ("" after the last).
func (s *Store) DenialPage(ctx context.Context, runID string, p Page) ([]Denial, string, error) {
	var seqs []int64
	return page(p, "denials", func(after *cursor, n int) (ds []Denial, err error) {
		ds, seqs, err = s.denialList(ctx, runID, after, n)
		return ds, err
	}, func(ds []Denial, i int) int {
		return 300 + len(ds[i].Action) + len(ds[i].Rationale)
	}, func(ds []Denial, i int) cursor {
		return cursor{ds[i].Time.UnixNano(), strconv.FormatInt(seqs[i], 10)}
	})
}
