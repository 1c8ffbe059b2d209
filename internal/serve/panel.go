package serve

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/tool"
)

// The web panel (SPEC S2, H1–H5, G12): server-rendered pages over the
// store, with embedded assets and a little JavaScript for live updates
// (server-sent events from /api/events/stream) and keyboard shortcuts.
// Every page needs the session cookie; every form that changes state
// carries the session's CSRF token.

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// panelPages returns the panel's parsed templates by page name, parsed on
// first use (when the panel's routes are made), not when warden starts:
// no other command pays for them.
var panelPages = sync.OnceValue(parsePages)

// pageNames are the templates with a page of their own; each is parsed
// with the layout and the shared parts.
var pageNames = []string{"login", "queue", "denials", "runs", "run", "search", "fragments"}

func parsePages() map[string]*template.Template {
	base := template.Must(template.New("").Funcs(panelFuncs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html"))
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		t := template.Must(base.Clone())
		out[name] = template.Must(t.ParseFS(templateFS, "templates/"+name+".html"))
	}
	return out
}

// panelFuncs are the functions the templates use.
var panelFuncs = template.FuncMap{
	"short": shortID,
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"iso": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	},
	"ago":   func(t time.Time) string { return ago(time.Since(t)) },
	"split": func(s string) []string { return strings.Split(s, "\n") },
	"lines": func(s string) int {
		return min(max(strings.Count(s, "\n")+2, 6), 24)
	},
	"tone": toneOf,
	"hl":   highlight,
	"outputOf": func(label, text string) block {
		return block{Label: label, Kind: "output", Text: text}
	},
}

// shortID shortens an id for display: ids longer than 12 characters keep
// their first 8.
func shortID(id string) string {
	if len(id) <= 12 {
		return id
	}
	return id[:8] + "…"
}

// ago says how long ago a duration is, coarsely.
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h ago"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d ago"
}

// duration renders the length of a run.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.Itoa(int(d.Milliseconds())) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m " + strconv.Itoa(int(d.Seconds())%60) + "s"
	}
	return strconv.Itoa(int(d.Hours())) + "h " + strconv.Itoa(int(d.Minutes())%60) + "m"
}

// page is what every page template receives.
type page struct {
	Title string
	// Nav names the active navigation entry.
	Nav  string
	CSRF string
	// Pending is the number of pending requests, for the navigation badge.
	Pending int
	// Notice is a message shown at the top of the page; NoticeTone is ok,
	// bad or warn.
	Notice, NoticeTone string

	// Login page.
	Next, LoginError string

	// Queue page.
	Requests []requestView
	Decided  []requestView

	// Denials page.
	Denials []denialView

	// Runs page and run page.
	Runs   []runView
	Filter runFilter
	Run    runView
	Events []eventView
	// Last is the id of the last event shown, for live updates.
	Last string
	// Waiting are the run's requests waiting for a person.
	Waiting []requestView

	// Search page.
	Search searchForm
	Hits   []eventView
	Kinds  []string
	// Searched reports that a search was made (to say "no results").
	Searched bool

	// NextPage is the URL of the list's next page ("" on the last), and
	// More says what is not shown on this one.
	NextPage, More string

	// Operator names who is logged in, for the header ("" on the login
	// page).
	Operator string
	// Rules are the exact prefixes operators allowed for the run.
	Rules []ruleView
}

// ruleView is a rule of a run as its page shows it.
type ruleView struct {
	Function, Prefix, By, RequestID string
	Created                         time.Time
}

// choice is one decision button of a request.
type choice struct {
	Value, Label, Key, Class string
}

