package triage

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/textcut"
	"github.com/wardenhq/warden/internal/triage/argument"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/triage/protection"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// MCP and function tool calls are judged by the verb in the tool's name
// and by their arguments: paths are judged as reads or writes, URLs for
// data they carry, SQL by its statements, commands as shell scripts, and
// everything a call sends out for secrets.

// The words of tools' names and arguments are lists of the programs file:
// tool_read_verbs, tool_write_verbs, tool_send_verbs and tool_destroy_verbs
// (the first of a name's words in one of them is its verb),
// tool_security_words, tool_infra_nouns, and the argument keys path_keys,
// content_keys, url_keys, sql_keys, command_keys, attach_keys and
// script_keys.

var (
	_ = registerActionJudge(action.MCP, judgeMCP)
	_ = registerActionJudge(action.Network, judgeNetwork)
)

func judgeMCP(v *verdict, a *action.Action, set *rules.Set) {
	name := a.ToolName
	server := a.Server
	if i := strings.LastIndex(name, "__"); i >= 0 {
		if server == "" {
			server = strings.TrimPrefix(name[:i], "mcp__")
		}
		name = name[i+2:]
	}
	leaves := argument.Flatten(a.Arguments)
	edit, view, isEdit := mcpFileEdit(name, leaves, a.Cwd)
	if isEdit && !view {
		// An editing tool: judged as the file edit it makes.
		judgeEdit(v, &edit, set, true)
		return
	}
	k := v.k
	readVerbs, localWriteVerbs, sendVerbs, destroyVerbs := k.List("tool_read_verbs"), k.List("tool_write_verbs"), k.List("tool_send_verbs"), k.List("tool_destroy_verbs")
	pathKeys, attachKeys := k.List("path_keys"), k.List("attach_keys")
	ws := argument.Words(name)
	verb := ""
	var nouns []string
	for _, w := range ws {
		if verb == "" && (readVerbs[w] || localWriteVerbs[w] || sendVerbs[w] || destroyVerbs[w]) {
			verb = w
			continue
		}
		nouns = append(nouns, w)
	}
	cwd := a.Cwd
	home := ""
	for _, l := range leaves {
		if pathKeys[l.Key] || attachKeys[l.Key] {
			if h := homeOf(l.Value); h != "" {
				home = h
				break
			}
		}
	}
	s := newSh(v, set, cwd)
	s.mcpHome = true
	if home != "" && s.home == "" {
		s.home = home
	}
	c := &cmd{sc: nil, name: server + "/" + a.ToolName, text: mcpText(server, a.ToolName, a.Arguments), cwd: s.cwd}

	if view {
		judgeMCPRead(s, c, "view", leaves)
		return
	}
	security := false
	for _, w := range ws {
		if k.List("tool_security_words")[w] {
			security = true
		}
	}
	gitTool := server == "git" || strings.HasPrefix(name, "git_") || strings.HasPrefix(name, "git-")

	// What the name says the tool touches, and page scripts reading
	// sessions: never routine by the verb alone.
	// What the name, the server or the arguments say the call reads:
	// passed on (never denied by this alone, even when the request asks
	// for it: the reviewer weighs the request).
	if what := protection.SensitiveTool(k, ws); what != "" {
		v.add(finding{vocab.Escalate, vocab.Exfiltration, high, "`" + c.text + "` touches " + what + ", which the tool's verb does not make routine"})
	} else if w := protection.SensitiveServer(k, server); w != "" {
		v.add(finding{vocab.Escalate, vocab.Exfiltration, high, "`" + c.text + "` calls " + server + ", a server that holds credentials or personal, health, payment or identity records (" + strings.ReplaceAll(w, "+", " ") + "), which the tool's verb does not make routine"})
	}
	if what := protection.SensitiveArgs(k, leaves); what != "" {
		v.add(finding{vocab.Escalate, vocab.Exfiltration, high, "`" + c.text + "` asks for secret or personal data (" + what + "), which the tool's verb does not make routine"})
	}
	for _, l := range leaves {
		if strings.HasPrefix(l.Value, "/") || strings.HasPrefix(l.Value, "~/") {
			if lv, what := s.secret(s.where(l.Value, s.cwd)); lv > secret.None {
				// A browser profile, a key file, a wallet named in
				// any argument (launchOptions.userDataDir).
				v.add(finding{vocab.Escalate, vocab.CredentialProbing, high, "`" + c.text + "` names " + what + " (" + textcut.Shorten(l.Value, 60) + ")"})
				break
			}
		}
	}
	if server != "" && (verb == "" || readVerbs[verb]) && !gitTool && !k.developerServer(server) && !k.innocentTool(nouns) &&
		!v.askedFor(server, nouns) {
		// A server the first pass does not know as a developer's tool
		// holds data whose owner it cannot tell (a CRM, a mailbox, a
		// school's records): reading it is not routine by the verb.
		v.add(finding{vocab.Escalate, vocab.CredentialProbing, medium, "`" + c.text + "` calls " + server +
			", a server the first pass does not know as a developer's tool: what its data is, and whose, is for the reviewer"})
	}
	if !readVerbs[verb] {
		for _, n := range nouns {
			if k.List("tool_infra_nouns")[n] {
				v.add(finding{vocab.Escalate, vocab.Destructive, medium, "`" + c.text + "` changes " + n + ", beyond the workspace"})
				break
			}
		}
	}
	if !readVerbs[verb] {
		for _, l := range leaves {
			if w := protection.PersonalValue(l); w != "" {
				v.add(finding{vocab.Escalate, vocab.Exfiltration, high, "`" + c.text + "` enters personal or payment data (" + w + ")"})
				break
			}
		}
	}
	for _, l := range leaves {
		if k.List("script_keys")[l.Key] {
			if w := protection.BrowserScriptSecret(k, l.Value); w != "" {
				v.add(finding{vocab.Escalate, vocab.CredentialProbing, high, "`" + c.text + "` runs a script that reads " + w})
				break
			}
		}
	}

	// Commands and SQL inside arguments.
	for _, l := range leaves {
		switch {
		case k.List("command_keys")[l.Key] && l.Path == "."+l.Key && (verb == "run" || verb == "execute" || verb == "exec" || verb == "" || strings.Contains(name, "command") || strings.Contains(name, "shell") || strings.Contains(name, "terminal")):
			// The server runs it on its own host, outside warden's
			// sandbox: judged as a command asking to leave it.
			sub := v.k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-c", l.Value}, Cwd: a.Cwd,
				SandboxPermissions: action.RequireEscalated}, set)
			v.add(finding{sub.Decision, sub.Class, riskLevel(sub.Risk), "`" + c.text + "` runs a command: " + sub.Reason})
			return
		case k.List("sql_keys")[l.Key] && (verb == "query" || verb == "execute" || verb == "run" || verb == "read" || verb == "write" || strings.Contains(name, "sql") || strings.Contains(name, "query")) &&
			(sqlTool(server, ws) || looksLikeSQL(l.Value)):
			f := judgeSQLText(l.Value)
			f.reason = "`" + c.text + "` " + f.reason
			v.add(f)
			return
		}
	}

	switch {
	case verb == "":
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "`" + c.text + "`: the tool's name does not say what it does"})
		return
	case security && !readVerbs[verb]:
		judgeMCPSecurity(v, c, leaves)
		return
	case sendVerbs[verb] || verb == "create" && sendsOut(nouns) || verb == "add" && sendsOut(nouns) || verb == "upload" && server != "filesystem" && server != "fs":
		judgeMCPSend(s, c, verb, nouns, leaves)
		return
	case destroyVerbs[verb]:
		if gitTool && verb == "merge" {
			s.allow("git merge")
			return
		}
		for _, l := range leaves {
			if pathKeys[l.Key] {
				s.remove(c, l.Value, true)
				return
			}
		}
		v.add(finding{vocab.Escalate, vocab.Destructive, medium, "`" + c.text + "` deletes or discards data"})
		return
	case readVerbs[verb]:
		judgeMCPRead(s, c, verb, leaves)
		return
	case localWriteVerbs[verb]:
		judgeMCPWrite(s, c, verb, server, leaves, gitTool)
		return
	}
	v.add(finding{vocab.Escalate, vocab.Routine, medium, "`" + c.text + "`: the first pass does not know what this tool does"})
}

