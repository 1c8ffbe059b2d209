package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/store"
)

// listRequests answers GET /api/requests?status=pending|decided|all&limit=&cursor=:
// one page of the requests, with the cursor of the next in "next" and a
// Link header.
func (s *Server) listRequests(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if !slices.Contains([]string{"", "pending", "decided", "all"}, status) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("status=%q: want pending, decided or all", status))
		return
	}
	servePage(s, w, r, "requests", func(p store.Page) ([]store.Request, string, error) {
		return s.Store.RequestPage(r.Context(), status, p)
	})
}

// submitRequest answers POST /api/requests: a run's new pending request.
// Only what the run may say is taken from the body; the store sets the
// time and the status, and the id unless the run chose one (an id that is
// not store.ValidID is ignored, and the store picks one): a run that
// retries a submit sends the same id, and a second submit of the same
// request answers the request as stored (no second row); an id held by
// another request is refused with 409.
func (s *Server) submitRequest(w http.ResponseWriter, r *http.Request) {
	var in store.Request
	if !decodeBody(w, r, maxBody, &in) {
		return
	}
	if !store.ValidID(in.ID) {
		// Not an id a client may choose (store.ValidID): the store picks
		// one, as it did before clients could choose (a contract).
		in.ID = ""
	}
	req := store.Request{
		ID: in.ID, Kind: in.Kind, RunID: in.RunID, Agent: in.Agent, Call: in.Call,
		View: in.View, Message: in.Message, Result: in.Result,
		Choices: in.Choices, Deadline: in.Deadline, Failsafe: in.Failsafe, Context: in.Context,
		Truncated: in.Truncated,
	}
	if err := validateRequest(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Deadline == nil {
		// An orphaned request expires (its fail-safe outcome) rather than
		// waiting for ever; a deadline the run gave wins.
		req.Deadline = s.requestDeadline(time.Now())
	}
	if !s.ownRun(w, r, req.RunID, true) {
		return
	}
	if err := s.Store.Submit(r.Context(), &req); err != nil {
		if errors.Is(err, store.ErrIDTaken) {
			writeError(w, http.StatusConflict, err.Error())
			return
		}
		s.storeError(w, r, err)
		return
	}
	// An approval the run's rules cover is approved at once, in the name
	// of the operators who allowed its prefixes.
	s.applyRunRules(r.Context(), &req)
	w.Header().Set("Location", "/api/requests/"+req.ID)
	writeJSON(w, http.StatusCreated, req)
}

// requestChoices are the choices each kind of request may offer (the
// contract of issue 11; the store checks them too, but its refusal is not
// one the server can tell from a failure of the database).
var requestChoices = map[string][]string{
	store.KindApproval: {"approve", "modify", "reject", "terminate", "escalate"},
	store.KindBoundary: {"approve", "modify", "reject", "terminate", "escalate"},
	store.KindReview:   {"continue", "terminate", "escalate"},
}

// validateRequest refuses, with a message for the client, a request no
// person could answer safely: an unknown kind, a choice the kind does not
// have or offered twice, or a fail-safe outcome that lets the call
// through (SPEC H3: reject or terminate, and a review's is terminate).
// The store fills in the kind's choices when none are given.
func validateRequest(r *store.Request) error {
	allowed, ok := requestChoices[r.Kind]
	if !ok {
		return fmt.Errorf("kind %q: want approval, review or boundary", r.Kind)
	}
	for i, c := range r.Choices {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("a %s request cannot offer %q (its choices: %v)", r.Kind, c, allowed)
		}
		if slices.Contains(r.Choices[:i], c) {
			return fmt.Errorf("choice %q offered twice", c)
		}
	}
	switch {
	case r.Failsafe == "":
	case r.Failsafe != "reject" && r.Failsafe != "terminate":
		return fmt.Errorf("failsafe %q: a fail-safe outcome never lets the call through (SPEC H3): reject or terminate", r.Failsafe)
	case r.Kind == store.KindReview && r.Failsafe != "terminate":
		return fmt.Errorf("failsafe %q: a review's fail-safe outcome is terminate", r.Failsafe)
	}
	if !isNull(r.Call.Arguments) && !json.Valid(r.Call.Arguments) {
		return errors.New("call.arguments is not JSON")
	}
	if t := r.Truncated; t != nil && (t[0] < 0 || t[1] < 0) {
		return fmt.Errorf("truncated %v: want [bytes produced, bytes kept], not negative", *t)
	}
	return nil
}