// requestView is a request as the queue shows it.
type requestView struct {
	ID, Kind, RunID, Agent  string
	CallID, Function        string
	CallText                string
	View                    string
	ViewDiff, EditDiff      []diffLine
	Message, MessageLabel   string
	Result                  string
	HasResult               bool
	Choices                 []choice
	CanModify               bool
	ArgsJSON                string
	EditText, EditError     string
	EditOpen                bool
	Created                 time.Time
	Deadline                *time.Time
	Failsafe                string
	Status, Decision        string
	Explanation, DecidedBy  string
	Modified                string
	DecisionTone, KindLabel string
	// CSRF is the session's token for the request's form.
	CSRF string
	// ShowArgs offers the exact arguments as JSON beside a call shown in
	// short.
	ShowArgs bool
	// Bulky reports arguments too deep or too large to indent or to edit
	// here: the call is shown once, compact; ArgsNote says why.
	Bulky    bool
	ArgsNote string
	// Long reports a call whose box shows only its first lines until the
	// person expands it; Approve waits until then. Size says how long.
	Long bool
	Size string
	// ResultLong is Long for a review's tool output; ResultSize its size.
	ResultLong bool
	ResultSize string
	// ResultCut says how the review's output was cut before it reached the
	// person ("" when whole).
	ResultCut string
	// commandsList holds the simple commands of a shell call, numbered,
	// the risky ones marked (Server.enrich).
	commandsList
	// Ctx is what the card shows around the call (Server.enrich).
	Ctx cardContext
	// Outcome says what became of a modified call; OutcomeTone colours it.
	Outcome, OutcomeTone string
	// Seen is the digest of the request (seenDigest) an approval from
	// the card carries once the card shows it whole.
	Seen string
	// Prefixes are the exact prefixes the card offers to allow for the
	// rest of the run, the most exact first.
	Prefixes []prefixOption
}

// sameAsArgument reports whether a call's view is just the text of one of
// its arguments (a shell command, say), which the call shows already.
func sameAsArgument(view string, raw json.RawMessage) bool {
	args, err := orderedArgs(raw)
	if err != nil {
		return false
	}
	for _, a := range args {
		var s string
		if json.Unmarshal(a.Value, &s) == nil && strings.TrimSpace(s) == strings.TrimSpace(view) {
			return true
		}
	}
	return false
}

// choiceLabels label the decisions; continue is labelled Approve (SPEC H2).
var choiceLabels = map[string]choice{
	"approve":   {Label: "Approve", Key: "a", Class: "approve"},
	"continue":  {Label: "Approve", Key: "a", Class: "approve"},
	"modify":    {Label: "Modify…", Key: "m", Class: "modify"},
	"reject":    {Label: "Reject", Key: "r", Class: "reject"},
	"terminate": {Label: "Terminate run", Key: "t", Class: "terminate"},
	"escalate":  {Label: "Escalate", Key: "e", Class: "escalate"},
}

// choiceOrder is the order the buttons are shown in.
var choiceOrder = []string{"approve", "continue", "modify", "reject", "terminate", "escalate"}