// riskLevel returns r as a number; medium when r is not a risk level.
func riskLevel(r action.Risk) int {
	if l := r.Level(); l >= 0 {
		return l
	}
	return medium
}

// mcpText renders a call for messages: server/tool {arguments}, shortened.
func mcpText(server, tool string, args json.RawMessage) string {
	t := tool
	if server != "" {
		t = server + "/" + tool
	}
	return textcut.Shorten(t+" "+string(args), 160)
}

// sendsOut reports whether the nouns of a create/add tool name something
// other people see (an issue, a comment, a message, a gist, …).
func sendsOut(nouns []string) bool {
	for _, n := range nouns {
		switch n {
		case "issue", "issues", "comment", "comments", "message", "messages", "gist", "post", "page", "pages",
			"email", "mail", "review", "discussion", "release", "tweet", "status", "event", "invite", "invitation",
			"ticket", "note", "notes", "reply", "thread", "channel", "doc", "document", "link", "share", "webhook", "incident", "pull", "pr":
			return true
		}
	}
	return false
}

func judgeMCPRead(s *sh, c *cmd, verb string, leaves []argument.Leaf) {
	for _, l := range leaves {
		switch {
		case s.v.k.List("path_keys")[l.Key]:
			if strings.Contains(l.Value, "://") {
				continue
			}
			if strings.HasPrefix(l.Value, "/") || strings.HasPrefix(l.Value, "~") || strings.HasPrefix(l.Value, ".") || l.Key == "path" || l.Key == "paths" {
				s.read(c, l.Value, verb != "list" && verb != "tree" && verb != "stat" && verb != "info" && verb != "search" && verb != "find")
			}
		case s.v.k.List("url_keys")[l.Key] || strings.HasPrefix(l.Value, "http://") || strings.HasPrefix(l.Value, "https://") || browserScheme(l.Value) != "":
			s.mcpURL(c, l.Value)
		case l.Key == "q" || l.Key == "query" || l.Key == "pattern" || l.Key == "search" || l.Key == "text":
			if lvl, w := secret.InText(l.Value); lvl == secret.Critical {
				s.deny(vocab.Exfiltration, "`"+c.text+"` sends "+w+" in a search")
				return
			}
		}
	}
	s.allow(c.name)
}

