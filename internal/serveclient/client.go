// Package serveclient is a run's side of warden's control plane (SPEC S2, H3,
// G12, S4): the Client a run uses to put its requests in the queue of a
// `warden serve` server, wait for their decisions, and send its events to
// the server's store.
//
// # A client knows its server
//
// Whoever listens on the server's port gets what a client sends, so the
// client first has the server prove itself, on every new connection and
// before anything else is written to it: the client sends a fresh 32-byte
// nonce and the key id of its credential (POST /api/hello), and the server
// answers an HMAC-SHA-256 of the nonce and of the connection's address as
// the server sees it, under a key derived from the credential's SHA-256
// (proof.Proof). A server that does not hold the credential cannot answer; the
// client then sends nothing more, neither its credential nor any call,
// and fails with an UnverifiedError that says why — never retried, so a
// run fails closed. A handshake answered 5xx, 408 or 429 (a server busy,
// restarting, or whose store is unreachable for a moment) is no refusal:
// the call is tried again like any other, on a new connection that must
// prove itself in turn, until the call's time is up. Binding the proof to
// the address stops a squatter from relaying the handshake to the real
// server on another port.
//
// This was chosen over a Unix socket with SO_PEERCRED, which does not
// reach another machine or a team's shared server, and over TLS with a
// pinned key, which needs a key pair and its distribution before the first
// run: the challenge needs nothing but the credential both sides already
// hold, nothing reusable crosses to a server that fails it (a nonce, a key
// id), and it works over plain loopback HTTP and under TLS alike. The
// server keeps operators' credentials as hashes alone, so the key is
// derived from the hash.
package serveclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/proof"
	"github.com/wardenhq/warden/internal/request"
)

// Client is a run's side of the server (`warden run --server URL`): it puts
// the run's requests in the queue, waits for their decisions, and sends the
// run's events to the store. Its zero value plus URL and Token is ready;
// it is safe for concurrent use. Do not copy a Client after first use.
//
// Before it sends anything on a connection — its credential, a call's
// arguments — the client has the server prove that it holds the
// credential (see Proof and the package comment); a server that cannot
// gets a nonce and a key id, and the client's call fails with an
// UnverifiedError, which is never retried.
type Client struct {
	// URL is the server's base URL, such as http://127.0.0.1:7878.
	URL string
	// Token is the client's credential: a run credential for a run, an
	// operator's credential to decide (SPEC S4).
	Token string
	// HTTP makes the requests; nil is a client of its own. Its Timeout,
	// if any, must exceed pollWait; its Transport, if any, must be an
	// *http.Transport, which the client copies to prove each connection.
	HTTP *http.Client
	// ID is the client's id (sent as proof.ClientHeader): a run credential acts
	// only on the runs first named under the same id, so that another
	// holder of the credential cannot read, withdraw or write them (SPEC
	// S4). "" is a random one, made on first use. Keep it secret.
	ID string

	setup sync.Once
	hc    *http.Client

	mu      sync.Mutex
	gone    error         // why the server is taken for gone: nothing more is retried
	queue   []event.Event // events written, not yet acknowledged, in order
	sending bool          // a sender goroutine is running
	err     error         // why events can no longer be delivered
	changed chan struct{} // closed (and replaced) whenever the queue drains or err is set
	// batchBytes bounds the body of the sender's next batch: maxBatchBytes,
	// or less once the server refused one as too large (sender only).
	batchBytes int

	// deadlines holds the deadline each request Submit made was given by
	// its caller (request id → *time.Time, nil for none): Wait gives up on
	// a server that is gone by it, not by a deadline the server chose.
	deadlines sync.Map
}

// Client tuning.
const (
	// pollWait is how long one long poll of Wait lasts.
	pollWait = 25 * time.Second
	// maxBatch is the most events one POST /api/events carries.
	maxBatch = 256
	// maxBatchBytes bounds the body of one POST /api/events (but for a
	// single event larger than it): a backlog goes in batches well under
	// the server's body limit, so that it is never refused whole.
	maxBatchBytes = 512 << 10
	// maxQueue is the most events Write holds before it waits for the
	// server to catch up.
	maxQueue = 8192
	// giveUp is how long the client retries a server that does not answer
	// before events are reported lost.
	giveUp = 2 * time.Minute
	// retryFor is how long Submit and Wait retry a server that does not
	// answer, for a request without a deadline (with one, until it).
	retryFor = 30 * time.Second
)

// StatusError is an error answer of the server.
type StatusError struct {
	Code    int    // the HTTP status
	Message string // the server's "error"
}