// viewRequest renders a stored request for the queue.
//
// The call is rendered in the order of its stored arguments: the queue
// stores them in the order of the tool's schema, then sorted (SPEC P2;
// queue.Approver), so the panel shows the call as patterns see it.
func viewRequest(r store.Request) requestView {
	order := tool.KeyOrder(r.Call.Arguments)
	v := requestView{
		ID: r.ID, Kind: r.Kind, RunID: r.RunID, Agent: safetext.Escape(r.Agent),
		CallID: safetext.Escape(r.Call.ID), Function: safetext.Escape(r.Call.Function),
		CallText: callText(r.Call.Function, r.Call.Arguments, order),
		View:     safetext.Escape(r.View),
		ViewDiff: viewDiff(r.View),
		EditDiff: editDiff(r.Call.Function, r.Call.Arguments),
		Result:   safetext.Escape(r.Result), HasResult: r.Kind == "review",
		Created: r.Created, Deadline: r.Deadline, Failsafe: r.Failsafe,
		Status: r.Status, Decision: r.Decision, Explanation: safetext.Escape(r.Explanation),
		DecidedBy: safetext.Escape(r.DecidedBy), DecisionTone: toneOf(r.Decision),
	}
	if v.Failsafe == "" && r.Deadline != nil {
		v.Failsafe = "reject"
		if r.Kind == "review" {
			v.Failsafe = "terminate"
		}
	}
	switch r.Kind {
	case "approval":
		v.KindLabel = "approval"
		v.MessageLabel = "assistant message"
	case "review":
		v.KindLabel = "review"
		v.MessageLabel = "assistant message"
	case "boundary":
		v.KindLabel = "boundary"
		// Without a context from the asker, the message holds warden's
		// description of the crossing and the model's words together.
		v.MessageLabel = "request as sent (warden's description, then the model's words)"
	default:
		v.KindLabel = safetext.Escape(r.Kind)
		v.MessageLabel = "message"
	}
	v.Message = safetext.Escape(r.Message)
	if v.EditDiff != nil {
		v.ViewDiff = nil // the edit diff says the same, read from the arguments
		v.CallText = callSummary(r.Call.Function, r.Call.Arguments, order)
		v.ShowArgs = true
	}
	if v.View != "" && sameAsArgument(r.View, r.Call.Arguments) {
		v.View = "" // the call shows it already
	}
	if len(r.Modified) > 0 {
		v.Modified = callText(r.Call.Function, r.Modified, order)
	}
	for _, c := range choiceOrder {
		if !slices.Contains(r.Choices, c) {
			continue
		}
		ch := choiceLabels[c]
		ch.Value = c
		v.Choices = append(v.Choices, ch)
		if c == "modify" {
			v.CanModify = true
		}
	}
	for _, c := range r.Choices { // choices this version does not know still get a button
		if _, ok := choiceLabels[c]; !ok {
			v.Choices = append(v.Choices, choice{Value: c, Label: safetext.Escape(c), Class: "escalate"})
		}
	}
	if bulky(r.Call.Arguments) {
		// Shown once, compact: no indented copy, no copy in the editor.
		v.Bulky, v.ShowArgs, v.EditDiff = true, false, nil
		v.CallText = callText(r.Call.Function, r.Call.Arguments, order)
		v.ArgsNote = "arguments of " + size(string(r.Call.Arguments)) + ", nested " + strconv.Itoa(jsonDepth(r.Call.Arguments, 1<<30)) + " deep: shown once, compact; write new arguments to modify them"
	} else {
		v.ArgsJSON = prettyJSON(r.Call.Arguments)
		v.EditText = v.ArgsJSON
	}
	v.Long, v.Size = isLong(v.CallText), size(v.CallText)
	if v.HasResult {
		v.ResultLong, v.ResultSize = isLong(v.Result), size(v.Result)
		if r.Truncated != nil {
			v.ResultCut = "truncated: the tool's output was " + strconv.Itoa(r.Truncated[0]) + " bytes, " + strconv.Itoa(r.Truncated[1]) + " are shown"
		}
	}
	if r.Status == store.StatusPending {
		v.Seen, v.Prefixes = seenDigest(r), prefixOptions(r)
	}
	return v
}

// denialView is a denial as the denials page shows it.
type denialView struct {
	ID, RunID, CallID    string
	Action               string
	RiskLevel, Rationale string
	Time                 time.Time
	Status               string
}

// runView is a run as the runs pages show it.
type runView struct {
	ID, Task, Model, Status string
	Started                 time.Time
	Duration                string
	Running                 bool
	Events, Pending         int
	Counts                  []fact
}

func viewRun(r store.Run) runView {
	v := runView{ID: r.ID, Task: safetext.Escape(r.Task), Model: safetext.Escape(r.Model), Status: r.Status, Started: r.Started,
		Running: r.Status == "running" || r.Status == "", Events: r.Counts["events"], Pending: r.Counts["pending"]}
	if v.Status == "" {
		v.Status = "running"
	}
	if r.Ended != nil && !r.Started.IsZero() {
		v.Duration = duration(r.Ended.Sub(r.Started))
	} else if v.Running && !r.Started.IsZero() {
		v.Duration = duration(time.Since(r.Started).Truncate(time.Second)) + " so far"
	}
	for _, k := range []struct{ kind, label string }{
		{"model", "model calls"}, {"tool", "tool calls"}, {"approval", "approvals"}, {"review", "reviews"},
		{"auto_review", "auto-reviews"}, {"override", "overrides"},
	} {
		if n := r.Counts[k.kind]; n > 0 {
			v.Counts = append(v.Counts, fact{k.label, strconv.Itoa(n)})
		}
	}
	return v
}

// runFilter is the runs page's filter form.
type runFilter struct {
	Status, Task, Within, Since, Until string
	Statuses                           []string
}

// searchForm is the search page's form.
type searchForm struct{ Q, Kind, Run string }