// getRequest answers GET /api/requests/{id}; with ?wait=DURATION it holds on
// until the request is no longer pending or the wait elapses, and answers
// the request as it then is.
func (s *Server) getRequest(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	wait, err := parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, err := s.Store.Request(r.Context(), id)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if !s.ownRun(w, r, req.RunID, false) {
		return
	}
	if req.Status == store.StatusPending && wait > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), wait)
		got, err := s.Store.Wait(ctx, id)
		cancel()
		switch {
		case err == nil:
			req = got
		case errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil:
			// The wait elapsed: answer the request as it now is.
			if req, err = s.Store.Request(r.Context(), id); err != nil {
				s.storeError(w, r, err)
				return
			}
		default:
			s.storeError(w, r, err)
			return
		}
	}
	if cs, err := s.Store.RequestContexts(r.Context(), []string{req.ID}); err == nil {
		if c, ok := cs[req.ID]; ok {
			req.Context = &c
		}
	} else {
		s.logger().Warn("request context", "request", req.ID, "err", err)
	}
	writeJSON(w, http.StatusOK, req)
}

// decide answers POST /api/requests/{id}/decision. The store commits the
// decision before this answers 200 (SPEC S3).
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Decision    string          `json:"decision"`
		Explanation string          `json:"explanation"`
		Modified    json.RawMessage `json:"modified"`
		// Seen, when given, is the digest of the request as the decider
		// read it (seenDigest): an approval of another is refused.
		Seen string `json:"seen"`
		// AllowPrefix, with approve, allows this exact prefix for the
		// rest of the request's run (an extension, issue 21 item 4).
		AllowPrefix []string `json:"allow_prefix"`
	}
	if !decodeBody(w, r, maxBody, &in) {
		return
	}
	switch {
	case in.Decision == "":
		writeError(w, http.StatusBadRequest, `missing "decision"`)
		return
	case in.Decision == "modify" && !isObject(in.Modified):
		writeError(w, http.StatusBadRequest, `"modify" needs "modified": the new arguments, a JSON object`)
		return
	case in.Decision != "modify" && !isNull(in.Modified):
		writeError(w, http.StatusBadRequest, `"modified" goes only with the decision "modify"`)
		return
	}
	d := store.Answer{Decision: in.Decision, Explanation: in.Explanation, DecidedBy: s.who(r), DecidedVia: "api"}
	if p, ok := principalOf(r); ok {
		d.DecidedVia = p.via
	}
	if in.Decision == "modify" {
		d.Modified = in.Modified
	}
	if in.AllowPrefix != nil && len(in.AllowPrefix) == 0 {
		writeError(w, http.StatusBadRequest, `"allow_prefix" is empty: give the words of the prefix`)
		return
	}
	req, rule, err := s.decideChecked(r.Context(), r.PathValue("id"), checkedDecision{Answer: d, seen: in.Seen, prefix: in.AllowPrefix})
	if code := decisionStatus(err); code != 0 {
		writeError(w, code, err.Error())
		return
	}
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	s.logger().Info("decided", "request", req.ID, "run", req.RunID, "decision", req.Decision, "by", d.DecidedBy)
	if rule != nil {
		writeJSON(w, http.StatusOK, struct {
			store.Request
			Rule *store.RunRule `json:"rule"`
		}{req, rule})
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// withdraw answers POST /api/requests/{id}/withdraw: the run no longer
// waits for an answer. A request already answered is left as it is.
func (s *Server) withdraw(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	before, err := s.Store.Request(r.Context(), id)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if !s.ownRun(w, r, before.RunID, false) {
		return
	}
	if err := s.Store.Withdraw(r.Context(), id); err != nil {
		s.storeError(w, r, err)
		return
	}
	req, err := s.Store.Request(r.Context(), id)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, req)
}