// Error says what the server answered.
func (e *StatusError) Error() string {
	return fmt.Sprintf("warden server: %s (HTTP %d)", e.Message, e.Code)
}

// Unwrap maps a status to the store's error of the same meaning: 404 to
// request.ErrNotFound, 409 to request.ErrNotPending.
func (e *StatusError) Unwrap() error {
	switch e.Code {
	case http.StatusNotFound:
		return request.ErrNotFound
	case http.StatusConflict:
		return request.ErrNotPending
	}
	return nil
}

// transient reports whether a request that failed with err is worth
// trying again: the server was unreachable, or answered 5xx, 408 or 429.
func transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests
	}
	return err != nil && !unverified(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// httpClient returns the HTTP client whose connections are proved, made
// on first use, and sets the client's id.
func (c *Client) httpClient() *http.Client {
	c.setup.Do(func() {
		if c.ID == "" {
			var b [24]byte
			rand.Read(b[:])
			c.ID = base64.RawURLEncoding.EncodeToString(b[:])
		}
		hc := &http.Client{}
		var base *http.Transport
		if c.HTTP != nil {
			*hc = *c.HTTP
			if t, ok := c.HTTP.Transport.(*http.Transport); ok {
				base = t
			} else if c.HTTP.Transport != nil {
				hc.Transport = failing{errors.New("warden server: the client's transport is not an *http.Transport, so its connections cannot be proved")}
				c.hc = hc
				return
			}
		}
		hc.Transport = c.transport(base)
		c.hc = hc
	})
	return c.hc
}

// failing is a transport that sends nothing.
type failing struct{ err error }

// RoundTrip fails.
func (f failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// do sends one API request with body (marshalled unless it is []byte or
// nil) and decodes a 2xx answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("warden server: %w", err)
	}
	hc := c.httpClient()
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set(proof.ClientHeader, c.ID)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *UnverifiedError
		if errors.As(err, &ue) {
			return ue
		}
		return fmt.Errorf("warden server: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("warden server: reading the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
			if e.Error == "" {
				e.Error = http.StatusText(resp.StatusCode)
			}
		}
		return &StatusError{Code: resp.StatusCode, Message: e.Error}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("warden server: the answer is not the JSON expected: %w", err)
		}
	}
	return nil
}

// Whoami is what the server makes of a client's credential.
type Whoami struct {
	Role string `json:"role"`           // "operator" or "run"
	Name string `json:"name,omitempty"` // the operator's name, if any
}

// Whoami has the server prove itself and say what it makes of the
// client's credential. A run calls it before it starts, so that a wrong
// address, a wrong credential or a server that cannot prove itself stops
// it early.
func (c *Client) Whoami(ctx context.Context) (Whoami, error) {
	var got Whoami
	err := c.do(ctx, http.MethodGet, "/api/whoami", nil, &got)
	return got, err
}

// Pending returns the requests waiting for a person, following the
// list's pages (an operator's credential).
func (c *Client) Pending(ctx context.Context) ([]request.Request, error) {
	var out []request.Request
	cursor := ""
	for {
		var got struct {
			Requests []request.Request `json:"requests"`
			Next     string            `json:"next"`
		}
		path := "/api/requests?status=pending&limit=" + strconv.Itoa(request.MaxPage)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		if err := c.do(ctx, http.MethodGet, path, nil, &got); err != nil {
			return out, err
		}
		out = append(out, got.Requests...)
		if got.Next == "" || got.Next == cursor {
			return out, nil
		}
		cursor = got.Next
	}
}

// Submit puts r in the queue as a new pending request and updates r as the
// server stored it (its id, time and status).
//
// Submit chooses the request's id before its first try (when r.ID is
// empty) and sends it with every try, so that a try whose answer was lost
// and the retry that follows make one request, not two: the server answers
// a second submit of the same id with the request as stored. It retries
// while the server is unreachable or answers 5xx — a server restarting —
// with back-off, until the request's deadline (or retryFor, without one)
// or ctx ends; after that it fails, and the caller fails closed.
func (c *Client) Submit(ctx context.Context, r *request.Request) error {
	if r.ID == "" {
		var b [18]byte
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("submitting a %s request: choosing its id: %w", r.Kind, err)
		}
		r.ID = base64.RawURLEncoding.EncodeToString(b[:])
	}
	until := time.Now().Add(retryFor)
	var own *time.Time // the caller's deadline
	if r.Deadline != nil {
		until = *r.Deadline
		t := *r.Deadline
		own = &t
	}
	var got request.Request
	backoff := 50 * time.Millisecond
	for {
		err := c.do(ctx, http.MethodPost, "/api/requests", r, &got)
		if err == nil {
			break
		}
		if !transient(err) || ctx.Err() != nil || !time.Now().Add(backoff).Before(until) {
			return fmt.Errorf("submitting a %s request: %w", r.Kind, err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("submitting a %s request: %w (after: %w)", r.Kind, ctx.Err(), err)
		case <-t.C:
		}
		backoff = min(backoff*2, time.Second)
	}
	*r = got
	c.deadlines.Store(got.ID, own)
	return nil
}