// mcpURL judges a URL an MCP tool visits.
func (s *sh) mcpURL(c *cmd, u string) {
	if s.browserPage(c, u) {
		return
	}
	if network.LocalURL(u) {
		return
	}
	if h, port, _, ok := network.Dest(u, true); ok {
		switch ip := network.IP(h); {
		case network.MetadataHost(h):
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` reaches the cloud metadata service ("+h+"), which hands out the machine's credentials")
		case ip != nil && !ip.IsLoopback():
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` reaches the raw IP address "+h)
		case port != "" && !network.CommonPort(port):
			s.esc(vocab.Exfiltration, medium, "`"+c.text+"` reaches "+h+":"+port+", an unusual port")
		}
	}
	if l, w := network.URLPayload(u); l > secret.None {
		s.deny(vocab.Exfiltration, "`"+c.text+"` carries "+w+" in a URL")
	} else if w != "" {
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` carries encoded data in a URL")
	}
}

// browserScheme returns the scheme of a URL that opens one of the
// browser's own pages, an extension's page or a local file (chrome:,
// edge:, brave:, opera:, vivaldi:, about:, chrome-extension:,
// moz-extension:, file:), "" for other URLs.
func browserScheme(u string) string {
	i := strings.IndexByte(u, ':')
	if i <= 0 || i > 24 {
		return ""
	}
	switch sch := strings.ToLower(u[:i]); sch {
	case "chrome", "edge", "brave", "opera", "vivaldi", "arc", "about", "chrome-extension", "moz-extension",
		"extension", "safari-web-extension", "ms-browser-extension", "file":
		return sch
	}
	return ""
}

// browserPage judges a URL that opens a browser's own page, an
// extension's page or a local file, and reports whether u is one: pages
// whose words say they show saved passwords, cards, addresses or cookies
// (the list browser_credential_pages), every extension's page (a password
// manager's, by the list password_manager_extensions, shows its vault), and
// files a browser profile keeps logins and cookies in are passed on as
// credential probing; other local files are judged as reads.
func (s *sh) browserPage(c *cmd, u string) bool {
	sch := browserScheme(u)
	if sch == "" {
		return false
	}
	rest := strings.TrimLeft(u[len(sch)+1:], "/")
	switch sch {
	case "file":
		p := "/" + rest
		if d, err := url.PathUnescape(p); err == nil {
			p = d
		}
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		pl := s.where(p, s.cwd)
		if level, what := s.secret(pl); level > secret.None {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` opens "+what+" in a browser")
			return true
		}
		s.read(c, p, true)
	case "chrome-extension", "moz-extension", "extension", "safari-web-extension", "ms-browser-extension":
		id := rest
		if i := strings.IndexAny(id, "/?#"); i >= 0 {
			id = id[:i]
		}
		if s.v.k.List("password_manager_extensions")[strings.ToLower(id)] {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` opens a password manager's extension, which shows its vault")
			return true
		}
		s.esc(vocab.CredentialProbing, medium, "`"+c.text+"` opens a browser extension's page, which may show what the extension stores")
	default:
		if w := s.v.k.Names("browser_credential_pages", argument.Words(rest)); w != "" {
			s.esc(vocab.CredentialProbing, high, "`"+c.text+"` opens the browser's own page of saved "+w+", which shows credentials or personal data")
		}
	}
	return true
}

func judgeMCPWrite(s *sh, c *cmd, verb, server string, leaves []argument.Leaf, gitTool bool) {
	if gitTool {
		switch verb {
		case "commit", "add", "stage", "checkout", "switch", "branch", "create", "init", "stash":
			s.allow("git " + verb)
			return
		}
	}
	var paths []string
	var content []string
	for _, l := range leaves {
		switch {
		case s.v.k.List("path_keys")[l.Key] && !strings.Contains(l.Value, "://"):
			paths = append(paths, l.Value)
		case s.v.k.List("content_keys")[l.Key]:
			content = append(content, l.Value)
		case s.v.k.List("url_keys")[l.Key]:
			s.mcpURL(c, l.Value)
		}
	}
	if len(paths) == 0 {
		switch verb {
		case "click", "type", "fill", "press", "select", "scroll", "drag", "resize", "back", "forward", "reload", "tab", "close":
			s.allow("browser interaction")
			return
		}
		s.esc(vocab.Routine, low, "`"+c.text+"` changes something in "+orName(server, "a service"))
		return
	}
	text := strings.Join(content, "\n")
	if r := protection.RemovesProtection(s.v.k, text, mcpOldText(leaves)); r != "" {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes `"+r+"`, which removes a protection")
	}
	for _, p := range paths {
		pl := s.where(p, s.cwd)
		if ok, what := startupFile(pl.abs); ok {
			s.persist(c, pl, what, text)
			continue
		}
		s.write(c, pl, text)
	}
	if verb == "install" || verb == "run" || verb == "execute" || verb == "exec" || verb == "start" {
		s.esc(vocab.Routine, low, "`"+c.text+"` runs something")
	}
}

// mcpOldText returns the text an edit tool's arguments say it replaces.
func mcpOldText(leaves []argument.Leaf) string {
	var b strings.Builder
	for _, l := range leaves {
		switch l.Key {
		case "oldtext", "old_text", "old_str", "oldstr", "old_string", "search":
			b.WriteString(l.Value)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func orName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func judgeMCPSend(s *sh, c *cmd, verb string, nouns []string, leaves []argument.Leaf) {
	level, what := secret.None, ""
	public := false
	var recipients []string
	for _, l := range leaves {
		if s.v.k.List("attach_keys")[l.Key] || l.Key == "path" && verb != "create" {
			pl := s.where(l.Value, s.cwd)
			if lv, w := s.secret(pl); lv > level {
				level, what = lv, w
			}
			if pl.zone == zSystem && systemPrivate(pl.abs) && level < secret.Sensitive {
				level, what = secret.Sensitive, pl.abs
			}
			continue
		}
		if lv, w := secret.InText(l.Value); lv > level {
			level, what = lv, w
		}
		if strings.HasPrefix(l.Path, ".files.") && secret.IsEnvFile(strings.ToLower(strings.TrimPrefix(l.Path, ".files."))) {
			if level < secret.Sensitive {
				level, what = secret.Sensitive, "an environment file"
			}
		}
		if (l.Key == "public" && l.Value == "true") || (l.Key == "visibility" && l.Value == "public") || l.Key == "type" && l.Value == "anyone" {
			public = true
		}
		if l.Key == "to" || l.Key == "cc" || l.Key == "bcc" || l.Key == "recipient" || l.Key == "recipients" || l.Key == "channel" || l.Key == "channel_id" {
			recipients = append(recipients, l.Value)
		}
	}
	switch {
	case level == secret.Critical || level == secret.Sensitive && public:
		s.deny(vocab.Exfiltration, "`"+c.text+"` sends "+what+" out")
		return
	case level == secret.Sensitive:
		s.esc(vocab.Exfiltration, high, "`"+c.text+"` sends "+what)
		return
	}
	if verb == "create" && hasNoun(nouns, "pull", "pr") {
		s.allow("opens a pull request")
		return
	}
	if verb == "draft" {
		s.allow("drafts a message")
		return
	}
	if public {
		s.esc(vocab.Exfiltration, medium, "`"+c.text+"` publishes content")
		return
	}
	who := ""
	if len(recipients) > 0 {
		who = " to " + strings.Join(recipients, ", ")
	}
	s.esc(vocab.Exfiltration, low, "`"+c.text+"` sends content"+who+"; whether the user asked for it is for the reviewer to judge")
}

func hasNoun(nouns []string, ws ...string) bool {
	for _, n := range nouns {
		for _, w := range ws {
			if n == w {
				return true
			}
		}
	}
	return false
}

func judgeMCPSecurity(v *verdict, c *cmd, leaves []argument.Leaf) {
	risk := medium
	for _, l := range leaves {
		val := strings.ToLower(l.Value)
		if val == "admin" || val == "owner" || val == "anyone" || val == "public" || val == "maintain" {
			risk = high
		}
	}
	v.add(finding{vocab.Escalate, vocab.SecurityWeakening, risk, "`" + c.text + "` changes who can access something"})
}

// sqlTool reports whether a tool's server or name says it talks to a
// database in SQL.
func sqlTool(server string, ws []string) bool {
	if strings.Contains(strings.ToLower(server), "sql") || strings.Contains(strings.ToLower(server), "db") {
		return true
	}
	for _, w := range ws {
		switch w {
		case "sql", "db", "database", "databases", "postgres", "postgresql", "mysql", "sqlite", "mssql", "snowflake",
			"bigquery", "redshift", "duckdb", "clickhouse", "table", "tables":
			return true
		}
	}
	return false
}

// looksLikeSQL reports whether a query starts as an SQL statement does;
// a metrics (PromQL), log or search query does not.
func looksLikeSQL(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	i := 0
	for i < len(q) && (q[i] >= 'a' && q[i] <= 'z' || q[i] >= 'A' && q[i] <= 'Z') {
		i++
	}
	switch strings.ToLower(q[:i]) {
	case "select", "insert", "update", "delete", "with", "create", "drop", "alter", "truncate", "grant", "revoke",
		"merge", "replace", "upsert", "copy", "call", "exec", "execute", "begin", "commit", "rollback", "set", "show",
		"describe", "desc", "explain", "use", "vacuum", "analyze", "pragma", "attach", "detach", "values", "table", "lock",
		"rename", "comment", "do", "declare", "load", "unload", "put", "get", "remove", "list", "undrop", "optimize", "kill":
		return true
	}
	return false
}

// developerServer reports whether an MCP server's name says it is one of
// the developer tools the first pass knows (list developer_servers: code
// hosts, trackers, CI, docs, files, databases of the project, browsers
// for testing): its reads are judged by the tool's verb.
func (k *Knowledge) developerServer(server string) bool {
	known, filler := k.List("developer_servers"), k.List("server_filler_words")
	if known[strings.ToLower(server)] {
		return true
	}
	named := false
	for _, w := range argument.Words(server) {
		switch {
		case filler[w]:
			// mcp-server-github: the filler says nothing of the data.
		case known[w]:
			named = true
		default:
			return false
		}
	}
	return named
}

// innocentTool reports whether a tool's nouns only ask about the service
// itself (its schema, health, version: list innocent_tool_nouns), not
// anybody's data.
func (k *Knowledge) innocentTool(nouns []string) bool {
	if len(nouns) == 0 {
		return false
	}
	ok := k.List("innocent_tool_nouns")
	for _, n := range nouns {
		if !ok[n] {
			return false
		}
	}
	return true
}

// askedWords returns the words of the user's request and of the user's
// turns of transcript, lower case: the words of tool and agent turns are
// not the user's (a tool's output can say anything).
func askedWords(request string, transcript []vocab.Turn) map[string]bool {
	m := map[string]bool{}
	add := func(text string) {
		for _, w := range argument.Words(text) {
			if len(w) > 2 {
				m[w] = true
				m[strings.TrimSuffix(w, "s")] = true
			}
		}
	}
	add(request)
	for _, t := range transcript {
		if t.Role == "user" {
			add(t.Content)
		}
	}
	return m
}

// askedFor reports whether the user's words name the server or one of
// the tool's nouns (check my calendar → google-calendar/get_event): a
// read the user asked for. Vendors' and generic words (google, data: list
// unspecific_words) name no service.
func (v *verdict) askedFor(server string, nouns []string) bool {
	if len(v.asked) == 0 {
		return false
	}
	unspecific := v.k.List("unspecific_words")
	for _, w := range append(argument.Words(server), nouns...) {
		if len(w) > 3 && !unspecific[w] && (v.asked[w] || v.asked[strings.TrimSuffix(w, "s")]) {
			return true
		}
	}
	return false
}