// eventKinds are the kinds offered in the search form.
var eventKinds = []string{
	eventkind.RunStart, eventkind.TurnStart, eventkind.Model, eventkind.Approval,
	eventkind.Tool, eventkind.Review, eventkind.AutoReview, eventkind.Override,
	eventkind.OverrideUsed, eventkind.Withheld, eventkind.Handoff, eventkind.Info,
	eventkind.Warning, eventkind.Limit, eventkind.Error, eventkind.RunEnd,
}

// panel registers the panel's pages on mux.
func (s *Server) panel(mux *http.ServeMux) {
	panelPages() // parsed with the routes, before the first request
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.loginSubmit)
	mux.HandleFunc("POST /logout", s.pageAction(s.logoutSubmit))
	mux.HandleFunc("GET /{$}", s.pageView(s.queuePage))
	mux.HandleFunc("GET /denials", s.pageView(s.denialsPage))
	mux.HandleFunc("GET /runs", s.pageView(s.runsPage))
	mux.HandleFunc("GET /runs/{id}", s.pageView(s.runPage))
	mux.HandleFunc("GET /search", s.pageView(s.searchPage))
	mux.HandleFunc("POST /requests/{id}/decide", s.pageAction(s.decideSubmit))
	mux.HandleFunc("POST /denials/{id}/approve", s.pageAction(s.denialApproveSubmit))
	mux.HandleFunc("GET /fragments/queue", s.fragment(s.queueFragment))
	mux.HandleFunc("GET /fragments/runs/{id}", s.fragment(s.runFragment))
	mux.HandleFunc("GET /fragments/runs/{id}/waiting", s.fragment(s.waitingFragment))
}

// pageHeaders sets the headers of every panel page: no caching, and a
// content security policy that allows only the panel's own scripts and
// styles, so that text shown in a page can never run (SPEC H5).
func pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
}

// pageView wraps a page handler: without a session the person is sent to
// the login page, coming back here after.
func (s *Server) pageView(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.session(r) {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		h(w, r)
	}
}

// pageAction wraps a form handler that changes state: it needs a session
// (else 303 to the login page) and the session's CSRF token (else 403).
func (s *Server) pageAction(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.session(r) {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		if !s.checkCSRF(r) {
			pageHeaders(w)
			w.WriteHeader(http.StatusForbidden)
			s.render(w, r, "login", page{Title: "Forbidden", LoginError: "This form has expired or did not come from the panel (missing or wrong CSRF token). Go back, reload the page and try again."})
			return
		}
		h(w, r)
	}
}

// fragment wraps a handler of an HTML fragment fetched by the panel's
// script: without a session it answers 401, and the script reloads.
func (s *Server) fragment(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.session(r) {
			http.Error(w, "log in again", http.StatusUnauthorized)
			return
		}
		h(w, r)
	}
}

// render executes a page template into w; on failure it answers 500. The
// page is rendered to a buffer first, so a failure never sends half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	s.renderTemplate(w, r, name, "layout", p)
}

