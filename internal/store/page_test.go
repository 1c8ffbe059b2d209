package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/storetest"
)

// Every list comes in pages (issue 21 item 6): walking a list page by page
// with the cursors gives each item once, in the list's order, whatever the
// ties in its sort key; no page is larger than its limit, MaxPage or
// maxPageBytes; and a cursor the list did not give is refused.
func TestS2_ListsArePaged(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		// Requests: 23 of them, created in the same microsecond in
		// pairs, 9 decided.
		for i := range 23 {
			r := &Request{Kind: KindApproval, RunID: "r1", Call: Call{ID: fmt.Sprint("c", i), Function: "bash"}}
			submit(ctx, t, s, r)
			if i%2 == 1 {
				if _, err := s.db.ExecContext(ctx, s.q("UPDATE requests SET created = (SELECT created FROM requests WHERE call_id = ?) WHERE id = ?"), fmt.Sprint("c", i-1), r.ID); err != nil {
					t.Fatal(err)
				}
			}
			if i%5 == 0 || i%7 == 0 {
				if _, err := s.Decide(ctx, r.ID, Answer{Decision: "reject"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, status := range []string{"pending", "decided", "all"} {
			all, err := s.Requests(ctx, status)
			if err != nil {
				t.Fatal(err)
			}
			got := walk(t, 4, func(after string) ([]string, string, error) {
				rs, next, err := s.RequestPage(ctx, status, Page{Limit: 4, After: after})
				return ids(rs, func(r Request) string { return r.ID }), next, err
			})
			if want := ids(all, func(r Request) string { return r.ID }); !slices.Equal(got, want) {
				t.Errorf("requests %s page by page: %q, want %q", status, got, want)
			}
		}
		if _, _, err := s.RequestPage(ctx, "all", Page{After: "bogus!"}); !isCursorErr(err) {
			t.Errorf("a bogus cursor: %v", err)
		}

		// Runs: 13, some started at the same time.
		for i := range 13 {
			run := fmt.Sprintf("run-%02d", i)
			writeAll(t, s, event.Event{ID: run + "-1", Time: t0.Add(time.Duration(i/3) * time.Second), RunID: run, Agent: "main", Data: event.RunStart{Task: "t"}})
		}
		all, err := s.Runs(ctx, RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := walk(t, 5, func(after string) ([]string, string, error) {
			rs, next, err := s.RunPage(ctx, RunFilter{}, Page{Limit: 5, After: after})
			return ids(rs, func(r Run) string { return r.ID }), next, err
		})
		if want := ids(all, func(r Run) string { return r.ID }); !slices.Equal(got, want) || len(got) != 13 {
			t.Errorf("runs page by page: %q, want %q", got, want)
		}

		// A run's events and search hits: 37 events.
		for i := range 37 {
			writeAll(t, s, ev("big", i+1, event.Info{Message: fmt.Sprint("needle ", i)}))
		}
		evAll, err := s.EventLines(ctx, "big", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		got = walk(t, 10, func(after string) ([]string, string, error) {
			lines, next, err := s.EventPage(ctx, "big", after, 10)
			return ids(lines, func(l json.RawMessage) string { return string(l) }), next, err
		})
		if want := ids(evAll, func(l json.RawMessage) string { return string(l) }); !slices.Equal(got, want) || len(got) != 37 {
			t.Errorf("events page by page: %d lines, want %d", len(got), len(want))
		}
		hitsAll, err := s.Search(ctx, Query{Text: "needle", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		got = walk(t, 6, func(after string) ([]string, string, error) {
			hs, next, err := s.SearchPage(ctx, Query{Text: "needle"}, Page{Limit: 6, After: after})
			return ids(hs, func(h Hit) string { return h.Event.ID }), next, err
		})
		if want := ids(hitsAll, func(h Hit) string { return h.Event.ID }); !slices.Equal(got, want) || len(got) != 37 {
			t.Errorf("search page by page: %q, want %q", got, want)
		}

		// Denials: 3 runs of 4, all at the same time.
		for r := range 3 {
			run := fmt.Sprint("den-", r)
			for i := range 4 {
				writeAll(t, s, event.Event{ID: fmt.Sprintf("%s-%d", run, i), Time: t0, RunID: run, Agent: "main",
					Data: event.AutoReview{CallID: fmt.Sprint("c", i), Status: action.StatusDenied, DenialID: fmt.Sprint("d", i)}})
			}
		}
		dAll, err := s.Denials(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		got = walk(t, 5, func(after string) ([]string, string, error) {
			ds, next, err := s.DenialPage(ctx, "", Page{Limit: 5, After: after})
			return ids(ds, func(d Denial) string { return d.RunID + "/" + d.ID }), next, err
		})
		if want := ids(dAll, func(d Denial) string { return d.RunID + "/" + d.ID }); !slices.Equal(got, want) || len(got) != 12 {
			t.Errorf("denials page by page: %q, want %q", got, want)
		}

		// Bounds: no limit asked is the default; more than MaxPage is
		// MaxPage; big items stop a page at maxPageBytes.
		for i := range 6 {
			writeAll(t, s, ev("huge", i+1, event.Info{Message: strings.Repeat("y", maxPageBytes/3)}))
		}
		lines, next, err := s.EventPage(ctx, "huge", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, l := range lines {
			size += len(l)
		}
		if next == "" || len(lines) >= 6 || size > maxPageBytes+maxPageBytes/3 {
			t.Errorf("a page of 6 events of %d bytes each: %d events, %d bytes, next %q", maxPageBytes/3, len(lines), size, next)
		}
		if p := (Page{Limit: 5000}).limit(DefaultPage); p != MaxPage {
			t.Errorf("a page of 5000 holds %d", p)
		}
	})
}

// walk follows a list's cursors from the first page and returns the
// items in order, failing when a page is over limit or the walk does not
// end.
func walk(t *testing.T, limit int, page func(after string) ([]string, string, error)) []string {
	t.Helper()
	var out []string
	after := ""
	for range 1000 {
		items, next, err := page(after)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) > limit {
			t.Fatalf("a page of %d items, limit %d", len(items), limit)
		}
		out = append(out, items...)
		if next == "" {
			return out
		}
		if len(items) == 0 {
			t.Fatal("an empty page with a next cursor")
		}
		after = next
	}
	t.Fatal("the walk does not end")
	return nil
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func isCursorErr(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrCursor.Error())
}

// FuzzCursor: decoding any text as a page's cursor never panics, and a
// cursor that decodes encodes back to one that decodes to the same
// position.
func FuzzCursor(f *testing.F) {
	for _, seed := range []string{"", "bogus!", cursor{1733000000000000000, "abc_DEF-123"}.String(), cursor{n: 42}.String(), cursor{-1, "."}.String(), "MTIzLg", "LjEyMw"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c, err := parseCursor(v)
		if err != nil {
			if !isCursorErr(err) {
				t.Fatalf("%q: %v does not wrap ErrCursor", v, err)
			}
			return
		}
		again, err := parseCursor(c.String())
		if err != nil || again != c {
			t.Fatalf("%q: %+v encodes to %q, which decodes to %+v, %v", v, c, c.String(), again, err)
		}
	})
}

// The pending requests of one run (issue 21 item 4, a run's prefix rules
// applied to what already waits): only that run's, only pending, oldest
// first, and one past its deadline is expired, not returned.
func TestS2_PendingOfOneRun(t *testing.T) {
	ctx := context.Background()
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		var want []string
		for i := range 6 {
			run := []string{"ra", "rb"}[i%2]
			r := &Request{Kind: KindApproval, RunID: run, Call: Call{ID: fmt.Sprint("c", i), Function: "bash"}}
			if i == 4 {
				past := time.Now().Add(-time.Second)
				r.Deadline = &past
			}
			submit(ctx, t, s, r)
			switch {
			case i == 2:
				if _, err := s.Decide(ctx, r.ID, Answer{Decision: "reject"}); err != nil {
					t.Fatal(err)
				}
			case run == "ra" && i != 4:
				want = append(want, r.ID)
			}
		}
		got, err := s.PendingOf(ctx, "ra")
		if err != nil {
			t.Fatal(err)
		}
		if ids := ids(got, func(r Request) string { return r.ID }); !slices.Equal(ids, want) {
			t.Errorf("pending of ra: %q, want %q", ids, want)
		}
	})
}