// Request returns request id as the server has it.
func (c *Client) Request(ctx context.Context, id string) (request.Request, error) {
	var got request.Request
	err := c.do(ctx, http.MethodGet, "/api/requests/"+url.PathEscape(id), nil, &got)
	return got, err
}

// Wait returns request id once it is no longer pending: decided, expired
// to its fail-safe outcome, or withdrawn. It long-polls the server, trying
// again while the server is unreachable. When ctx ends first, Wait
// withdraws the request (the run no longer waits for it) and returns ctx's
// error; when the server stays unreachable past the request's deadline, it
// returns an error, and the caller fails closed.
func (c *Client) Wait(ctx context.Context, id string) (request.Request, error) {
	path := "/api/requests/" + url.PathEscape(id) + "?wait=" + pollWait.String()
	backoff := 50 * time.Millisecond
	// The deadline that bounds the retries: the caller's own when this
	// client submitted the request (a server's default deadline is not the
	// run's: without one of its own, the run gives up on a server gone for
	// retryFor), else the request's as the server answers.
	var deadline *time.Time
	d, own := c.deadlines.LoadAndDelete(id)
	if own {
		deadline = d.(*time.Time)
	}
	var lastErr error
	answered := time.Now() // when the server last answered
	for {
		var got request.Request
		polled := time.Now()
		err := c.do(ctx, http.MethodGet, path, nil, &got)
		if err == nil {
			answered = time.Now()
		}
		switch {
		case ctx.Err() != nil:
			c.withdrawAfter(ctx, id)
			return request.Request{}, fmt.Errorf("waiting for request %s: %w", id, ctx.Err())
		case err == nil && got.Status != request.StatusPending:
			return got, nil
		case err == nil && time.Since(polled) > time.Second:
			backoff, lastErr = 50*time.Millisecond, nil
			if !own {
				deadline = got.Deadline
			}
			continue
		case err == nil:
			// Still pending after a short poll (a server that does not
			// hold long polls): wait a little before asking again.
			lastErr = nil
			if !own {
				deadline = got.Deadline
			}
		case !transient(err):
			return request.Request{}, fmt.Errorf("waiting for request %s: %w", id, err)
		}
		if err != nil {
			lastErr = err
		}
		if lastErr != nil && deadline != nil && time.Now().After(deadline.Add(time.Second)) {
			err := fmt.Errorf("the warden server at %s is gone: it has not answered since the request's deadline (%s) passed: %w", c.URL, deadline.Local().Format("15:04:05"), lastErr)
			c.setGone(err)
			return request.Request{}, fmt.Errorf("waiting for request %s: %w", id, err)
		}
		if lastErr != nil && deadline == nil && time.Since(answered) > retryFor {
			err := fmt.Errorf("the warden server at %s is gone: it has not answered for %s: %w", c.URL, retryFor, lastErr)
			c.setGone(err)
			return request.Request{}, fmt.Errorf("waiting for request %s: %w", id, err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			c.withdrawAfter(ctx, id)
			return request.Request{}, fmt.Errorf("waiting for request %s: %w", id, ctx.Err())
		case <-t.C:
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// setGone records that the server is gone (err says why): the events
// still queued are not retried, so that the run ends now rather than after
// giveUp; they are in the run's transcript.
func (c *Client) setGone(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone == nil {
		c.gone = err
	}
	c.notifyLocked()
}

// goneErr returns why the server is taken for gone, or nil.
func (c *Client) goneErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// withdrawAfter withdraws request id after ctx ended, on a context of its
// own.
func (c *Client) withdrawAfter(ctx context.Context, id string) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = c.Withdraw(wctx, id)
}

// Withdraw tells the server the run no longer waits for request id; a
// request already decided is left as it is.
func (c *Client) Withdraw(ctx context.Context, id string) error {
	if err := c.do(ctx, http.MethodPost, "/api/requests/"+url.PathEscape(id)+"/withdraw", nil, nil); err != nil {
		return fmt.Errorf("withdrawing request %s: %w", id, err)
	}
	return nil
}

// Decide records a decision on request id, as a person's surface would,
// and returns the request as stored.
func (c *Client) Decide(ctx context.Context, id string, d request.Answer) (request.Request, error) {
	var got request.Request
	err := c.do(ctx, http.MethodPost, "/api/requests/"+url.PathEscape(id)+"/decision", d, &got)
	return got, err
}

// Write queues e for the server's store (event.Sink). Events are sent in
// order, in batches, by a goroutine that runs while any are queued, and
// retried while the server is unreachable; Flush waits until all are
// stored. Write returns an error once events could not be delivered, and
// blocks while too many are queued.
func (c *Client) Write(e event.Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.err == nil && len(c.queue) >= maxQueue {
		ch := c.changedLocked()
		c.mu.Unlock()
		<-ch
		c.mu.Lock()
	}
	if c.err != nil {
		return c.err
	}
	c.queue = append(c.queue, e)
	if !c.sending {
		c.sending = true
		go c.send()
	}
	return nil
}

// changedLocked returns the channel closed at the next change of state.
func (c *Client) changedLocked() chan struct{} {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// notifyLocked wakes whoever waits for a change of state.
func (c *Client) notifyLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// send posts the queued events, a batch at a time, until the queue is
// empty or the server has not answered for giveUp. A batch holds at most
// maxBatch events and maxBatchBytes of JSON; a batch the server refuses as
// too large (413) is halved and sent again, down to one event.
func (c *Client) send() {
	for {
		c.mu.Lock()
		n := min(len(c.queue), maxBatch)
		if n == 0 {
			c.sending = false
			c.notifyLocked()
			c.mu.Unlock()
			return
		}
		batch := append([]event.Event(nil), c.queue[:n]...)
		c.mu.Unlock()

		if c.batchBytes <= 0 {
			c.batchBytes = maxBatchBytes
		}
		lines, err := batchLines(batch, c.batchBytes)
		for err == nil {
			body := joinLines(lines)
			err = c.post(body)
			var se *StatusError
			if !errors.As(err, &se) || se.Code != http.StatusRequestEntityTooLarge || len(lines) == 1 {
				break
			}
			// Too large for this server: halves from now on.
			lines, err = lines[:len(lines)/2], nil
			c.batchBytes = max(len(body)/2, 1)
		}
		n = len(lines)

		c.mu.Lock()
		if err != nil {
			c.err = fmt.Errorf("sending events to the warden server: %w", err)
			c.sending = false
			c.notifyLocked()
			c.mu.Unlock()
			return
		}
		c.queue = c.queue[n:]
		if len(c.queue) == 0 {
			c.queue = nil
		}
		c.notifyLocked()
		c.mu.Unlock()
	}
}

// batchLines returns the JSON of the first events of es that fit in limit
// bytes as one array, at least one.
func batchLines(es []event.Event, limit int) ([][]byte, error) {
	var lines [][]byte
	size := 2 // the brackets
	for _, e := range es {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		if len(lines) > 0 && size+len(line)+1 > limit {
			break
		}
		lines = append(lines, line)
		size += len(line) + 1
	}
	return lines, nil
}

// joinLines returns lines as one JSON array.
func joinLines(lines [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(lines, []byte{','})...), ']')
}

// post stores one batch (a JSON array of events), retrying with back-off
// while the server is unreachable (storing an event twice keeps one, so a
// retry is safe).
func (c *Client) post(body []byte) error {
	start := time.Now()
	backoff := 20 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.do(ctx, http.MethodPost, "/api/events", body, nil)
		cancel()
		if err == nil || !transient(err) || time.Since(start) > giveUp {
			return err
		}
		if gone := c.goneErr(); gone != nil {
			return fmt.Errorf("%w (the run's events are in its transcript)", gone)
		}
		time.Sleep(backoff)
		backoff = min(backoff*2, 2*time.Second)
	}
}

// Flush waits until every event written so far is stored, or delivery
// failed, or ctx ends.
func (c *Client) Flush(ctx context.Context) error {
	c.mu.Lock()
	for c.err == nil && (len(c.queue) > 0 || c.sending) {
		ch := c.changedLocked()
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return fmt.Errorf("sending events to the warden server: %w", ctx.Err())
		case <-ch:
		}
		c.mu.Lock()
	}
	err := c.err
	c.mu.Unlock()
	return err
}

// Close flushes the events written (waiting at most as long as the client
// retries an unreachable server) and reports whether all were stored.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), giveUp+time.Minute)
	defer cancel()
	return c.Flush(ctx)
}