func (s *Server) renderTemplate(w http.ResponseWriter, r *http.Request, name, tmpl string, p any) {
	var b bytes.Buffer
	if err := panelPages()[name].ExecuteTemplate(&b, tmpl, p); err != nil {
		s.logError(r, "render "+name, err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	pageHeaders(w)
	_, _ = w.Write(b.Bytes())
}

// logError logs an error of a panel request.
func (s *Server) logError(r *http.Request, what string, err error) {
	s.logger().Error("panel: "+what, "path", r.URL.Path, "err", err)
}

// newPage returns a page with what every page shows: the CSRF token and
// the pending count.
func (s *Server) newPage(ctx context.Context, r *http.Request, title, nav string) page {
	p := page{Title: title, Nav: nav, CSRF: s.csrfToken(r)}
	if se, ok := s.current(r); ok {
		p.Operator = se.operator
		if p.Operator == "" {
			p.Operator = "the operator (unnamed)"
		}
	}
	if n, err := s.Store.PendingCount(ctx); err == nil {
		p.Pending = n
	}
	return p
}

// safeNext returns where to go after logging in: next when it is a path
// of this server, else "/". A path is accepted only when it starts with
// one "/" and holds no control character, space, backslash or "//"
// anywhere: browsers drop tabs and line breaks from a Location and read
// "\\" as "/", so "/\t/evil.example" would otherwise leave the site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "/login") || strings.Contains(next, "//") {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	if !utf8.ValidString(next) || strings.ContainsFunc(next, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || (r >= 0x80 && r <= 0x9f) }) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	return next
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if s.session(r) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.render(w, r, "login", page{Title: "Log in", Next: next})
}

func (s *Server) loginSubmit(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	next := safeNext(r.PostFormValue("next"))
	if s.login(w, r, strings.TrimSpace(r.PostFormValue("token"))) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	pageHeaders(w)
	w.WriteHeader(http.StatusUnauthorized)
	s.render(w, r, "login", page{Title: "Log in", Next: next, LoginError: "That credential is not right: it is not an operator's of this server. It is $WARDEN_TOKEN, or one `warden operator add NAME` printed; the run credential in $WARDEN_HOME/token cannot log in."})
}

func (s *Server) logoutSubmit(w http.ResponseWriter, r *http.Request) {
	s.logout(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// queueData loads the oldest page of pending requests and the last few
// decided ones: a queue of thousands shows its first store.DefaultPage,
// and says so.
func (s *Server) queueData(ctx context.Context, p *page) error {
	pending, next, err := s.Store.RequestPage(ctx, "pending", store.Page{})
	if err != nil {
		return err
	}
	p.Pending = len(pending)
	if next != "" {
		if n, err := s.Store.PendingCount(ctx); err == nil {
			p.Pending = n
		}
		p.More = "The oldest " + strconv.Itoa(len(pending)) + " of " + strconv.Itoa(p.Pending) + " pending requests are shown; the next come as these are decided."
	}
	for _, r := range pending {
		v := viewRequest(r)
		v.CSRF = p.CSRF
		p.Requests = append(p.Requests, v)
	}
	s.enrich(ctx, p.Requests, pending)
	decided, _, err := s.Store.RequestPage(ctx, "decided", store.Page{Limit: 8})
	if err != nil {
		return err
	}
	for _, r := range decided {
		p.Decided = append(p.Decided, viewRequest(r))
	}
	s.enrich(ctx, p.Decided, decided)
	return nil
}

func (s *Server) queuePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := s.newPage(ctx, r, "Queue", "queue")
	if err := s.queueData(ctx, &p); err != nil {
		s.fail(w, r, "queue", err)
		return
	}
	if id := r.URL.Query().Get("decided"); id != "" {
		if req, err := s.Store.Request(ctx, id); err == nil && req.Status != "pending" {
			p.Notice = "Recorded: " + decisionLabel(req) + " for " + safetext.Escape(req.Call.Function) + " (" + shortID(req.ID) + ")."
			p.NoticeTone = "ok"
			if req.Decision == "modify" {
				p.Notice += " What became of the modified call shows under Recently decided, once the run reports it."
			}
			if r.URL.Query().Get("rule") != "" {
				for _, rv := range s.ruleViews(ctx, req.RunID) {
					if rv.RequestID == req.ID {
						p.Notice += " From now on, calls of " + rv.Function + " in run " + shortID(req.RunID) + " that start with `" + rv.Prefix + "` are approved in your name without asking (the run's page lists its rules)."
					}
				}
			}
		}
	}
	s.render(w, r, "queue", p)
}

// decisionLabel names a request's decision as the buttons did.
func decisionLabel(r store.Request) string {
	if c, ok := choiceLabels[r.Decision]; ok && r.Decision != "modify" {
		return strings.ToLower(c.Label)
	}
	return safetext.Escape(r.Decision)
}

// fail answers a page whose data could not be loaded: 500 with the error.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.logError(r, what, err)
	s.errorPage(w, r, http.StatusInternalServerError, "Error", "The "+what+" could not be loaded: "+err.Error())
}

// errorPage answers status with a page that says msg.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	p := s.newPage(r.Context(), r, title, "")
	p.LoginError = msg
	var b bytes.Buffer
	if err := panelPages()["login"].ExecuteTemplate(&b, "layout", p); err != nil {
		http.Error(w, msg, status)
		return
	}
	pageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func (s *Server) queueFragment(w http.ResponseWriter, r *http.Request) {
	p := page{CSRF: s.csrfToken(r)}
	if err := s.queueData(r.Context(), &p); err != nil {
		s.logError(r, "queue fragment", err)
		http.Error(w, "the queue could not be loaded", http.StatusInternalServerError)
		return
	}
	s.renderTemplate(w, r, "fragments", "queue-fragment", p)
}

// decideSubmit records a decision from a request's form. A modify whose
// arguments are not a JSON object is refused with 400 and the queue shown
// again with the message beside the field and the text as typed.
func (s *Server) decideSubmit(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	d := store.Answer{
		Decision:    r.PostFormValue("decision"),
		Explanation: strings.TrimSpace(r.PostFormValue("explanation")),
		DecidedBy:   s.who(r),
		DecidedVia:  "panel",
	}
	// An approval from a card carries the digest of the request as the
	// card showed it whole; "approve-prefix" also allows the prefix
	// chosen on the card for the rest of the run.
	cd := checkedDecision{seen: r.PostFormValue("seen"), needSeen: true}
	status, msg := http.StatusOK, ""
	if d.Decision == "approve-prefix" {
		d.Decision = "approve"
		if err := json.Unmarshal([]byte(r.PostFormValue("allow_prefix")), &cd.prefix); err != nil || len(cd.prefix) == 0 {
			status, msg = http.StatusBadRequest, "Nothing was decided: choose the prefix to allow for this run."
		}
	}
	var editErr, editText string
	if d.Decision == "modify" {
		editText = r.PostFormValue("modified")
		args, err := validArguments(editText)
		if err != nil {
			status, editErr = http.StatusBadRequest, err.Error()
		}
		d.Modified = args
	}
	if editErr == "" && msg == "" {
		cd.Answer = d
		req, rule, err := s.decideChecked(ctx, id, cd)
		switch {
		case err == nil:
			s.logger().Info("decided", "request", req.ID, "run", req.RunID, "decision", req.Decision, "by", d.DecidedBy)
			to := "/?decided=" + url.QueryEscape(id)
			if rule != nil {
				to += "&rule=1"
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		case errors.Is(err, errUnseen):
			status, msg = http.StatusConflict, "Nothing was decided: approve only what the panel has shown you whole (show the whole call, then approve). "+err.Error()
		case errors.Is(err, errPrefix):
			status, msg = http.StatusBadRequest, "Nothing was decided: "+err.Error()
		case errors.Is(err, store.ErrNotFound):
			status, msg = http.StatusNotFound, "There is no request "+id+"."
		case errors.Is(err, store.ErrNotPending):
			status, msg = http.StatusConflict, "That request was already decided (or withdrawn) elsewhere; nothing was changed."
		case errors.Is(err, store.ErrChoice):
			status, msg = http.StatusBadRequest, "That decision was not offered: "+err.Error()
			if d.Decision == "modify" {
				editErr = err.Error()
			}
		default:
			s.logError(r, "decide", err)
			status, msg = http.StatusInternalServerError, "The decision could not be recorded: "+err.Error()
		}
	}
	p := s.newPage(ctx, r, "Queue", "queue")
	if err := s.queueData(ctx, &p); err != nil {
		s.fail(w, r, "queue", err)
		return
	}
	if editErr != "" {
		for i := range p.Requests {
			if p.Requests[i].ID == id {
				p.Requests[i].EditText, p.Requests[i].EditError, p.Requests[i].EditOpen = editText, editErr, true
			}
		}
		if msg == "" {
			msg = "The modified arguments were not accepted: " + editErr
		}
	}
	p.Notice, p.NoticeTone = msg, "bad"
	var b bytes.Buffer
	if err := panelPages()["queue"].ExecuteTemplate(&b, "layout", p); err != nil {
		s.logError(r, "render queue", err)
		http.Error(w, msg, status)
		return
	}
	pageHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// pageFailed answers a list page whose items could not be read (titled
// title, items naming them): 400 for a cursor the list did not give, else
// the failure of what. It reports whether it answered.
func (s *Server) pageFailed(w http.ResponseWriter, r *http.Request, title, items, what string, err error) bool {
	if errors.Is(err, store.ErrCursor) {
		s.errorPage(w, r, http.StatusBadRequest, title, "That page of "+items+" does not exist: "+err.Error())
		return true
	}
	if err != nil {
		s.fail(w, r, what, err)
		return true
	}
	return false
}

func (s *Server) denialsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := s.newPage(ctx, r, "Denials", "denials")
	ds, next, err := s.Store.DenialPage(ctx, r.URL.Query().Get("run"), store.Page{After: r.URL.Query().Get("cursor")})
	if s.pageFailed(w, r, "Denials", "denials", "denials", err) {
		return
	}
	p.NextPage = nextPage(r, "cursor", next)
	for _, d := range ds {
		p.Denials = append(p.Denials, denialView{ID: d.ID, RunID: d.RunID, CallID: safetext.Escape(d.CallID), Action: safetext.Escape(prettyJSON(d.Action)),
			RiskLevel: safetext.Escape(d.RiskLevel), Rationale: safetext.Escape(d.Rationale), Time: d.Time, Status: d.Status})
	}
	switch r.URL.Query().Get("approved") {
	case "":
	default:
		p.Notice, p.NoticeTone = "One retry of that exact action is allowed. It still goes through auto-review, which sees your approval.", "ok"
	}
	s.render(w, r, "denials", p)
}

func (s *Server) denialApproveSubmit(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	note := strings.TrimSpace(r.PostFormValue("note"))
	if _, err := s.approve(ctx, id, s.who(r), note); err != nil {
		s.logError(r, "approve denial", err)
		p := s.newPage(ctx, r, "Denials", "denials")
		if ds, lerr := s.Store.Denials(ctx, ""); lerr == nil {
			for _, d := range ds {
				p.Denials = append(p.Denials, denialView{ID: d.ID, RunID: d.RunID, CallID: safetext.Escape(d.CallID), Action: safetext.Escape(prettyJSON(d.Action)),
					RiskLevel: safetext.Escape(d.RiskLevel), Rationale: safetext.Escape(d.Rationale), Time: d.Time, Status: d.Status})
			}
		}
		status := http.StatusInternalServerError
		switch {
		case errors.Is(err, store.ErrNotFound):
			status = http.StatusNotFound
		case errors.Is(err, errOverridden), errors.Is(err, errUnverified):
			status = http.StatusConflict
		case errors.Is(err, errNoKey):
			status = http.StatusServiceUnavailable
		}
		p.Notice, p.NoticeTone = "The retry could not be allowed: "+err.Error(), "bad"
		var b bytes.Buffer
		if err := panelPages()["denials"].ExecuteTemplate(&b, "layout", p); err != nil {
			http.Error(w, p.Notice, status)
			return
		}
		pageHeaders(w)
		w.WriteHeader(status)
		_, _ = w.Write(b.Bytes())
		return
	}
	http.Redirect(w, r, "/denials?approved="+url.QueryEscape(id), http.StatusSeeOther)
}

// runStatuses are the statuses offered in the runs filter.
var runStatuses = []string{"running", "completed", "limited", "error"}

// withinDurations are the "started within" choices of the runs filter.
var withinDurations = map[string]time.Duration{"1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// parseWhen reads a time of the runs filter: RFC 3339, or the value of a
// datetime-local field (read as UTC).
func parseWhen(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	p := s.newPage(ctx, r, "Runs", "runs")
	p.Filter = runFilter{Status: q.Get("status"), Task: q.Get("task"), Within: q.Get("within"), Since: q.Get("since"), Until: q.Get("until"), Statuses: runStatuses}
	f := store.RunFilter{Status: p.Filter.Status, Task: strings.TrimSpace(p.Filter.Task)}
	if d, ok := withinDurations[p.Filter.Within]; ok {
		f.Since = time.Now().Add(-d)
	}
	var bad []string
	if t, ok := parseWhen(p.Filter.Since); ok {
		f.Since = t
	} else if p.Filter.Since != "" {
		bad = append(bad, "since")
	}
	if t, ok := parseWhen(p.Filter.Until); ok {
		f.Until = t
	} else if p.Filter.Until != "" {
		bad = append(bad, "until")
	}
	if len(bad) > 0 {
		p.Notice, p.NoticeTone = "Ignored "+strings.Join(bad, " and ")+": write a time as 2026-12-01T14:30 (UTC) or RFC 3339.", "warn"
	}
	runs, next, err := s.Store.RunPage(ctx, f, store.Page{Limit: 200, After: q.Get("cursor")})
	if s.pageFailed(w, r, "Runs", "runs", "runs", err) {
		return
	}
	p.NextPage = nextPage(r, "cursor", next)
	for _, run := range runs {
		p.Runs = append(p.Runs, viewRun(run))
	}
	s.render(w, r, "runs", p)
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	run, err := s.Store.Run(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound, "No such run", "There is no run "+id+" in the store.")
		return
	}
	if err != nil {
		s.fail(w, r, "run", err)
		return
	}
	// One page of the transcript, from the start or after an event.
	after := r.URL.Query().Get("after")
	evs, err := s.Store.Events(ctx, id, after, runPageEvents+1)
	if errors.Is(err, store.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound, "No such event", "Run "+id+" has no event "+after+".")
		return
	}
	if err != nil {
		s.fail(w, r, "run's events", err)
		return
	}
	p := s.newPage(ctx, r, "Run "+shortID(id), "runs")
	p.Run = viewRun(run)
	p.Waiting = s.waiting(ctx, id)
	if len(evs) > runPageEvents {
		evs = evs[:runPageEvents]
		p.NextPage = nextPage(r, "after", evs[len(evs)-1].ID)
		p.More = "The first " + strconv.Itoa(len(evs)) + " events from here are shown; later events are on the next page."
	}
	p.Rules = s.ruleViews(ctx, id)
	for _, e := range evs {
		p.Events = append(p.Events, viewEvent(e, s.Orders))
	}
	if len(evs) > 0 {
		p.Last = evs[len(evs)-1].ID
	}
	s.render(w, r, "run", p)
}

// waiting returns the requests of run id that wait for a person (among
// the oldest store.MaxPage pending, so that a run's page stays cheap).
func (s *Server) waiting(ctx context.Context, id string) []requestView {
	pending, _, err := s.Store.RequestPage(ctx, "pending", store.Page{Limit: store.MaxPage})
	if err != nil {
		return nil
	}
	var out []requestView
	for _, req := range pending {
		if req.RunID == id {
			out = append(out, requestView{ID: req.ID, Kind: req.Kind, Function: safetext.Escape(req.Call.Function), Created: req.Created})
		}
	}
	return out
}

// waitingFragment is the run page's notice of the requests waiting for a
// person, for live updates.
func (s *Server) waitingFragment(w http.ResponseWriter, r *http.Request) {
	s.renderTemplate(w, r, "fragments", "waiting-fragment", page{Waiting: s.waiting(r.Context(), r.PathValue("id"))})
}

func (s *Server) runFragment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	evs, err := s.Store.Events(ctx, r.PathValue("id"), r.URL.Query().Get("after"), 500)
	if err != nil {
		s.logError(r, "run fragment", err)
		http.Error(w, "the events could not be loaded", http.StatusInternalServerError)
		return
	}
	p := page{}
	for _, e := range evs {
		p.Events = append(p.Events, viewEvent(e, s.Orders))
	}
	s.renderTemplate(w, r, "fragments", "events-fragment", p)
}