// listRuns answers GET /api/runs?status=&task=&since=&until=&limit=&cursor=:
// one page of the runs, with the cursor of the next in "next" and a Link
// header.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.RunFilter{Status: q.Get("status"), Task: q.Get("task")}
	var err error
	if f.Since, f.Until, err = timeSpan(r); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	servePage(s, w, r, "runs", func(p store.Page) ([]store.Run, string, error) {
		return s.Store.RunPage(r.Context(), f, p)
	})
}

// getRun answers GET /api/runs/{id}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	run, err := s.Store.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// runEvents answers GET /api/runs/{id}/events?after=EVENT_ID&limit=N: one
// page of the run's events in order of arrival, as a JSON array of their
// transcript lines as stored (500 when no limit is given). When more
// follow, the Link header (rel="next") and X-Warden-Next-After give the
// after of the next page.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	limit, err := parseLimit(r.URL.Query().Get("limit"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if _, err := s.Store.Run(r.Context(), id); err != nil {
		s.storeError(w, r, err)
		return
	}
	lines, next, err := s.Store.EventPage(r.Context(), id, r.URL.Query().Get("after"), limit)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if lines == nil {
		lines = []json.RawMessage{}
	}
	if next != "" {
		w.Header().Set("X-Warden-Next-After", next)
		setNextLink(w, r, "after", next)
	}
	writeJSON(w, http.StatusOK, lines)
}

// postEvents answers POST /api/events: a JSON array of transcript events,
// or one, stored (committed, in as few transactions as the store can, and
// durable: Store.SyncEvents) before the 204. Storing an event twice keeps one, so a client may retry
// a batch.
func (s *Server) postEvents(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventsBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxEventsBody))
		return
	}
	var es []event.Event
	t := bytes.TrimSpace(body)
	switch {
	case len(t) > 0 && t[0] == '[':
		err = json.Unmarshal(t, &es)
	case len(t) > 0 && t[0] == '{':
		var e event.Event
		err = json.Unmarshal(t, &e)
		es = []event.Event{e}
	default:
		err = errors.New("want a JSON array of events or one event")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "events: "+err.Error())
		return
	}
	runs := map[string]bool{}
	for i, e := range es {
		if e.ID == "" || e.RunID == "" || e.Kind() == "" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("event %d: an event needs its event, id and run_id", i))
			return
		}
		if !runs[e.RunID] {
			if !s.ownRun(w, r, e.RunID, true) {
				return
			}
			runs[e.RunID] = true
		}
	}
	// One group commit for the batch rather than one per event.
	buf := s.Store.Buffer()
	for _, e := range es {
		if buf.Write(e) != nil {
			break // Close reports the error
		}
	}
	if err := buf.Close(); err != nil {
		s.storeError(w, r, err)
		return
	}
	// Acknowledged means durable, even across a crash of the database.
	if err := s.Store.SyncEvents(r.Context()); err != nil {
		s.storeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// search answers GET /api/search?q=&kind=&run=&since=&until=&limit=&cursor=:
// one page of the events found, with the cursor of the next in "next" and
// a Link header.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sq := store.Query{Text: q.Get("q"), Kind: q.Get("kind"), RunID: q.Get("run")}
	var err error
	if sq.Since, sq.Until, err = timeSpan(r); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	servePage(s, w, r, "events", func(p store.Page) ([]json.RawMessage, string, error) {
		hits, next, err := s.Store.SearchPage(r.Context(), sq, p)
		if err != nil {
			return nil, "", err
		}
		lines := make([]json.RawMessage, 0, len(hits))
		for _, h := range hits {
			line := h.Line
			if len(line) == 0 {
				if line, err = json.Marshal(h.Event); err != nil {
					return nil, "", err
				}
			}
			lines = append(lines, line)
		}
		return lines, next, nil
	})
}