func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	p := s.newPage(ctx, r, "Search", "search")
	p.Search = searchForm{Q: q.Get("q"), Kind: q.Get("kind"), Run: q.Get("run")}
	p.Kinds = eventKinds
	if p.Search.Q != "" || p.Search.Kind != "" || p.Search.Run != "" {
		p.Searched = true
		hits, next, err := s.Store.SearchPage(ctx, store.Query{Text: p.Search.Q, Kind: p.Search.Kind, RunID: strings.TrimSpace(p.Search.Run)}, store.Page{Limit: 200, After: q.Get("cursor")})
		if s.pageFailed(w, r, "Search", "results", "search", err) {
			return
		}
		p.NextPage = nextPage(r, "cursor", next)
		var mark *regexp.Regexp
		if q := strings.TrimSpace(p.Search.Q); q != "" {
			mark = regexp.MustCompile(regexp.QuoteMeta(q)) // as the store matches: exactly
		}
		for _, h := range hits {
			v := viewEvent(h.Event, s.Orders)
			for i := range v.Blocks {
				v.Blocks[i].Mark = mark
			}
			p.Hits = append(p.Hits, v)
		}
	}
	s.render(w, r, "search", p)
}

// nextPage is the URL of the next page of the list r shows: r's own with
// param set to next; "" when next is "" (the last page).
func nextPage(r *http.Request, param, next string) string {
	if next == "" {
		return ""
	}
	q := r.URL.Query()
	q.Set(param, next)
	return (&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()
}