// timeSpan reads the since and until parameters of a request.
func timeSpan(r *http.Request) (since, until time.Time, err error) {
	q := r.URL.Query()
	if since, err = parseTime("since", q.Get("since")); err != nil {
		return since, until, err
	}
	until, err = parseTime("until", q.Get("until"))
	return since, until, err
}

// stream answers GET /api/events/stream: server-sent events, "event: event"
// with each new transcript line and "event: request" with each request
// created or changed, from this process and any other on the same
// database, until the client goes away. An idle stream gets a comment
// every keepalive so that proxies keep it open. The changes are read once
// for all streams (fanout); a client that does not read within the write
// timeout, or falls streamBuffer messages behind, is dropped.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	timeout := s.streamWriteTimeout
	if timeout <= 0 {
		timeout = defaultStreamWriteTimeout
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	changes := s.changes
	if changes == nil {
		changes = s.Store.Changes
	}
	sb := s.fanout.subscribe(changes, s.logger())
	defer s.fanout.unsubscribe(sb)
	// send writes msg within the write timeout (a stream outlives the
	// server's own write timeout, but not a client that does not read).
	send := func(msg []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := w.Write(msg); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	w.WriteHeader(http.StatusOK)
	if !send([]byte("retry: 2000\n: warden events\n\n")) {
		return
	}
	every := s.keepalive
	if every <= 0 {
		every = defaultKeepalive
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		var msg []byte
		select {
		case <-ctx.Done():
			return
		case <-sb.gone:
			return
		case msg = <-sb.msgs:
		case <-tick.C:
			msg = []byte(": keepalive\n\n")
		}
		if !send(msg) {
			return
		}
	}
}

// sseMessage renders one change as a server-sent event; nil for an empty
// change.
func sseMessage(c store.Change) ([]byte, error) {
	var name string
	var data []byte
	var err error
	switch {
	case c.Event != nil:
		name = "event"
		data, err = json.Marshal(*c.Event)
	case c.Request != nil:
		name = "request"
		data, err = json.Marshal(*c.Request)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// encoding/json escapes newlines in strings, so data is one line.
	b := make([]byte, 0, len(data)+32)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
}

// listDenials answers GET /api/denials?run=ID&limit=&cursor=: one page of
// the denials, with the cursor of the next in "next" and a Link header.
func (s *Server) listDenials(w http.ResponseWriter, r *http.Request) {
	servePage(s, w, r, "denials", func(p store.Page) ([]store.Denial, string, error) {
		return s.Store.DenialPage(r.Context(), r.URL.Query().Get("run"), p)
	})
}

// pageParams reads a list's page: limit (at most store.MaxPage) and
// cursor (the "next" of the page before).
func pageParams(r *http.Request) (store.Page, error) {
	q := r.URL.Query()
	n, err := parseLimit(q.Get("limit"))
	if err != nil {
		return store.Page{}, err
	}
	return store.Page{Limit: n, After: q.Get("cursor")}, nil
}

// servePage answers a request for one page of the list named name (see
// listPage), [] when empty: read reads the page the request's limit and
// cursor select (pageParams); its error is the store's.
func servePage[T any](s *Server, w http.ResponseWriter, r *http.Request, name string, read func(store.Page) ([]T, string, error)) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	items, next, err := read(p)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if items == nil {
		items = []T{}
	}
	writeJSON(w, http.StatusOK, listPage(w, r, name, items, next))
}

// listPage is the answer of a list: {name: items}, and "next", the
// cursor of the next page, when there is one (also in a Link header,
// rel="next").
func listPage(w http.ResponseWriter, r *http.Request, name string, items any, next string) map[string]any {
	out := map[string]any{name: items}
	if next != "" {
		out["next"] = next
		setNextLink(w, r, "cursor", next)
	}
	return out
}

// setNextLink sets the Link header (rel="next") to the request's URL with
// param set to next.
func setNextLink(w http.ResponseWriter, r *http.Request, param, next string) {
	w.Header().Set("Link", "<"+nextPage(r, param, next)+`>; rel="next"`)
}
